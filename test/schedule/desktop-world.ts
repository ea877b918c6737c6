/**
 * The desktop the scheduling tests need, started by the tests themselves: atd (the real OS scheduler; started only
 * when it is not running, and ended only if started here), a private D-Bus session bus (no service activation, so
 * nothing else is spawned on it), Xvfb when there is no DISPLAY, and dunst as the notification server on that bus.
 * atd is left running once started (other test files may be using it). `notifications()` reads what dunst showed: `dunstctl close-all` moves shown notifications into its history, and
 * `dunstctl history` returns them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/tool-context';

export interface Shown {
  summary: string;
  body: string;
  appname: string;
  category: string;
}

export interface DesktopWorld {
  env: { DBUS_SESSION_BUS_ADDRESS: string; DISPLAY: string };
  notifications(): Shown[];
  /** How many notifications dunst shows now. */
  displayed(): number;
  /** Clicks the newest notification shown (`dunstctl action 0`: its default action, Deskhand's "open"). */
  click(): void;
  /**
   * Presses a notification's button: `dunstctl context` opens dunst's context menu, whose menu program (the `dmenu`
   * setting, a script here) picks the first line naming `label`. Returns the menu lines dunst offered.
   */
  press(label: string): Promise<string[]>;
  atJobs(): string[];
  /** Ends the session bus and dunst and starts both again at the same address (a bus that went away and came back). */
  restartBus(): Promise<void>;
  stop(): Promise<void>;
}

function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  return new Promise((done, fail) => {
    const tick = () => {
      if (cond()) return done();
      if (Date.now() - start > ms) return fail(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

const running = (name: string) => {
  try {
    return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).trim().length > 0;
  } catch {
    return false;
  }
};

export async function startDesktopWorld(display = ':73'): Promise<DesktopWorld> {
  const started: ChildProcess[] = [];
  const dir = tempDir('deskhand-sched-world-');
  if (!running('atd')) {
    // A system daemon: left running for the other test files that may use it at the same time (scripts/test.sh
    // starts it first and ends it).
    const atd = spawn('/usr/sbin/atd', ['-f'], { stdio: 'ignore', detached: true });
    atd.unref();
    await waitFor(() => running('atd'), 'atd');
  }
  let DISPLAY = process.env.DISPLAY ?? '';
  if (!DISPLAY) {
    DISPLAY = display;
    const n = display.slice(1);
    if (!existsSync(`/tmp/.X11-unix/X${n}`)) {
      const x = spawn('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp', '-noreset'], { stdio: 'ignore' });
      started.push(x);
      await waitFor(() => existsSync(`/tmp/.X11-unix/X${n}`), 'Xvfb');
    }
  }
  // dunst's context menu runs its `dmenu` program with one line per action on stdin and invokes the line it prints.
  const choice = join(dir, 'menu-choice');
  const offered = join(dir, 'menu-offered');
  const menu = join(dir, 'menu.sh');
  // The whole menu is read first, written to a file of its own and renamed into place, then the choice picked: with
  // `tee offered | grep -m1` the test could read the file before tee had written every line (or tee died of SIGPIPE
  // once grep had its line), and saw a button missing.
  writeFileSync(
    menu,
    `#!/bin/sh\nlines=$(cat)\nprintf '%s\\n' "$lines" > ${JSON.stringify(`${offered}.part`)} && mv ${JSON.stringify(`${offered}.part`)} ${JSON.stringify(offered)}\nprintf '%s\\n' "$lines" | grep -F -m1 -- "$(cat ${JSON.stringify(choice)})"\n`,
    { mode: 0o755 },
  );
  const dunstConfig = join(dir, 'dunstrc');
  writeFileSync(dunstConfig, `[global]\n    dmenu = ${menu}\n`);
  const config = join(dir, 'bus.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${dir}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
  );
  let address = '';
  let bus: ChildProcess;
  let dunst: ChildProcess;
  const startBus = async () => {
    let printed = '';
    bus = spawn('dbus-daemon', ['--config-file', config, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(bus);
    bus.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
    await waitFor(() => printed.includes('\n'), 'the D-Bus session bus');
    // Without the server's guid: a bus started again at the same path is the same address.
    address = printed.trim().replace(/,guid=[0-9a-f]+$/, '');
  };
  await startBus();
  const env = { DBUS_SESSION_BUS_ADDRESS: address, DISPLAY };
  const dunstEnv = { ...process.env, ...env };
  const ctl = (...args: string[]) => execFileSync('dunstctl', args, { env: dunstEnv, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] });
  const startDunst = async () => {
    dunst = spawn('dunst', ['-config', dunstConfig], { env: dunstEnv, stdio: ['ignore', 'ignore', openSync(join(dir, 'dunst.log'), 'a')] });
    dunst.on('exit', (code, sig) => appendFileSync(join(dir, 'dunst.log'), `dunst exited: ${code} ${sig}\n`));
    started.push(dunst);
    await waitFor(() => {
      try {
        ctl('count');
        return true;
      } catch {
        return false;
      }
    }, 'dunst on the bus');
  };
  await startDunst();
  const ended = (p: ChildProcess) => new Promise<void>((done) => (p.exitCode !== null || p.signalCode !== null ? done() : p.once('exit', () => done())));
  const shown: Shown[] = [];
  return {
    env,
    notifications() {
      ctl('close-all');
      const history = JSON.parse(ctl('history')) as { data: Record<string, { data: unknown }>[][] };
      const all = (history.data[0] ?? []).map((n) => ({
        summary: String(n.summary?.data ?? ''),
        body: String(n.body?.data ?? ''),
        appname: String(n.appname?.data ?? ''),
        category: String(n.category?.data ?? ''),
      }));
      shown.splice(0, shown.length, ...all);
      return shown;
    },
    displayed() {
      return Number(ctl('count', 'displayed').trim());
    },
    click() {
      ctl('action', '0');
    },
    async press(label: string) {
      rmSync(offered, { force: true });
      writeFileSync(choice, label);
      ctl('context');
      await waitFor(() => existsSync(offered), 'the context menu');
      return readFileSync(offered, 'utf8').split('\n').filter(Boolean);
    },
    async restartBus() {
      for (const p of [dunst, bus]) {
        p.kill('SIGTERM');
        await ended(p);
      }
      rmSync(join(dir, 'bus'), { force: true });
      await startBus();
      if (address !== env.DBUS_SESSION_BUS_ADDRESS) throw new Error(`the bus came back at another address (${address})`);
      await startDunst();
    },
    atJobs() {
      return execFileSync('atq', [], { encoding: 'utf8' }).split('\n').filter(Boolean);
    },
    async stop() {
      for (const p of started.reverse()) {
        if (p.exitCode === null) p.kill('SIGTERM');
      }
    },
  };
}
