/**
 * The kill switch across processes end to end through the built CLI (issue 29, mechanism 9): one `deskhand run
 * --enable computer` types a long text into a real zenity entry on Xvfb, driven by the scripted model; a second CLI
 * process on the same data folder runs `deskhand stop` once the first characters have arrived. The app's own text
 * (read through AT-SPI) is a strict prefix of the text and grows no more, the run ends stopped, and the model is not
 * asked again.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { LinuxX11Operator } from '../../src/main/services/computer/linux-x11';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';
import { reply } from '../support/model-server';
import { useCliWorld, type CliResult } from '../support/cli';
import { rawAll } from '../support/raw-db';
import { startWorld, worldMissing, type World } from './world';

const missing = worldMissing();
if (missing) it.skip(`computer use on X11 cannot run here: ${missing}`, () => undefined);

let world: World;
const w = useCliWorld('killcli', { policy: 'high-risk', flags: ['--enable', 'computer'] });

beforeAll(async () => {
  if (missing) return;
  world = await startWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

async function entryText(app: string): Promise<string> {
  const op = new LinuxX11Operator(world.env);
  try {
    return (await op.readWindow(app)).nodes.find((n) => n.role === 'text')?.value ?? '';
  } finally {
    op.close();
  }
}

/** The X display and the accessibility bus of the test world, for the CLI processes. */
const displayEnv = (): NodeJS.ProcessEnv => ({ DISPLAY: world.env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: world.env.DBUS_SESSION_BUS_ADDRESS, XDG_SESSION_TYPE: 'x11', NO_AT_BRIDGE: undefined, WAYLAND_DISPLAY: undefined });

it.skipIf(!!missing)('deskhand stop in a second process stops deskhand run typing into a real app mid-text; the run ends stopped', async () => {
  const zenity = world.spawnApp('zenity', ['--entry', '--title', 'CLI kill switch', '--text', 'Long text']);
  try {
    await world.waitForApp('zenity');
    // The person granted zenity to computer use (as `deskhand grants` lists it).
    const store = new Store(w.dataDir);
    new StoreGrantBook(store.module(appGrantsModule)).grant('zenity', ['observe', 'input'], null);
    store.close();

    const text = 'abcdefghij'.repeat(300); // 3000 characters: far more than can be typed while a CLI starts
    w.server.enqueue(reply().tool('computer_input', { app: 'zenity', text }), reply().text('should not be reached'));
    let stdout = '';
    let stopper: Promise<CliResult> | null = null;
    let atStop = '';
    const run = w.run('type a lot', {
      env: displayEnv(),
      onSpawn: (child: ChildProcess) => {
        child.stdout?.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stopper || !stdout.includes('"type":"tool.call"')) return;
          stopper = (async () => {
            // Pressed once the first characters are in the app: mid-action, whatever the machine's speed.
            const since = Date.now();
            while (!(await entryText('zenity')).length && Date.now() - since < 60_000) await sleep(50);
            atStop = await entryText('zenity');
            return w.cli(['stop', '--data-dir', w.dataDir, '--json']);
          })();
        });
      },
    });
    const r = await run;
    expect(stopper, `the run never called computer_input: ${r.stderr}`).not.toBeNull();
    const stop = await stopper!;
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout.trim())).toMatchObject({ stopped: true });

    // The run reports stopped: its finished event, its exit code and its row.
    const finished = r.events.find((e) => e.type === 'run.finished');
    expect(finished, r.stderr).toMatchObject({ status: 'aborted' });
    expect(r.code).toBe(1);
    expect(rawAll<{ status: string }>(w.dataDir, 'SELECT status FROM runs').map((x) => x.status)).toEqual(['aborted']);
    expect(w.server.requests).toHaveLength(1); // the model was not asked again

    // The app received a strict prefix of the text, and nothing after the stop.
    const got = await entryText('zenity');
    expect(atStop.length).toBeGreaterThan(0);
    expect(got.length).toBeGreaterThanOrEqual(atStop.length);
    expect(got.length).toBeLessThan(text.length);
    expect(text.startsWith(got)).toBe(true);
    await sleep(400);
    expect(await entryText('zenity')).toBe(got);
  } finally {
    zenity.proc.kill('SIGTERM');
  }
}, 240_000);
