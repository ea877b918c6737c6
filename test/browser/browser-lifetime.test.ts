/**
 * No Chromium outlives Deskhand: after `deskhand run --json` parks on a private navigation (the real binary, the
 * scripted model), and after a SIGKILL of a process that had the browser open, the process table has no process of
 * the browser profile — the killed one's browser is ended by the next start's recovery (its process group was
 * recorded in process_groups).
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/main/host/assembly/open-runtime';
import { processesUsingProfile } from '../../src/main/services/browser/browser-process';
import { findChromium } from '../../src/main/services/chromium/index';
import { Store } from '../../src/main/services/store/store';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { startSite, type Site } from './site';

let model: ModelServer;
let site: Site;
let other: Site;
let dataDir: string;
let work: string;

beforeEach(async () => {
  model = await startModelServer();
  site = await startSite();
  other = await startSite();
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
});
afterEach(async () => {
  await Promise.all([model.close(), site.close(), other.close()]);
});

const profiles = () => join(dataDir, 'browser', 'profiles');

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!findChromium())('the browser process lifetime', () => {
  it('deskhand run --json parks on a private navigation and leaves no Chromium behind', async () => {
    requireBuild();
    // A URL grant naming the first site's exact host:port lets it open unattended; the second site is not granted.
    const granted = await runCli(['grants', 'add-url', `${site.origin}/*`, '--data-dir', dataDir]);
    expect(granted.code).toBe(0);
    model.enqueue(
      reply().tool('browser_navigate', { url: `${site.origin}/a` }),
      reply().tool('browser_navigate', { url: `${other.origin}/b` }),
    );
    const run = await runCli(['run', '--provider', 'openai', '--base-url', model.baseURL, '--model', 'm', '--policy', 'high-risk', '--cwd', work, '--data-dir', dataDir, '--enable', 'browser', '--json', 'browse']);
    expect(run.events.map((e) => e.type)).toContain('run.parked');
    const asked = run.events.find((e) => e.type === 'approval.requested')!;
    expect(asked.tool).toBe('browser_navigate');
    expect(JSON.stringify(asked.reasons)).toMatch(/private destination 127\.0\.0\.1:\d+.*loopback/);
    // The granted page really opened in Chromium; the other site was never contacted.
    expect(site.log.map((l) => l.url)).toContain('/a');
    expect(other.log).toEqual([]);
    // The process has exited: no process of the profile is left, and no browser group stays recorded.
    expect(processesUsingProfile(profiles())).toEqual([]);
    const store = new Store(dataDir);
    try {
      expect(store.tasks.groups().filter((g) => g.task_id === 'browser')).toEqual([]);
    } finally {
      store.close();
    }
  }, 120_000);

  it('after a SIGKILL of the app, the next start ends the browser it left', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'browser-child-main.ts'), dataDir, `${site.origin}/a`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((done, fail) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) done(out.split('\n')[0]!);
      });
      child.on('exit', () => fail(new Error(`child exited: ${out}`)));
    });
    const { pids } = JSON.parse(line) as { pids: number[] };
    expect(pids.length).toBeGreaterThan(0);
    const store = new Store(dataDir);
    const recorded = store.tasks.groups().filter((g) => g.task_id === 'browser');
    store.close();
    expect(recorded).toHaveLength(1);
    expect(pids).toContain(recorded[0]!.pgid);

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const survivors = processesUsingProfile(profiles());
    // The next start (openRuntime → recover) ends whatever of that browser is left, and forgets its group.
    const next = openRuntime({ dataDir, vault: null });
    try {
      await until(() => processesUsingProfile(profiles()).length === 0);
      await until(() => next.store.tasks.groups().filter((g) => g.task_id === 'browser').length === 0);
    } finally {
      await next.shutdownServices();
      next.store.close();
    }
    // Chromium may notice its parent's death by itself; either way nothing survives the next start.
    expect(processesUsingProfile(profiles())).toEqual([]);
    process.stderr.write(`browser processes left right after the SIGKILL: ${survivors.length}\n`);
  }, 120_000);
});
