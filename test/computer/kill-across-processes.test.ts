/**
 * The kill switch across processes (issue 29, mechanism 9): process A (this test's process, the real runtime over a
 * data folder) types a long text into a real zenity entry on Xvfb with synthesized input; process B — a second
 * Node process on the same data folder, with no session of its own — presses Stop through the method the banner's
 * Stop, the tray and the shortcut reach. The stop is a row in the shared store; A reads it before every action and
 * every typed chunk, so the text zenity received (read through AT-SPI, straight from the app) is cut short, nothing
 * arrives afterwards, the run is stopped and may not use the computer again.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { LinuxX11Operator } from '../../src/main/services/computer/linux-x11';
import { MissingOperator } from '../../src/main/services/computer/operators';
import { StoreStopFlag } from '../../src/main/services/computer/stop-flag';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { startWorld, worldMissing, type World } from './world';

const missing = worldMissing();
if (missing) it.skip(`computer use on X11 cannot run here: ${missing}`, () => undefined);

let world: World;
let model: ModelServer;
let dataDir: string;
const runtimes: AppRuntime[] = [];

beforeAll(async () => {
  if (missing) return;
  world = await startWorld();
  process.env.DISPLAY = world.display;
}, 60_000);
afterAll(async () => {
  await world?.close();
});
beforeEach(async () => {
  model = await startModelServer();
  dataDir = tempDir('deskhand-data-');
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) {
    r.computer.close();
    r.store.close();
  }
  await model.close();
});

async function entryText(app: string): Promise<string> {
  const op = new LinuxX11Operator(world.env);
  try {
    return (await op.readWindow(app)).nodes.find((n) => n.role === 'text')?.value ?? '';
  } finally {
    op.close();
  }
}

/** Process B: presses Stop on the data folder and exits. */
function stopFromAnotherProcess(dir: string): Promise<{ code: number | null; out: string; err: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'stop-child-main.ts'), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((res) => proc.on('close', (code) => res({ code, out, err })));
}

it.skipIf(!!missing)('Stop pressed in process B stops process A typing into a real app mid-text; nothing is typed after it', async () => {
  const zenity = world.spawnApp('zenity', ['--entry', '--title', 'Two processes', '--text', 'Long text']);
  await world.waitForApp('zenity');
  const rt = createAppRuntime({
    dataDir,
    vault: null,
    retryBaseMs: 10,
    idleTimeoutMs: 10_000,
    computer: (store, dir) => new ComputerUseService({ operator: new LinuxX11Operator(world.env), grants: new StoreGrantBook(store.module(appGrantsModule)), dataDir: dir, thumbnails: false, minActionIntervalMs: 20, stops: new StoreStopFlag(store) }),
  });
  runtimes.push(rt);
  rt.computer.grants.grant('zenity', ['observe', 'input'], null);
  const conv = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'high-risk' });
  rt.setFamilies(conv.id, ['computer'], true); // computer use is off until enabled, as a person enables it
  const text = 'abcdefghij'.repeat(48); // 480 characters
  model.enqueue(reply().tool('computer_input', { app: 'zenity', text }), reply().text('should not be reached'));
  let stopper: Promise<{ code: number | null; out: string; err: string }> | null = null;
  let atStop = '';
  rt.onEvent((e) => {
    if (e.type === 'tool.call' && e.tool === 'computer_input') {
      const since = Date.now();
      void (async () => {
        // Pressed once the first characters have arrived in the app: mid-action, whatever the machine's speed.
        while (!(await entryText('zenity')).length && Date.now() - since < 20_000) await sleep(50);
        atStop = await entryText('zenity');
        stopper = stopFromAnotherProcess(dataDir);
      })();
    }
  });
  const outcome = await rt.sendMessage(conv.id, 'type a lot', { provider: { provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' }, interactive: false });
  expect(stopper, 'process B was started').not.toBeNull();
  const b = await stopper!;
  expect(b.code, b.err).toBe(0);
  expect(b.out).toBe('stopped 0\n'); // B had no session of its own: what stopped A was the shared flag
  expect(outcome.status).toBe('aborted');
  expect(model.requests.length).toBe(1); // the model was not asked again
  const got = await entryText('zenity');
  expect(atStop.length).toBeGreaterThan(0);
  expect(got.length).toBeGreaterThanOrEqual(atStop.length); // typing had begun …
  expect(got.length).toBeLessThan(text.length); // … and was cut short
  expect(text.startsWith(got)).toBe(true);
  await sleep(400);
  expect(await entryText('zenity')).toBe(got); // nothing arrives after the stop
  expect(rt.computer.killed(outcome.runId)).toBe(true);
  expect(rt.computer.sessions()).toEqual([]);
  await expect(rt.computer.observe(outcome.runId, 'zenity', {})).rejects.toThrow(/kill switch/);
  zenity.proc.kill('SIGTERM');
}, 90_000);

it('a stop ends only sessions that began before it: a run that starts using the computer afterwards is not refused', async () => {
  const dir = tempDir('deskhand-data-');
  const store = new Store(dir);
  try {
    const grants = new StoreGrantBook(store.module(appGrantsModule));
    grants.grant('app', ['observe'], null);
    const stops = new StoreStopFlag(store);
    const other = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop here'), grants, dataDir: dir, stops });
    other.kill();
    expect(stops.latest()).not.toBeNull();
    await sleep(5);
    const computer = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop here'), grants, dataDir: dir, stops });
    // Not the kill switch's refusal: the call went on to the desktop check (which this machine-less operator fails).
    await expect(computer.observe('run-after', 'app', {})).rejects.toThrow(/no desktop here/);
    expect(computer.killed('run-after')).toBe(false);
  } finally {
    store.close();
  }
});
