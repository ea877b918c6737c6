/**
 * Computer use through the real runtime (scripted model server, SQLite store, the host's AppRuntime) on a private
 * Xvfb + openbox + AT-SPI bus with real GTK apps: a grant asked as an app_grant request and approved like any approval;
 * zenity's entry dialog observed, typed into by ref, OK clicked by ref, and zenity's own stdout is the text typed; an
 * app that was not granted is never observed or touched, even when it takes the focus mid-run; a revoked app is
 * refused; the kill switch stops a run in the middle of typing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { LinuxX11Operator } from '../../src/main/services/computer/linux-x11';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { AtspiClient } from '../../src/main/services/computer/atspi';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { startWorld, worldMissing, type World } from './world';

const missing = worldMissing();
if (missing) it.skip(`computer use on X11 cannot run here: ${missing}`, () => undefined);

let world: World;
let model: ModelServer;
let dataDir: string;
let work: string;
const runtimes: AppRuntime[] = [];

beforeAll(async () => {
  if (missing) return;
  world = await startWorld();
  process.env.DISPLAY = world.display; // nut-js (XTest) opens the display named here
}, 60_000);
afterAll(async () => {
  await world?.close();
});
beforeEach(async () => {
  model = await startModelServer();
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) {
    r.computer.close();
    r.store.close();
  }
  await model.close();
});

function runtime(): AppRuntime {
  const r = createAppRuntime({
    dataDir,
    vault: null,
    retryBaseMs: 10,
    idleTimeoutMs: 10_000,
    computer: (store, dir) => new ComputerUseService({ operator: new LinuxX11Operator(world.env), grants: new StoreGrantBook(store.module(appGrantsModule)), dataDir: dir, thumbnails: true, minActionIntervalMs: 20 }),
  });
  runtimes.push(r);
  return r;
}

const provider = (): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' });

function toolResults(i: number): string[] {
  const messages = (model.requests[i]?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

/** The entry's text as AT-SPI reads it, straight from the app (not through Deskhand). */
async function entryText(app: string): Promise<string> {
  const op = new LinuxX11Operator(world.env);
  try {
    const tree = await op.readWindow(app);
    return tree.nodes.find((n) => n.role === 'text')?.value ?? '';
  } finally {
    op.close();
  }
}

it.skipIf(!!missing)('grants zenity, observes it, types into the entry by ref and clicks OK by ref: zenity prints the text', async () => {
  const zenity = world.spawnApp('zenity', ['--entry', '--title', 'Deskhand test', '--text', 'Your name?']);
  await world.waitForApp('zenity');
  const rt = runtime();
  const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
  rt.setFamilies(conv.id, ['computer'], true); // loaded from the first request, as a person enabling them would
  const typed = 'Ada Lovelace, 1843';
  model.enqueue(
    reply().tool('computer_grant_app', { app: 'zenity', capabilities: ['observe', 'pointer', 'input'], reason: 'fill in the dialog' }),
    reply().tool('computer_observe', { app: 'zenity', screenshot: true }),
    reply().tool('computer_input', { app: 'zenity', ref: 'e1', text: typed }),
    reply().tool('computer_pointer', { app: 'zenity', ref: 'e3', action: 'click' }),
    reply().text('Done.'),
  );

  // Nobody can answer here: the grant parks as an app_grant request, and nothing is observed yet.
  const parked = await rt.sendMessage(conv.id, 'put my name in the dialog', { provider: provider(), interactive: false });
  expect(parked.status).toBe('parked');
  const request = rt.store.getApproval(parked.approvalIds[0]!)!;
  expect(request.kind).toBe('app_grant');
  expect(JSON.parse(request.request!)).toMatchObject({ app: 'zenity', capabilities: ['observe', 'pointer', 'input'] });
  expect(rt.computer.grants.list()).toEqual([]);

  // `deskhand runs approve ID` grants exactly what was asked (no foreground).
  const afterGrant = await rt.decideApproval(request.id, { approved: true }, { provider: provider(), interactive: false });
  expect(rt.computer.grants.get('zenity')?.capabilities).toEqual(['observe', 'pointer', 'input']);
  expect(toolResults(1).at(-1)).toContain('The person granted "zenity": observe, pointer, input');

  // The observation: an outline with refs, untrusted, and a real PNG.
  const observed = toolResults(2).at(-1)!;
  expect(observed).toMatch(/^<untrusted source="app zenity"/);
  expect(observed).toContain('dialog "Deskhand test"');
  expect(observed).toContain('label "Your name?"');
  expect(observed).toContain('[e1] text "" focused value=""');
  expect(observed).toContain('[e3] push button "OK"');
  const shot = /Screenshot: (\S+\.png)/.exec(observed)![1]!;
  const png = readFileSync(shot);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.readUInt32BE(16)).toBeGreaterThan(100); // the window's width
  expect(png[25]).toBe(6); // RGBA

  // Typing sends material into another app after an untrusted read (the observation). The run is not interactive
  // (approved from the CLI, nobody at the screen), so the rule that an app's own outline does not taint input back
  // into it (issue 46) does not apply: it asks, even though the policy and the grant clear it; nothing reaches the
  // entry before they approve.
  expect(afterGrant?.status).toBe('parked');
  const input = rt.store.getApproval(afterGrant!.approvalIds[0]!)!;
  expect(input.tool).toBe('computer_input');
  expect(input.reasons).toContain('this run has read untrusted content');
  expect(await entryText('zenity')).toBe('');
  const afterInput = await rt.decideApproval(input.id, { approved: true }, { provider: provider(), interactive: false });

  // The input ran by ref through editable text.
  expect(toolResults(3).at(-1)).toContain('typed 18 characters into text "" through its editable text');
  expect(toolResults(3).at(-1)).not.toContain(typed); // the typed text is not echoed
  expect(await entryText('zenity')).toBe(typed);

  // The click sends material into another app after an untrusted read: it asks the person too, who approves.
  expect(afterInput?.status).toBe('parked');
  const click = rt.store.getApproval(afterInput!.approvalIds[0]!)!;
  expect(click.reasons).toContain('this run has read untrusted content');
  expect(click.tool).toBe('computer_pointer');
  expect(click.description).toBe('click push button "OK" in zenity');
  expect(zenity.proc.exitCode).toBeNull();
  const done = await rt.decideApproval(click.id, { approved: true }, { provider: provider(), interactive: false });
  expect(done?.status).toBe('finished');
  expect(await zenity.exited).toBe(0);
  expect(zenity.stdout()).toBe(`${typed}\n`);
  const clicked = toolResults(4).at(-1)!;
  expect(clicked).toContain('click on push button "OK" through its accessibility action');
  const before = /Before: (\S+)/.exec(clicked)![1]!;
  expect(existsSync(before)).toBe(true);

  // computer_end ends the session; its screenshots move to the kept folder (tool cards still show them) and the
  // log retention deletes them.
  await rt.computer.end(parked.runId);
  expect(existsSync(shot)).toBe(false);
  expect(existsSync(before)).toBe(false);
  const service = rt.computer as ComputerUseService;
  const kept = join(service.keptDir(parked.runId), basename(before));
  expect(readFileSync(kept).subarray(1, 4).toString()).toBe('PNG');
  expect(service.pruneKept(60_000, Date.now() + 61_000)).toBe(1);
  expect(existsSync(kept)).toBe(false);
}, 60_000);

it.skipIf(!!missing)('never observes or touches an app that is not granted, even when it takes the focus; a revoked app is refused', async () => {
  const zenity = world.spawnApp('zenity', ['--entry', '--title', 'Granted', '--text', 'Type here']);
  await world.waitForApp('zenity');
  const rt = runtime();
  rt.computer.grants.grant('zenity', ['observe', 'input'], null);
  const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
  rt.setFamilies(conv.id, ['computer'], true); // loaded from the first request, as a person enabling them would
  let factory: ReturnType<World['spawnApp']> | null = null;
  rt.onEvent((e) => {
    // Mid-run, right after the observation: another app opens and takes the focus.
    if (e.type === 'tool.result' && e.tool === 'computer_observe' && !factory) factory = world.spawnApp('gtk3-widget-factory', []);
  });
  model.enqueue(
    reply().tool('computer_observe', { app: 'zenity' }),
    reply().tool('computer_wait', { app: 'zenity', until: 'change', timeout_ms: 60_000 }),
    reply().tool('computer_input', { app: 'zenity', key: 'Return' }),
    reply().tool('computer_observe', { app: 'gtk3-widget-factory' }),
    reply().text('stopped'),
  );
  const asked = await rt.sendMessage(conv.id, 'press Enter in the dialog', { provider: provider(), interactive: false });
  expect(factory).not.toBeNull();
  await world.waitForApp('gtk3-widget-factory');

  // The run read zenity's outline (untrusted), so the key press asks first; the person approves it.
  expect(asked.status).toBe('parked');
  const press = rt.store.getApproval(asked.approvalIds[0]!)!;
  expect(press.tool).toBe('computer_input');
  expect(press.reasons).toContain('this run has read untrusted content');
  const parked = (await rt.decideApproval(press.id, { approved: true }, { provider: provider(), interactive: false }))!;

  // Approved or not, the key would have gone to the app in front: refused, nothing pressed (zenity is still open, printed nothing).
  const refused = toolResults(3).at(-1)!;
  expect(refused).toMatch(/Keyboard input would go to "gtk3-widget-factory".*nothing was done/);
  expect(zenity.proc.exitCode).toBeNull();
  expect(zenity.stdout()).toBe('');

  // Observing the app nobody granted asks (here: parks); nothing of it reached the model.
  expect(parked.status).toBe('parked');
  const ask = rt.store.getApproval(parked.approvalIds[0]!)!;
  expect(ask.tool).toBe('computer_observe');
  expect(ask.reasons).toContain('the person has not granted observe on \\"gtk3-widget-factory\\": always asks');
  const denied = await rt.decideApproval(ask.id, { approved: false }, { provider: provider(), interactive: false });
  expect(denied?.status).toBe('finished');
  expect(toolResults(4).at(-1)).toContain('The person denied this call');
  expect(toolResults(4).join('\n')).not.toMatch(/window "[^"]*" of gtk3-widget-factory/); // no outline of the factory anywhere
  expect(existsSync(rt.computer.screenshotDir(parked.runId)) && readFileSync(`${rt.computer.screenshotDir(parked.runId)}/session.json`, 'utf8')).not.toContain('gtk3-widget-factory');

  // Revoked: the next observation of zenity is refused outright (not asked), and the app is untouched.
  expect(rt.computer.grants.revoke('zenity')).toBe(true);
  model.enqueue(reply().tool('computer_observe', { app: 'zenity' }), reply().text('ok'));
  const after = await rt.sendMessage(conv.id, 'look again', { provider: provider(), interactive: false });
  expect(after.status).toBe('finished');
  expect(toolResults(model.requests.length - 1).at(-1)).toMatch(/Denied by policy: .*the person revoked "zenity"/);
  expect(zenity.proc.exitCode).toBeNull();
  factory!.proc.kill('SIGTERM');
  zenity.proc.kill('SIGTERM');
}, 120_000);

it.skipIf(!!missing)('the kill switch stops a run in the middle of typing and the run may not use the computer again', async () => {
  const zenity = world.spawnApp('zenity', ['--entry', '--title', 'Kill switch', '--text', 'Long text']);
  await world.waitForApp('zenity');
  const rt = runtime();
  rt.computer.grants.grant('zenity', ['observe', 'input'], null);
  const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
  rt.setFamilies(conv.id, ['computer'], true); // loaded from the first request, as a person enabling them would
  const text = 'abcdefghij'.repeat(40);
  model.enqueue(reply().tool('computer_input', { app: 'zenity', text }), reply().text('should not be reached'));
  let typingSince = 0;
  rt.onEvent((e) => {
    if (e.type === 'tool.call' && e.tool === 'computer_input') {
      typingSince = Date.now();
      // Pressed once the first characters have arrived in the app: mid-action, whatever the machine's speed.
      void (async () => {
        while (!(await entryText('zenity')).length && Date.now() - typingSince < 20_000) await sleep(50);
        rt.computer.kill();
      })();
    }
  });
  const outcome = await rt.sendMessage(conv.id, 'type a lot', { provider: provider(), interactive: false });
  expect(outcome.status).toBe('aborted');
  expect(typingSince).toBeGreaterThan(0);
  expect(model.requests.length).toBe(1); // the model was not asked again
  const got = await entryText("zenity");
  expect(got.length).toBeGreaterThan(0); // typing had begun …
  expect(got.length).toBeLessThan(text.length); // … and stopped part-way
  expect(text.startsWith(got)).toBe(true);
  await sleep(300);
  expect(await entryText('zenity')).toBe(got); // nothing more arrives afterwards
  expect(rt.computer.killed(outcome.runId)).toBe(true);
  expect(rt.computer.sessions()).toEqual([]);
  await expect(rt.computer.observe(outcome.runId, 'zenity', {})).rejects.toThrow(/kill switch/);
  zenity.proc.kill('SIGTERM');
}, 60_000);

it.skipIf(!!missing)('computer_foreground raises a window behind another app and types into it in the same call, through the same grant checks', async () => {
  const zenity = world.spawnApp('zenity', ['--entry', '--title', 'Behind', '--text', 'Type here']);
  await world.waitForApp('zenity');
  const factory = world.spawnApp('gtk3-widget-factory', []);
  await world.waitForApp('gtk3-widget-factory', 90_000); // a big GTK app: slow to start on a loaded machine
  const op = new LinuxX11Operator(world.env);
  try {
    // The factory took the focus: keys sent now would reach it, not zenity (the test above shows they are refused).
    await expect.poll(async () => (await op.activeWindow())?.app, { timeout: 60_000 }).toBe('gtk3-widget-factory');
  } finally {
    op.close();
  }
  const rt = runtime();
  rt.computer.grants.grant('zenity', ['observe', 'input', 'foreground'], null); // no pointer grant
  const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
  rt.setFamilies(conv.id, ['computer'], true);
  const typed = 'raised then typed';
  model.enqueue(
    reply().tool('computer_foreground', { app: 'zenity', action: 'click', x: 5, y: 5 }),
    reply().tool('computer_foreground', { app: 'zenity', text: typed, key: 'Return' }),
    reply().text('Done.'),
  );

  // A click in the same call needs the pointer grant, as computer_pointer does: the call asks (parks) and nothing is raised.
  const parked = await rt.sendMessage(conv.id, 'fill in the dialog behind', { provider: provider(), interactive: false });
  expect(parked.status).toBe('parked');
  const ask = rt.store.getApproval(parked.approvalIds[0]!)!;
  expect(ask.tool).toBe('computer_foreground');
  expect(ask.reasons).toContain('the person has not granted pointer on \\"zenity\\": always asks');
  expect(ask.description).toBe('Bring zenity to the front, then click the point (5, 5)');
  const denied = await rt.decideApproval(ask.id, { approved: false }, { provider: provider(), interactive: false });

  // Typing and a key need input (granted) and foreground (granted): cleared by the policy, the window is raised and
  // zenity itself prints what was typed, although the factory was in front.
  expect(denied?.status).toBe('finished');
  expect(toolResults(1).at(-1)).toContain('The person denied this call');
  const done = toolResults(2).at(-1)!;
  expect(done).toMatch(/^Done: brought "Behind" of zenity to the front, then typed 17 characters with synthesized input, then pressed Return\./);
  expect(await zenity.exited).toBe(0);
  expect(zenity.stdout()).toBe(`${typed}\n`);
  factory.proc.kill('SIGTERM');
}, 240_000);

void AtspiClient;
