/**
 * The OS job definitions: the `at` job script (run by the real atd in os-fire.test.ts), and the launchd plist and
 * Task Scheduler XML, tested on their generated text — launchd and schtasks cannot run on this Linux machine.
 * Also the OS notification commands (notify-send, osascript, PowerShell) and the D-Bus notifier against dunst.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AtScheduler,
  execCommand,
  LaunchdScheduler,
  SchtasksScheduler,
  fireCommand,
  launchdLabel,
  launchdPlist,
  parseSchtasksCsv,
  schtasksName,
  schtasksXml,
  shellJob,
  type Exec,
} from '../../src/main/services/scheduler/os-schedulers';
import { notifyCommand } from '../../src/main/services/notify/command-notifier';
import { DbusNotifier } from '../../src/main/services/notify/dbus-notifier';
import { tempDir } from '../support/tool-context';
import { startDesktopWorld, type DesktopWorld } from './desktop-world';

const cmd = { file: '/usr/bin/node', args: ['/opt/deskhand/out/main/cli.js', 'fire', 'trg_12345678', '--data-dir', "/home/a b/it's"], env: { DISPLAY: ':0', DESKHAND_HOME: "/home/a b/it's" } };
const at = Date.UTC(2026, 7, 25, 18, 30);

describe('job definitions', () => {
  it('fireCommand carries the display and bus but never a credential', () => {
    const c = fireCommand('rem_1', '/data', { file: '/usr/bin/node', args: ['/opt/deskhand/cli.js'] }, { PATH: '/usr/bin:.:rel', DISPLAY: ':5', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x', OPENAI_API_KEY: 'sk-secret', GITHUB_TOKEN: 't', HOME: '/root' });
    expect(c.env).toMatchObject({ DISPLAY: ':5', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x', PATH: '/usr/bin', HOME: '/root' });
    expect(JSON.stringify(c)).not.toMatch(/sk-secret|GITHUB_TOKEN/);
    // The entry is the host's (host/assembly/schedule-wiring.ts); the service only appends the fire's words.
    expect([c.file, ...c.args]).toEqual(['/usr/bin/node', '/opt/deskhand/cli.js', 'fire', 'rem_1', '--data-dir', '/data']);
  });

  it('the at job script quotes every word and runs with a clean environment', () => {
    const script = shellJob('trg_12345678', "/home/a b/it's", cmd);
    expect(script).toContain(`# deskhand-fire trg_12345678 ${Buffer.from("/home/a b/it's").toString('hex')}`);
    // /bin/sh reads it back to exactly these words.
    const words = execFileSync('sh', ['-c', `set -- ${script.split('\n')[2]!.replace(/^exec env -i /, '').replace(/ >>.*$/, '')}; for w; do printf '%s\\n' "$w"; done`], { encoding: 'utf8' }).trim().split('\n');
    expect(words).toEqual(['DISPLAY=:0', "DESKHAND_HOME=/home/a b/it's", '/usr/bin/node', '/opt/deskhand/out/main/cli.js', 'fire', 'trg_12345678', '--data-dir', "/home/a b/it's"]);
  });

  it('AtScheduler passes `at -t` a UTC minute and keeps only its data dir\'s jobs', async () => {
    const calls: { file: string; args: string[]; input?: string; tz?: string }[] = [];
    const mine = Buffer.from('/d1').toString('hex');
    const exec: Exec = async (file, args, opts) => {
      calls.push({ file, args, ...(opts?.input ? { input: opts.input } : {}), ...(opts?.env?.TZ ? { tz: opts.env.TZ } : {}) });
      if (file === 'at' && args[0] === '-t') return { code: 0, stdout: '', stderr: 'warning: commands will be executed using /bin/sh\njob 42 at Tue Aug 25 18:30:00 2026\n' };
      if (file === 'atq') return { code: 0, stdout: '42\tTue Aug 25 18:30:00 2026 a root\n43\tTue Aug 25 19:00:00 2026 a root\n', stderr: '' };
      if (file === 'at' && args[0] === '-c') return { code: 0, stdout: args[1] === '42' ? `#!/bin/sh\n# deskhand-fire rem_1 ${mine}\n` : `# deskhand-fire rem_2 ${Buffer.from('/other').toString('hex')}\n`, stderr: '' };
      return { code: 0, stdout: '', stderr: '' };
    };
    const s = new AtScheduler('/d1', exec);
    expect(await s.install('rem_1', at + 45_000, cmd)).toBe('42');
    expect(calls[0]).toMatchObject({ file: 'at', args: ['-t', '202608251830'], tz: 'UTC' });
    expect(calls[0]!.input).toContain('deskhand-fire rem_1');
    expect(await s.list()).toEqual([{ ref: '42', scheduleId: 'rem_1', at }]);
  });

  describe('AtScheduler checks that atd will run jobs (issue 34 item 9)', () => {
    const now = Date.parse('2026-08-25T18:40:00Z');
    const pidFile = (content: string | null) => {
      const dir = tempDir('deskhand-atd-');
      const f = join(dir, 'atd.pid');
      if (content !== null) writeFileSync(f, content);
      return f;
    };
    // atq prints `q`; `at now` queues the canary and, as a working atd would, runs it (its file appears) unless `runs` is false.
    const queue =
      (q: string, runs = true, calls: string[][] = []): Exec =>
      async (file, args, opts) => {
        calls.push([file, ...args]);
        if (file === 'atq') return { code: 0, stdout: q, stderr: '' };
        if (file === 'at' && args[0] === 'now') {
          const target = /^: > '(.+)'\n$/.exec(opts?.input ?? '')?.[1];
          if (runs && target) writeFileSync(target, '');
          return { code: 0, stdout: '', stderr: 'warning: commands will be executed using /bin/sh\njob 77 at Tue Aug 25 18:40:00 2026\n' };
        }
        return { code: 0, stdout: '', stderr: '' };
      };
    const atdName = () => 'atd';
    it.each([
      ['no pid file', null, '', /^atd is not running \(no pid file at .*atd\.pid\): start it/],
      ['an empty pid file', '', '', /^atd is not running \(no pid file/],
      ['a pid file whose process is gone', '999999\n', '', /^atd is not running \(pid 999999 from its pid file is gone\)/],
      ['a pid file with garbage', 'atd\n', '', /^atd is not running/],
      ['a live atd with a job 5 minutes overdue', 'LIVE', '7\tTue Aug 25 18:35:00 2026 a root\n', /^atd is not running its queue: job 7 was due 300 s ago and has not run/],
      ['a live atd running a job right now (queue =)', 'LIVE', '7\tTue Aug 25 18:35:00 2026 = root\n', null],
      ['a live atd with a job due a minute ago (at is minute-grained)', 'LIVE', '8\tTue Aug 25 18:39:00 2026 a root\n', null],
      ['a live atd with future jobs', 'LIVE', '9\tTue Aug 25 19:00:00 2026 a root\n', null],
      ['a live atd with an empty queue', 'LIVE', '', null],
    ] as const)('%s', async (_name, pid, q, expected) => {
      const file = pidFile(pid === 'LIVE' ? `${process.pid}\n` : pid);
      const s = new AtScheduler(tempDir('deskhand-atd-data-'), queue(q), { pidFiles: [file], now: () => now, processName: atdName });
      const note = await s.unavailable();
      if (expected === null) expect(note).toBeNull();
      else expect(note).toMatch(expected);
      if (note) expect(note).toMatch(/the in-app ticker fires schedules while Deskhand runs, and nothing rings with Deskhand closed/);
    });

    it('a pid file naming another program (its pid was reused) is not a running atd', async () => {
      const s = new AtScheduler(tempDir('deskhand-atd-data-'), queue(''), { pidFiles: [pidFile(`${process.pid}\n`)], now: () => now });
      expect(await s.unavailable()).toMatch(new RegExp(`^atd is not running \\(pid ${process.pid} from its pid file is node, not atd: a stale pid file\\)`));
    });

    it('a live atd that does not run its queue: the canary job does not run, is removed, and says so', async () => {
      const calls: string[][] = [];
      const s = new AtScheduler(tempDir('deskhand-atd-data-'), queue('', false, calls), { pidFiles: [pidFile(`${process.pid}\n`)], now: () => now, processName: atdName, canaryMs: 1000 });
      expect(await s.unavailable()).toMatch(/^atd is not running its queue: a test job \(77\) queued for now did not run within 1 s\. Check atd/);
      expect(calls).toContainEqual(['atrm', '77']);
    });
  });

  describe('the canary against the real atd of the test world (issue 34 item 9)', () => {
    it('runs a job for now and sees its file, once per process', async () => {
      const calls: string[][] = [];
      const exec: Exec = (file, args, opts) => (calls.push([file, ...args]), execCommand(file, args, opts));
      const dataDir = tempDir('deskhand-atd-real-');
      expect(await new AtScheduler(dataDir, exec).unavailable()).toBeNull();
      // Checked once: a second scheduler on the same programs queues no second canary.
      expect(await new AtScheduler(dataDir, exec).unavailable()).toBeNull();
      expect(calls.filter((c) => c[0] === 'at' && c[1] === 'now')).toHaveLength(1);
      expect(readdirSync(join(dataDir, 'schedule')).filter((f) => f.startsWith('atd-canary-'))).toEqual([]);
    }, 60_000);

    it('judges by the job\'s effect: a job the real atd runs that does not make the canary file fails the check', async () => {
      const elsewhere = join(tempDir('deskhand-atd-real-'), 'ran-here');
      // The job reaches the real atd, which runs it, but it writes somewhere else than the check looks.
      const exec: Exec = (file, args, opts) => execCommand(file, args, file === 'at' && args[0] === 'now' ? { ...opts, input: `: > '${elsewhere}'\n` } : opts);
      const note = await new AtScheduler(tempDir('deskhand-atd-real-'), exec, { canaryMs: 5000 }).unavailable();
      expect(note).toMatch(/^atd is not running its queue: a test job \(\d+\) queued for now did not run within 5 s/);
      expect(existsSync(elsewhere)).toBe(true);
    }, 60_000);
  });

  it('launchd: a LaunchAgent plist with the program, environment and the local calendar minute', async () => {
    const plist = launchdPlist('trg_12345678', '/Users/a/Deskhand', at, cmd);
    const d = new Date(at);
    expect(plist).toContain(`<string>${launchdLabel('trg_12345678', '/Users/a/Deskhand')}</string>`);
    expect(plist).toMatch(/<key>ProgramArguments<\/key>\s*<array>\s*<string>\/usr\/bin\/node<\/string>\s*<string>\/opt\/deskhand\/out\/main\/cli.js<\/string>\s*<string>fire<\/string>/);
    expect(plist).toContain("<string>/home/a b/it's</string>");
    expect(plist).toMatch(new RegExp(`<key>Hour</key>\\s*<integer>${d.getHours()}</integer>\\s*<key>Minute</key>\\s*<integer>${d.getMinutes()}</integer>`));
    expect(plist).toContain('deskhand-fire trg_12345678');
    // install/remove talk to launchctl: bootstrap gui/UID, bootout gui/UID/LABEL.
    const calls: string[][] = [];
    const exec: Exec = async (file, args) => (calls.push([file, ...args]), { code: 0, stdout: '', stderr: '' });
    const agents = tempDir('deskhand-launchagents-');
    const s = new LaunchdScheduler('/Users/a/Deskhand', exec, agents, 501);
    const label = await s.install('trg_12345678', at, cmd).catch((e: unknown) => String(e));
    expect(label).toBe(launchdLabel('trg_12345678', '/Users/a/Deskhand'));
    expect(await s.list()).toEqual([{ ref: label, scheduleId: 'trg_12345678', at: null }]);
    await s.remove(label);
    expect(calls).toEqual([
      ['launchctl', 'bootstrap', 'gui/501', `${agents}/${label}.plist`],
      ['launchctl', 'bootout', `gui/501/${label}`],
    ]);
    expect(await s.list()).toEqual([]);
    expect(await new LaunchdScheduler('/x').unavailable()).toMatch(/only on macOS/); // this machine is Linux
  });

  it('Task Scheduler: a one-shot TimeTrigger task that starts when available', async () => {
    const xml = schtasksXml('trg_12345678', 'C:\\Users\\a\\Deskhand', at, cmd);
    expect(xml).toMatch(/<StartBoundary>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00<\/StartBoundary>/);
    expect(xml).toContain('<StartWhenAvailable>true</StartWhenAvailable>');
    expect(xml).toContain('<Command>/usr/bin/node</Command>');
    expect(xml).toContain(`<Arguments>/opt/deskhand/out/main/cli.js fire trg_12345678 --data-dir &quot;/home/a b/it's&quot;</Arguments>`);
    const name = schtasksName('trg_12345678', 'C:\\D');
    expect(parseSchtasksCsv(`"${name}","8/25/2026 8:30:00 PM","Ready"\r\n"\\Other\\x","N/A","Ready"\r\n`, name.slice(0, name.lastIndexOf('\\') + 1))).toEqual([{ ref: name, scheduleId: 'trg_12345678', at: null }]);
    await expect(new SchtasksScheduler('C:\\D').unavailable()).resolves.toMatch(/only on Windows/);
  });
});

describe('notifications', () => {
  it('builds the OS commands with the text as data, never as code', () => {
    const spec = { title: 'Reminder', body: 'Call "Bob" $(rm -rf ~) it\'s 5', urgency: 'critical' as const, category: 'deskhand.reminder' };
    expect(notifyCommand(spec, 'linux')).toEqual({ file: 'notify-send', args: ['--app-name=Deskhand', '--urgency=critical', '--category=deskhand.reminder', '--', 'Reminder', 'Call "Bob" $(rm -rf ~) it\'s 5'] });
    expect(notifyCommand(spec, 'darwin').args[1]).toBe('display notification "Call \\"Bob\\" $(rm -rf ~) it\'s 5" with title "Deskhand" subtitle "Reminder"');
    expect(notifyCommand(spec, 'win32').args.at(-1)).toContain("CreateTextNode('Call \"Bob\" $(rm -rf ~) it''s 5')");
  });

  describe('over D-Bus to dunst', () => {
    let world: DesktopWorld;
    let saved: string | undefined;
    beforeAll(async () => {
      world = await startDesktopWorld();
      saved = process.env.DBUS_SESSION_BUS_ADDRESS;
      process.env.DBUS_SESSION_BUS_ADDRESS = world.env.DBUS_SESSION_BUS_ADDRESS;
    }, 60_000);
    afterAll(async () => {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      await world?.stop();
    });

    it('shows title, one-line body and category; the action key comes back when invoked', async () => {
      const n = new DbusNotifier();
      try {
        const actions: string[] = [];
        n.onAction((key, spec) => actions.push(`${key}:${spec.target?.id}`));
        const r = await n.notify({ title: 'Reminder', body: 'water\nthe plants', category: 'deskhand.reminder', actions: [{ id: 'open', label: 'Open' }, { id: 'snooze', label: 'Snooze' }], target: { kind: 'schedule', id: 'rem_1' } });
        expect(r.via).toBe('dbus');
        execFileSync('dunstctl', ['action', '0'], { env: { ...process.env, ...world.env } });
        const shown = world.notifications().find((s) => s.body === 'water the plants');
        expect(shown).toMatchObject({ summary: 'Reminder', appname: 'Deskhand', category: 'deskhand.reminder' });
        await new Promise((res) => setTimeout(res, 300));
        expect(actions).toEqual(['open:rem_1']);
      } finally {
        await n.close();
      }
      expect(await DbusNotifier.available()).toBe(true);
    });

    it('a session bus that went away and came back is connected to again: the next notification shows at once, its action comes back', async () => {
      const n = new DbusNotifier();
      try {
        const actions: string[] = [];
        n.onAction((key, spec) => actions.push(`${key}:${spec.target?.id}`));
        await n.notify({ title: 'Before', body: 'the first bus' });
        await world.restartBus();
        // Before the fix this call never settled: the old connection's write went nowhere.
        const r = await n.notify({ title: 'After', body: 'the bus came back', actions: [{ id: 'open', label: 'Open' }], target: { kind: 'schedule', id: 'rem_2' } });
        expect(r.via).toBe('dbus');
        execFileSync('dunstctl', ['action', '0'], { env: { ...process.env, ...world.env } });
        expect(world.notifications().map((s) => s.body)).toContain('the bus came back');
        await vi.waitFor(() => expect(actions).toEqual(['open:rem_2']), { timeout: 5000 });
      } finally {
        await n.close();
      }
    });
  });
});
