/**
 * fire_to_notification_ms (issue 30): a due reminder fired the way its OS job fires it — the exact command, arguments
 * and environment `atd` would run (`fireCommand`, os-schedulers.ts) — from spawning that process to its
 * org.freedesktop.Notifications.Notify call arriving on the session bus. The bus is a private one with dunst, a real
 * notification daemon, on it; `dbus-monitor --profile` stamps each Notify as it passes (the monitor's wall clock,
 * compared with the wall clock at spawn). Side by side, paired and alternating in the same rounds: `node -e 0` (process
 * start alone) and the fire process's whole life (spawn to exit: what it holds the machine for).
 * Needs `npm run build` (out/main/cli.cjs, which bin/deskhand.js runs), dunst and dbus-monitor.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Store } from '../src/main/services/store/store';
import { hostFireCommand, hostSchedules } from '../src/main/host/assembly/schedule-wiring';
import { startDesktopWorld } from '../test/schedule/desktop-world';
import { tempDir } from '../test/support/tool-context';
import { figure, paired, ratio, type BenchResult } from './lib';

const ROUNDS = 20;
const WARMUP = 2;
const wall = () => performance.timeOrigin + performance.now();

export default async function fireNotificationBench(): Promise<BenchResult> {
  if (!existsSync(resolve(import.meta.dirname, '../out/main/cli.cjs'))) throw new Error('Run `npm run build` first (out/main/cli.cjs is missing).');
  for (const tool of ['dunst', 'dbus-monitor']) execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  const world = await startDesktopWorld();
  // Every Notify on the bus, stamped by the monitor as it sees it (`mc <epoch seconds.micro> … Notify`).
  const notifies: number[] = [];
  const monitor = spawn('dbus-monitor', ['--address', world.env.DBUS_SESSION_BUS_ADDRESS, '--profile', "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"], { stdio: ['ignore', 'pipe', 'ignore'] });
  let buf = '';
  monitor.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) {
      const f = l.split('\t');
      if (f[0] === 'mc' && f.at(-1) === 'Notify') notifies.push(Number(f[1]) * 1000);
    }
  });
  const dataDir = tempDir('deskhand-bench-notify-');
  const store = new Store(dataDir);
  const schedules = hostSchedules(store, dataDir, { os: false });
  // The job's environment as the OS scheduler would give it: the carried variables of a desktop session, this bus.
  // The process's life to its exit, without the wait for the person's Snooze or Dismiss (DESKHAND_NOTIFY_WAIT_S).
  const jobEnv: NodeJS.ProcessEnv = { ...process.env, ...world.env, DESKHAND_NOTIFY_WAIT_S: '0' };
  delete jobEnv.DESKHAND_HOME;
  let mark = 0;
  const fire = async (): Promise<{ notified: number; exited: number }> => {
    const { row } = await schedules.addReminder({ text: `MARK-${++mark} stretch`, when: '1h', conversationId: null });
    schedules.rows.update(row.id, { next_at: Date.now() });
    const cmd = hostFireCommand(row.id, dataDir, jobEnv);
    const seen = notifies.length;
    const t0 = wall();
    const child = spawn(cmd.file, cmd.args, { env: cmd.env, stdio: 'ignore' });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const exited = wall() - t0;
    // The monitor may print the call a moment after the process is gone.
    for (let i = 0; i < 100 && notifies.length === seen; i++) await new Promise((r) => setTimeout(r, 20));
    if (code !== 0 || notifies.length === seen) throw new Error(`deskhand fire exited ${code} ${notifies.length === seen ? 'without a Notify on the bus' : ''}`);
    return { notified: notifies[seen]! - t0, exited };
  };
  const node = () =>
    new Promise<void>((done, fail) => {
      const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
      child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`node -e 0 exited ${code}`))));
    });
  const toNotify: number[] = [];
  const lifetime: number[] = [];
  try {
    const rounds = await paired(
      ROUNDS,
      WARMUP,
      async () => {
        const r = await fire();
        toNotify.push(r.notified);
        lifetime.push(r.exited);
      },
      node,
    );
    // The warm-up fires are the ones before the paired rounds (none in --smoke, where paired() skips the warm-up).
    const skip = toNotify.length - rounds.b.length;
    const n = toNotify.slice(skip);
    return {
      fire_to_notification_ms: figure(n, { unit: 'ms', baseline: 'node_e0_fire_rounds_ms (same rounds)', target: '≤ 800' }),
      fire_to_notification_vs_node_x: ratio(n, rounds.b, { baseline: 'node -e 0, paired per round' }),
      fire_process_lifetime_ms: figure(lifetime.slice(skip), { unit: 'ms', baseline: 'spawn to exit of the same fires' }),
      node_e0_fire_rounds_ms: figure(rounds.b, { unit: 'ms' }),
    };
  } finally {
    monitor.kill('SIGTERM');
    store.close();
    await world.stop();
  }
}
