/**
 * The computer-use test world, started by the tests themselves: a private Xvfb display, a private D-Bus session bus,
 * openbox, the AT-SPI bus launcher, and real GTK apps from Debian (zenity, gtk3-widget-factory) on them. Everything
 * is ended by its process id. `worldMissing()` says in one line what this machine lacks.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { AtspiClient } from '../../src/main/services/computer/atspi';

const TOOLS = ['Xvfb', 'openbox', 'dbus-daemon', 'zenity', 'xprop', 'xwininfo', 'xdotool'];
const LAUNCHER = '/usr/libexec/at-spi-bus-launcher';

export function worldMissing(): string | null {
  if (process.platform !== 'linux') return `computer-use tests need Linux with X11 (this is ${process.platform})`;
  for (const t of TOOLS) if (spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0) return `${t} is not installed (scripts/provision-debian.sh installs it)`;
  if (!existsSync(LAUNCHER)) return `${LAUNCHER} is missing (install at-spi2-core)`;
  return null;
}

export interface App {
  proc: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
}

export interface World {
  display: string;
  env: NodeJS.ProcessEnv;
  spawnApp(cmd: string, args: string[]): App;
  /** Waits until an app of this AT-SPI name is in the tree with a window. */
  waitForApp(name: string, timeoutMs?: number): Promise<void>;
  /** Waits until the app's tree holds an element of this role and name (a dialog's button, not only its window). */
  waitForElement(app: string, role: string, name: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function freeDisplay(): number {
  for (let n = 140 + (process.pid % 50); n < 400; n++) if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  throw new Error('no free X display number');
}

export async function startWorld(): Promise<World> {
  const procs: ChildProcess[] = [];
  const n = freeDisplay();
  const display = `:${n}`;
  // The X server outlives this file's tests until the process is gone: nut-js's X connection (libX11) would end the
  // process on an I/O error if the server went away under it. A watchdog shell ends it once this process has exited
  // (however it exits), and is unref'd so it never keeps this process alive.
  const watchdog = spawn(
    'sh',
    ['-c', `Xvfb ${display} -screen 0 1280x800x24 -nolisten tcp -noreset & x=$!; trap 'kill $x 2>/dev/null' EXIT; while kill -0 ${process.pid} 2>/dev/null && kill -0 $x 2>/dev/null; do sleep 1; done`],
    { stdio: 'ignore', detached: true },
  );
  watchdog.unref();
  for (let i = 0; i < 100 && !existsSync(`/tmp/.X11-unix/X${n}`); i++) await sleep(50);
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  procs.push(bus);
  const address = await new Promise<string>((resolve, reject) => {
    let buf = '';
    bus.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.split('\n')[0]!.trim());
    });
    bus.on('exit', () => reject(new Error('dbus-daemon exited')));
  });
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: address, XDG_SESSION_TYPE: 'x11' };
  delete env.NO_AT_BRIDGE;
  delete env.WAYLAND_DISPLAY;
  procs.push(spawn('openbox', [], { env, stdio: 'ignore' }));
  procs.push(spawn(LAUNCHER, ['--launch-immediately'], { env, stdio: 'ignore' }));
  // Ready when the accessibility bus answers and the window manager set its EWMH properties.
  for (let i = 0; ; i++) {
    try {
      const c = await AtspiClient.connect(address);
      c.close();
      if (spawnSync('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env }).stdout.toString().includes('window id')) break;
    } catch {
      // not yet
    }
    if (i > 100) throw new Error('the AT-SPI bus or openbox did not come up');
    await sleep(100);
  }
  const apps: ChildProcess[] = [];
  return {
    display,
    env,
    spawnApp(cmd, args) {
      const proc = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
      apps.push(proc);
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
      return { proc, stdout: () => out, exited };
    },
    async waitForApp(name, timeoutMs = 15_000) {
      const c = await AtspiClient.connect(address);
      try {
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
          for (const h of await c.applications()) {
            if ((await c.name(h).catch(() => '')) === name && (await c.children(h).catch(() => [])).length) {
              // and its window is managed
              const list = spawnSync('xprop', ['-root', '_NET_CLIENT_LIST'], { env }).stdout.toString();
              if (list.includes('0x')) return;
            }
          }
          await sleep(100);
        }
        throw new Error(`${name} did not appear in the accessibility tree`);
      } finally {
        c.close();
      }
    },
    async waitForElement(app, role, name, timeoutMs = 15_000) {
      const c = await AtspiClient.connect(address);
      const holds = async (h: Awaited<ReturnType<AtspiClient['applications']>>[number], depth: number): Promise<boolean> => {
        const node = await c.node(h).catch(() => null);
        if (!node) return false;
        if (node.role === role && node.name === name) return true;
        if (depth >= 12) return false;
        for (const kid of node.children) if (await holds(kid, depth + 1)) return true;
        return false;
      };
      try {
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
          for (const h of await c.applications()) {
            if ((await c.name(h).catch(() => '')) === app && (await holds(h, 0))) return;
          }
          await sleep(100);
        }
        throw new Error(`${app} has no ${role} "${name}" in its accessibility tree`);
      } finally {
        c.close();
      }
    },
    async close() {
      for (const p of [...apps, ...procs.reverse()]) if (p.exitCode === null && p.pid) p.kill('SIGTERM');
      await sleep(100);
      // Nothing of the world keeps this process alive now (the X server ends with it, through its watchdog).
      for (const p of [...apps, ...procs]) p.unref();
      bus.stdout?.destroy();
    },
  };
}
