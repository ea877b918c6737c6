/**
 * Every command exits as soon as its work is done, whatever families it touched, and leaves no process behind (issue
 * 30). Per family, through the built binary and the scripted model: `deskhand run --json` uses the family and then
 * parks (exit 3), and `deskhand runs approve` resumes it, uses the family again and finishes (exit 0). Each process must
 * END by itself (its exit, not its pipes, within a generous bound that only tells "ends" from "hangs"), without the
 * CLI's last-resort line ("still open after …"), and the process table must hold nothing of its data folder or its
 * commands afterwards. `deskhand web`: one SIGINT ends it (a background command running, another one stopped, computer
 * use's connections open), and a command that ignores SIGTERM does not keep it alive past its exit deadline.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/main/services/chromium/index';
import { extensionsModule } from '../../src/main/services/store/modules/extensions';
import { Store } from '../../src/main/services/store/store';
import { requireBuild, runCliToExit, type ExitResult } from '../support/cli';
import { SCRIPTED_PNG, reply, startModelServer, type ModelServer, type ReplyInput } from '../support/model-server';
import { processesMarked, processesWith, until } from '../support/tasks';
import { tempDir } from '../support/tool-context';
import { connectWeb, startWeb } from '../support/web';
import { startSite, type Site } from '../browser/site';
import { startWorld, worldMissing, type World } from '../computer/world';
import { EVERYTHING } from '../extensions/helpers';

/** Only tells a process that ends from one that hangs (CLI start alone takes 5-30 s on this loaded machine). */
const BOUND_MS = 120_000;

let model: ModelServer;
let dataDir: string;
let work: string;
/** In the CLI's environment (and its servers'): finds what it left behind. */
let mark: string;
const live: ChildProcess[] = [];

beforeAll(() => requireBuild());
beforeEach(async () => {
  model = await startModelServer();
  dataDir = tempDir('deskhand-exit-data-');
  work = tempDir('deskhand-exit-work-');
  mark = `exit-${randomUUID().slice(0, 8)}`;
});
afterEach(async () => {
  for (const c of live.splice(0)) c.kill('SIGKILL');
  await model.close();
});

const provider = () => ['--provider', 'openai', '--base-url', model.baseURL, '--model', 'm', '--data-dir', dataDir];
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliToExit(args, { env: { ...env, DESKHAND_EXIT_MARK: mark }, withinMs: BOUND_MS });

/** `deskhand run --json` in the work folder. */
const run = (prompt: string, flags: string[], env?: NodeJS.ProcessEnv) => cli(['run', '--json', '--cwd', work, ...provider(), ...flags, prompt], env);

/** The process ended by itself, said nothing about open handles, with this exit code; nothing of it is left. */
async function endedClean(r: ExitResult, code: number, extraMarkers: string[] = []): Promise<void> {
  expect(r.exited, `still running at the bound:\n${r.stderr.slice(-3000)}`).toBe(true);
  expect(r.stderr).not.toMatch(/still open after/);
  expect(r.code, `${r.stderr.slice(-2000)}\n${JSON.stringify(r.events.filter((e) => /requested|finished/.test(e.type))).slice(0, 2000)}`).toBe(code);
  const markers = [dataDir, mark, ...extraMarkers];
  // Killed processes leave the table a moment after their signal; a live leftover stays.
  await until(() => processesMarked(markers).length === 0, 'no leftover', 5_000).catch(() => undefined);
  expect(processesMarked(markers)).toEqual([]);
}

function parkedOn(r: ExitResult, tool: string): string {
  const asked = r.events.find((e) => e.type === 'approval.requested' || e.type === 'input.requested');
  expect(asked?.tool, r.stdout.slice(-2000)).toBe(tool);
  const parked = r.events.find((e) => e.type === 'run.parked') as { approvalIds: string[] } | undefined;
  expect(parked, r.stdout.slice(-2000)).toBeDefined();
  return parked!.approvalIds[0]!;
}

const approve = (id: string, env?: NodeJS.ProcessEnv) => cli(['runs', 'approve', id, '--json', ...provider()], env);

/** A write that asks under the read-only policy: the run parks on it. */
const parkingWrite = () => reply().tool('write_file', { path: join(work, 'out.txt'), content: 'approved' });

/** Everything the model was sent, as one string (tool results included). */
const sent = () => JSON.stringify(model.requests.map((r) => r.body));

/** The family's call, the parking write; then, after approval, the family's call again and a final answer. */
async function parkThenFinish(opts: { first: ReplyInput; again: ReplyInput; flags: string[]; env?: NodeJS.ProcessEnv; extraMarkers?: string[] }): Promise<void> {
  model.enqueue(opts.first, parkingWrite());
  const parked = await run('use the family, then write', ['--policy', 'read-only', ...opts.flags], opts.env);
  await endedClean(parked, 3, opts.extraMarkers);
  const id = parkedOn(parked, 'write_file');
  model.enqueue(opts.again, reply().text('Done.'));
  model.setFallback(() => reply().text('Done.')); // wake-ups of background results, however many
  const finished = await approve(id, opts.env);
  await endedClean(finished, 0, opts.extraMarkers);
  expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('approved');
}

describe('deskhand run / runs approve exit after each family', () => {
  it('plain shell: a background command running at the park, a foreground one after the approval', async () => {
    const sleep = `sleep 301.${process.pid % 1000}`;
    await parkThenFinish({
      first: reply().tool('execute_command', { command: sleep, run_in_background: true, description: 'long' }),
      again: reply().tool('execute_command', { command: `echo shell-${mark}` }),
      flags: [],
      extraMarkers: [sleep],
    });
    expect(sent()).toContain(`shell-${mark}`);
  }, 4 * BOUND_MS);

  it('the job worker: a batch running at the park ends with the process; a batch after the approval runs and reports', async () => {
    // Short enough that the batch revived by `runs approve` (it resumes an interrupted batch) ends by itself.
    const sleep = `sleep 6.${process.pid % 1000}`;
    await parkThenFinish({
      first: reply().tool('run_background_jobs', { jobs: [{ command: sleep }], description: 'long' }),
      again: reply().tool('run_background_jobs', { jobs: [{ command: `echo job-${mark}` }] }),
      flags: ['--enable', 'jobs'],
      extraMarkers: [sleep, 'job-worker'],
    });
    expect(sent()).toContain(`job-${mark}`);
  }, 4 * BOUND_MS);

  it('an MCP stdio server (server-everything from npm) ends with each process', async () => {
    const store = new Store(dataDir);
    try {
      store.module(extensionsModule).putServer('everything', JSON.stringify({ transport: 'stdio', command: EVERYTHING, env: { DESKHAND_EXIT_MARK: mark }, tier: 'read-only' }));
    } finally {
      store.close();
    }
    await parkThenFinish({
      first: reply().tool('mcp__everything__echo', { message: `first-${mark}` }),
      // A second call would ask (the run read untrusted content): the resumed run only needs the server connected.
      again: reply().text('Echoed.'),
      flags: [],
    });
    expect(sent()).toContain(`Echo: first-${mark}`);
    // The resumed process connected the server too: its tool is offered in the request `runs approve` made.
    expect(JSON.stringify(model.requests.at(-1)!.body.tools ?? [])).toContain('mcp__everything__echo');
  }, 4 * BOUND_MS);

  it('media: an image read before the park and after the approval', async () => {
    writeFileSync(join(work, 'pixel.png'), SCRIPTED_PNG);
    await parkThenFinish({
      first: reply().tool('read_media_file', { path: 'pixel.png' }),
      again: reply().tool('read_media_file', { path: 'pixel.png' }),
      flags: ['--enable', 'media'],
    });
    expect(sent()).toMatch(/2\s*[x×]\s*2/);
  }, 4 * BOUND_MS);

  describe.skipIf(!findChromium())('the browser', () => {
    let site: Site;
    let other: Site;
    beforeEach(async () => {
      site = await startSite();
      other = await startSite();
    });
    afterEach(async () => Promise.all([site.close(), other.close()]));

    it('Chromium ends with the process that parked on a private navigation and with the one that finished it', async () => {
      const store = new Store(dataDir);
      try {
        store.urlGrants.add(`${site.origin}/*`);
      } finally {
        store.close();
      }
      model.enqueue(reply().tool('browser_navigate', { url: `${site.origin}/a` }), reply().tool('browser_navigate', { url: `${other.origin}/b` }));
      const parked = await run('browse', ['--policy', 'high-risk', '--enable', 'browser']);
      await endedClean(parked, 3);
      const id = parkedOn(parked, 'browser_navigate');
      expect(site.log.map((l) => l.url)).toContain('/a');
      model.enqueue(reply().text('Done.'));
      const finished = await approve(id);
      await endedClean(finished, 0);
      expect(other.log.map((l) => l.url)).toContain('/b');
    }, 4 * BOUND_MS);
  });

  describe.skipIf(!!worldMissing())('computer use (Xvfb, D-Bus, AT-SPI, zenity)', () => {
    let world: World;
    beforeAll(async () => {
      world = await startWorld();
      world.spawnApp('zenity', ['--entry', '--title', 'Exit test', '--text', 'Your name?']);
      await world.waitForApp('zenity');
    }, 60_000);
    afterAll(async () => world?.close());

    it('a run that listed the desktop apps parks on computer_grant_app and exits; runs approve observes zenity and exits', async () => {
      model.enqueue(reply().tool('computer_apps', {}), reply().tool('computer_grant_app', { app: 'zenity', capabilities: ['observe'], reason: 'read the dialog' }));
      const parked = await run('look at the dialog', ['--policy', 'read-only', '--enable', 'computer'], world.env);
      await endedClean(parked, 3);
      const id = parkedOn(parked, 'computer_grant_app');
      expect(sent()).toContain('zenity');
      model.enqueue(reply().tool('computer_observe', { app: 'zenity' }), reply().text('Done.'));
      const finished = await approve(id, world.env);
      await endedClean(finished, 0);
      expect(sent()).toContain('label \\"Your name?\\"');
    }, 4 * BOUND_MS);
  });
});

describe('deskhand web ends on one SIGINT', () => {
  const sleepA = `sleep 303.${process.pid % 1000}`;
  const sleepB = `sleep 304.${process.pid % 1000}`;

  /** A conversation that starts two background commands; the second is stopped through the contract. */
  async function twoBackgroundCommands(env: NodeJS.ProcessEnv = {}) {
    const web = await startWeb({ dataDir, baseURL: model.baseURL, live, env: { DESKHAND_EXIT_MARK: mark, ...env } });
    const c = await connectWeb(web);
    const conv = await c.call<{ id: string }>('createConversation', { folder: work, policy: 'read-only' });
    model.enqueue(
      reply().tool('execute_command', { command: sleepA, run_in_background: true, description: 'keeps running' }).tool('execute_command', { command: sleepB, run_in_background: true, description: 'stopped' }),
      reply().text('Both started.'),
    );
    await c.call('sendMessage', { conversationId: conv.id, text: 'start two' });
    await until(() => processesWith(sleepA).length > 0 && processesWith(sleepB).length > 0, 'both commands running', 60_000);
    const { tasks } = await c.call<{ tasks: { id: string; title: string }[] }>('listBackgroundTasks', { conversationId: conv.id });
    const stopped = tasks.find((t) => t.title === 'stopped');
    expect(stopped, JSON.stringify(tasks)).toBeDefined();
    await c.call('cancelBackgroundTask', { conversationId: conv.id, taskId: stopped!.id });
    await until(() => processesWith(sleepB).length === 0, 'the stopped command gone', 30_000);
    expect(processesWith(sleepA).length).toBeGreaterThan(0);
    return { web, c, conv };
  }

  async function stoppedClean(web: Awaited<ReturnType<typeof startWeb>>, ended: Promise<number | null>) {
    const code = await Promise.race([ended, new Promise<'hung'>((r) => setTimeout(() => r('hung'), BOUND_MS).unref())]);
    expect(code, web.stderr().slice(-3000)).toBe(0);
    await until(() => processesMarked([dataDir, mark, sleepA, sleepB]).length === 0, 'no leftover', 5_000).catch(() => undefined);
    expect(processesMarked([dataDir, mark, sleepA, sleepB])).toEqual([]);
  }

  it('after a background command ran and another was stopped (the UI asked for computer use\'s status too)', async () => {
    // A deadline far away: this proves the orderly shutdown closes everything, not the last resort.
    const { web, c } = await twoBackgroundCommands({ DESKHAND_EXIT_DEADLINE_MS: String(BOUND_MS) });
    await c.call('getComputerUse', {});
    await stoppedClean(web, web.stop('SIGINT'));
    expect(web.stderr()).not.toMatch(/still open after/);
  }, 4 * BOUND_MS);

  it.skipIf(!!worldMissing())('after computer use: a conversation that listed the desktop apps', async () => {
    const world = await startWorld();
    try {
      world.spawnApp('zenity', ['--info', '--text', 'Exit test']);
      await world.waitForApp('zenity');
      const web = await startWeb({ dataDir, baseURL: model.baseURL, live, env: { ...world.env, DESKHAND_EXIT_MARK: mark, DESKHAND_EXIT_DEADLINE_MS: String(BOUND_MS) } });
      const c = await connectWeb(web);
      const conv = await c.call<{ id: string }>('createConversation', { folder: work, policy: 'read-only' });
      // search_tools loads the family (off until then), as a model finding it would; the UI reads its status.
      model.enqueue(reply().tool('search_tools', { query: 'computer apps' }), reply().tool('computer_apps', {}), reply().text('Listed.'));
      await c.call('sendMessage', { conversationId: conv.id, text: 'which apps are open?' });
      await c.call('getComputerUse', {});
      await until(() => model.requests.length >= 3, 'the apps listed', 60_000);
      expect(sent()).toContain('zenity');
      await stoppedClean(web, web.stop('SIGINT'));
      expect(web.stderr()).not.toMatch(/still open after/);
    } finally {
      await world.close();
    }
  }, 4 * BOUND_MS);

  it('a command that ignores SIGTERM: the exit deadline ends the process, names what was closing, and the command dies with it', async () => {
    const stubborn = `sleep 305.${process.pid % 1000}`;
    const web = await startWeb({ dataDir, baseURL: model.baseURL, live, env: { DESKHAND_EXIT_MARK: mark } });
    const c = await connectWeb(web);
    // `trap` is high-risk (it registers code to run later): this conversation's policy clears it.
    const conv = await c.call<{ id: string }>('createConversation', { folder: work, policy: 'high-risk' });
    model.enqueue(reply().tool('execute_command', { command: `trap '' TERM; ${stubborn}; true`, run_in_background: true, description: 'ignores SIGTERM' }), reply().text('Started.'));
    await c.call('sendMessage', { conversationId: conv.id, text: 'start it' });
    await until(() => processesWith(stubborn).length > 0, 'the command running', 60_000);
    const ended = web.stop('SIGINT');
    await stoppedClean(web, ended);
    expect(web.stderr()).toMatch(/deskhand: Deskhand web was stopped; still open after 2000 ms: .*background tasks, workflows and MCP servers \(closing\)/);
    expect(processesWith(stubborn)).toEqual([]);
  }, 4 * BOUND_MS);
});
