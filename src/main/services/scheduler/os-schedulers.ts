/**
 * The OS schedulers behind `OsScheduler`: Linux `at` (atd), macOS launchd agents and Windows Task Scheduler. Each
 * installs a one-shot job that runs `deskhand fire ID --data-dir DIR` with a fixed, credential-free environment (the
 * display and D-Bus session, so the notification reaches the desktop; the API key comes from the keyring at fire
 * time). Jobs carry a marker line (`deskhand-fire ID DATA_DIR_HEX`) so `list` finds this data dir's jobs only.
 * launchd and schtasks are generated and parsed here and tested on their text; they cannot run on this Linux machine.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHostProgram } from '../processes/launcher';
import { SQLITE_BINDING_ENV, sqliteBinding } from '../store/native-binding';
import type { FireCommand, FireEntry, OsJob, OsScheduler } from './index';

export type Exec = (file: string, args: string[], opts?: { input?: string; env?: NodeJS.ProcessEnv }) => Promise<{ code: number; stdout: string; stderr: string }>;

/**
 * Runs the OS scheduler's own programs (at, atq, atrm, launchctl, schtasks) on the host through the launcher. With
 * `env`, exactly that environment (at records it into the job); otherwise Deskhand's, credential-filtered.
 */
export const execCommand: Exec = async (file, args, opts = {}) => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  const r = await runHostProgram({ program: file, args, cwd: tmpdir(), timeoutMs: 20_000, ...(opts.env ? { inherit: [], env } : {}), ...(opts.input !== undefined ? { input: opts.input } : {}) });
  const failed = r.code !== 0;
  const code = r.error ? 127 : r.code ?? 127;
  return { code, stdout: r.stdout, stderr: r.stderr || (failed && r.error ? r.error.message : failed && r.stoppedBy === 'timeout' ? `${file} did not finish within 20 s` : '') };
};

/** Variables a job carries (never a credential: keys come from the keyring when it fires). */
const CARRIED = ['HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'DESKHAND_HOME', 'DESKHAND_KEYRING_SERVICE', 'DESKHAND_MODEL_IDLE_TIMEOUT_MS', 'DESKHAND_RETRY_BASE_MS', 'DESKHAND_NOTIFY', 'DESKHAND_NOTIFY_WAIT_S', 'DESKHAND_APP_COMMAND'];

/**
 * The OS job's command: `ENTRY… fire ID --data-dir DIR` with the variables a job carries. How to start the CLI (the
 * entry) is the host's to say (host/assembly/schedule-wiring.ts `fireEntry`); this service never knows its files.
 */
export function fireCommand(scheduleId: string, dataDir: string, entry: FireEntry, env: NodeJS.ProcessEnv = process.env): FireCommand {
  const vars: Record<string, string> = {};
  for (const name of CARRIED) if (env[name]) vars[name] = env[name]!;
  vars.PATH = (env.PATH ?? '/usr/bin:/bin').split(':').filter((d) => d.startsWith('/')).join(':');
  if (process.versions.electron) vars.ELECTRON_RUN_AS_NODE = '1';
  const binding = sqliteBinding();
  if (binding) vars[SQLITE_BINDING_ENV] = binding;
  return { file: entry.file, args: [...entry.args, 'fire', scheduleId, '--data-dir', dataDir], env: vars };
}

export const hexOf = (s: string) => Buffer.from(s, 'utf8').toString('hex');
export const marker = (scheduleId: string, dataDir: string) => `deskhand-fire ${scheduleId} ${hexOf(dataDir)}`;
const MARKER = /deskhand-fire (\S+) ([0-9a-f]+)/;

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The /bin/sh job body: a marker comment, then `exec env -i VARS… ENTRY… fire ID (the host's entry)` with output to fire.log. */
export function shellJob(scheduleId: string, dataDir: string, cmd: FireCommand): string {
  const vars = Object.entries(cmd.env).map(([k, v]) => shq(`${k}=${v}`));
  const log = join(dataDir, 'schedule', 'fire.log');
  return [
    `# ${marker(scheduleId, dataDir)}`,
    `cd / || exit 1`,
    `exec env -i ${vars.join(' ')} ${[cmd.file, ...cmd.args].map(shq).join(' ')} >>${shq(log)} 2>&1`,
    '',
  ].join('\n');
}

function utcStamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}`;
}

/**
 * How AtScheduler tells that atd will run jobs: its pid file names a live process that is atd (checked in /proc), no
 * queued job is overdue, and a canary job queued for now really runs (its file appears) — once per process.
 */
export interface AtHealth {
  /** Where atd writes its pid (Debian: /run/atd.pid). */
  pidFiles?: readonly string[];
  alive?: (pid: number) => boolean;
  /** The process name of a pid (Linux: /proc/PID/comm), or null where it cannot be told. */
  processName?: (pid: number) => string | null;
  now?: () => number;
  /** How long the canary job may take to run (default 20 s: atd runs a job for now within a second, but the machine may be loaded). */
  canaryMs?: number;
}

/** A queued job this far past its time means atd is not running its queue (at is minute-grained; it runs jobs late by seconds). */
export const AT_OVERDUE_MS = 120_000;
const CANARY_MS = 20_000;
/** A failed canary is tried again after this long (atd may have been started since); a passed one holds for the process. */
const CANARY_RETRY_MS = 5 * 60_000;

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const procName = (pid: number): string | null => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
};

/** The canary's outcome per way of running at (the real programs: one entry for the process). */
const canaries = new WeakMap<Exec, { at: number; result: Promise<string | null> }>();

/** Linux `at`: `at -t` in UTC (minute resolution; a job for the current minute runs at once), `atq`, `at -c`, `atrm`. */
export class AtScheduler implements OsScheduler {
  readonly name = 'at' as const;
  constructor(
    private readonly dataDir: string,
    private readonly exec: Exec = execCommand,
    private readonly health: AtHealth = {},
  ) {}

  /**
   * Why atd would not run a job now, or null: no live atd behind the pid file (a pid reused by another program
   * counts as none), a queued job long overdue, or a canary job for now that did not run.
   */
  private async daemonProblem(queue: string): Promise<string | null> {
    const files = this.health.pidFiles ?? ['/run/atd.pid', '/var/run/atd.pid'];
    const alive = this.health.alive ?? processAlive;
    const nameOf = this.health.processName ?? procName;
    let pid: number | null = null;
    for (const f of files) {
      try {
        const n = Number(readFileSync(f, 'utf8').trim());
        if (Number.isInteger(n) && n > 0) {
          pid = n;
          break;
        }
      } catch {
        // not this one
      }
    }
    const fix = 'start it (`sudo systemctl enable --now atd`); until then the in-app ticker fires schedules while Deskhand runs, and nothing rings with Deskhand closed.';
    if (pid === null || !alive(pid)) return `atd is not running (${pid === null ? `no pid file at ${files.join(' or ')}` : `pid ${pid} from its pid file is gone`}): ${fix}`;
    const name = nameOf(pid);
    if (name !== null && name !== 'atd') return `atd is not running (pid ${pid} from its pid file is ${name}, not atd: a stale pid file): ${fix}`;
    const now = (this.health.now ?? Date.now)();
    for (const line of queue.split('\n')) {
      const m = /^(\d+)\s+(.+?)\s+(\S)\s+\S+$/.exec(line.trim());
      // Queue "=" is a job atd is running right now.
      if (!m || m[3] === '=') continue;
      const when = Date.parse(`${m[2]} UTC`);
      if (Number.isFinite(when) && now - when > AT_OVERDUE_MS) {
        return `atd is not running its queue: job ${m[1]} was due ${Math.round((now - when) / 1000)} s ago and has not run. Check atd (\`systemctl status atd\`) and ${fix.slice(0, 1).toLowerCase()}${fix.slice(1)}`;
      }
    }
    return this.canary(fix);
  }

  /** A job for now that creates a file: atd ran it when the file appears. Once per process (a failure is retried later). */
  private canary(fix: string): Promise<string | null> {
    const held = canaries.get(this.exec);
    if (held && (Date.now() - held.at < CANARY_RETRY_MS || held.result === PASSED)) return held.result;
    const result = this.runCanary(fix).then((r) => {
      if (r === null) canaries.set(this.exec, { at: Date.now(), result: PASSED });
      return r;
    });
    canaries.set(this.exec, { at: Date.now(), result });
    return result;
  }

  private async runCanary(fix: string): Promise<string | null> {
    const dir = join(this.dataDir, 'schedule');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `atd-canary-${randomBytes(6).toString('hex')}`);
    const r = await this.exec('at', ['now'], { input: `: > ${shq(file)}\n`, env: this.env() });
    const job = /job (\d+) at/.exec(r.stderr + r.stdout)?.[1];
    if (r.code !== 0 || !job) return `at refused a test job (${(r.stderr || r.stdout).trim() || `exit ${r.code}`}): ${fix}`;
    const limit = this.health.canaryMs ?? CANARY_MS;
    const until = Date.now() + limit;
    while (!existsSync(file) && Date.now() < until) await new Promise((res) => setTimeout(res, 100));
    if (existsSync(file)) {
      rmSync(file, { force: true });
      return null;
    }
    await this.exec('atrm', [job], { env: this.env() });
    return `atd is not running its queue: a test job (${job}) queued for now did not run within ${Math.round(limit / 1000)} s. Check atd (\`systemctl status atd\`) and ${fix.slice(0, 1).toLowerCase()}${fix.slice(1)}`;
  }

  private env(): NodeJS.ProcessEnv {
    // `at` records its own environment into the job: give it nothing worth recording.
    return { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', TZ: 'UTC', SHELL: '/bin/sh', HOME: process.env.HOME ?? '/' };
  }

  async unavailable(): Promise<string | null> {
    const r = await this.exec('atq', [], { env: this.env() });
    if (r.code === 127 || /ENOENT/.test(r.stderr)) return '`at` is not installed (install the `at` package); the in-app ticker fires schedules while Deskhand runs.';
    if (r.code !== 0) return `atq failed: ${r.stderr.trim() || `exit ${r.code}`}`;
    return this.daemonProblem(r.stdout);
  }

  async install(scheduleId: string, at: number, command: FireCommand): Promise<string> {
    mkdirSync(join(this.dataDir, 'schedule'), { recursive: true, mode: 0o700 });
    const r = await this.exec('at', ['-t', utcStamp(at)], { input: shellJob(scheduleId, this.dataDir, command), env: this.env() });
    const m = /job (\d+) at/.exec(r.stderr + r.stdout);
    if (r.code !== 0 || !m) throw new Error(`at refused the job: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
    return m[1]!;
  }

  async remove(ref: string): Promise<void> {
    if (!/^\d+$/.test(ref)) return;
    await this.exec('atrm', [ref], { env: this.env() });
  }

  async list(): Promise<OsJob[]> {
    const q = await this.exec('atq', [], { env: this.env() });
    if (q.code !== 0) return [];
    const jobs: OsJob[] = [];
    const mine = hexOf(this.dataDir);
    for (const line of q.stdout.split('\n')) {
      const m = /^(\d+)\s+(.+?)\s+(\S)\s+\S+$/.exec(line.trim());
      if (!m) continue;
      const body = await this.exec('at', ['-c', m[1]!], { env: this.env() });
      const mark = MARKER.exec(body.stdout);
      if (!mark || mark[2] !== mine) continue;
      const when = Date.parse(`${m[2]} UTC`);
      jobs.push({ ref: m[1]!, scheduleId: mark[1]!, at: Number.isFinite(when) ? when : null });
    }
    return jobs;
  }
}

/** The one settled promise every passed canary shares (so a pass is recognised and kept). */
const PASSED: Promise<string | null> = Promise.resolve(null);

const xmlEsc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A launchd agent's label for one schedule of one data dir. */
export function launchdLabel(scheduleId: string, dataDir: string): string {
  return `dev.deskhand.fire.${hexOf(dataDir).slice(0, 16)}.${scheduleId}`;
}

/** The plist of a launchd agent that runs the fire command at a local calendar minute (launchd has no one-shot). */
export function launchdPlist(scheduleId: string, dataDir: string, at: number, cmd: FireCommand): string {
  const d = new Date(at);
  const args = [cmd.file, ...cmd.args].map((a) => `    <string>${xmlEsc(a)}</string>`).join('\n');
  const env = Object.entries(cmd.env)
    .map(([k, v]) => `    <key>${xmlEsc(k)}</key>\n    <string>${xmlEsc(v)}</string>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- ${marker(scheduleId, dataDir)} -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${launchdLabel(scheduleId, dataDir)}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env}
  </dict>
  <key>StartCalendarInterval</key>
  <dict>
    <key>Month</key>
    <integer>${d.getMonth() + 1}</integer>
    <key>Day</key>
    <integer>${d.getDate()}</integer>
    <key>Hour</key>
    <integer>${d.getHours()}</integer>
    <key>Minute</key>
    <integer>${d.getMinutes()}</integer>
  </dict>
  <key>StandardOutPath</key>
  <string>${xmlEsc(join(dataDir, 'schedule', 'fire.log'))}</string>
  <key>StandardErrorPath</key>
  <string>${xmlEsc(join(dataDir, 'schedule', 'fire.log'))}</string>
</dict>
</plist>
`;
}

/** macOS: a LaunchAgent plist per job in ~/Library/LaunchAgents, loaded with `launchctl bootstrap gui/UID`. */
export class LaunchdScheduler implements OsScheduler {
  readonly name = 'launchd' as const;
  constructor(
    private readonly dataDir: string,
    private readonly exec: Exec = execCommand,
    private readonly agentsDir = join(homedir(), 'Library', 'LaunchAgents'),
    private readonly uid = process.getuid?.() ?? 501,
  ) {}

  async unavailable(): Promise<string | null> {
    return process.platform === 'darwin' ? null : 'launchd exists only on macOS.';
  }

  private path(label: string): string {
    return join(this.agentsDir, `${label}.plist`);
  }

  async install(scheduleId: string, at: number, command: FireCommand): Promise<string> {
    const label = launchdLabel(scheduleId, this.dataDir);
    mkdirSync(this.agentsDir, { recursive: true });
    mkdirSync(join(this.dataDir, 'schedule'), { recursive: true, mode: 0o700 });
    writeFileSync(this.path(label), launchdPlist(scheduleId, this.dataDir, at, command), { mode: 0o600 });
    const r = await this.exec('launchctl', ['bootstrap', `gui/${this.uid}`, this.path(label)]);
    if (r.code !== 0) throw new Error(`launchctl bootstrap failed: ${r.stderr.trim() || `exit ${r.code}`}`);
    return label;
  }

  async remove(ref: string): Promise<void> {
    await this.exec('launchctl', ['bootout', `gui/${this.uid}/${ref}`]);
    rmSync(this.path(ref), { force: true });
  }

  async list(): Promise<OsJob[]> {
    if (!existsSync(this.agentsDir)) return [];
    const prefix = `dev.deskhand.fire.${hexOf(this.dataDir).slice(0, 16)}.`;
    const jobs: OsJob[] = [];
    for (const f of readdirSync(this.agentsDir)) {
      if (!f.startsWith(prefix) || !f.endsWith('.plist')) continue;
      const mark = MARKER.exec(readFileSync(join(this.agentsDir, f), 'utf8'));
      if (mark && mark[2] === hexOf(this.dataDir)) jobs.push({ ref: f.slice(0, -'.plist'.length), scheduleId: mark[1]!, at: null });
    }
    return jobs;
  }
}

/** A Task Scheduler task name (one folder per data dir). */
export function schtasksName(scheduleId: string, dataDir: string): string {
  return `\\Deskhand\\${hexOf(dataDir).slice(0, 16)}\\fire-${scheduleId}`;
}

function localIso(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:00`;
}

/** The Task Scheduler XML of a one-shot task (TimeTrigger) that runs the fire command and deletes itself after. */
export function schtasksXml(scheduleId: string, dataDir: string, at: number, cmd: FireCommand): string {
  const quote = (a: string) => (/[\s"]/.test(a) ? `"${a.replace(/"/g, '\\"')}"` : a);
  return `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>${xmlEsc(marker(scheduleId, dataDir))}</Description>
  </RegistrationInfo>
  <Triggers>
    <TimeTrigger>
      <StartBoundary>${localIso(at)}</StartBoundary>
      <EndBoundary>${localIso(at + 7 * 86_400_000)}</EndBoundary>
      <Enabled>true</Enabled>
    </TimeTrigger>
  </Triggers>
  <Settings>
    <StartWhenAvailable>true</StartWhenAvailable>
    <DeleteExpiredTaskAfter>PT1H</DeleteExpiredTaskAfter>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <ExecutionTimeLimit>PT1H</ExecutionTimeLimit>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>${xmlEsc(cmd.file)}</Command>
      <Arguments>${xmlEsc(cmd.args.map(quote).join(' '))}</Arguments>
    </Exec>
  </Actions>
</Task>
`;
}

/** Windows: `schtasks /Create /XML` per job (StartWhenAvailable: a missed time fires at next logon/wake). */
export class SchtasksScheduler implements OsScheduler {
  readonly name = 'schtasks' as const;
  constructor(
    private readonly dataDir: string,
    private readonly exec: Exec = execCommand,
  ) {}

  async unavailable(): Promise<string | null> {
    return process.platform === 'win32' ? null : 'Task Scheduler exists only on Windows.';
  }

  async install(scheduleId: string, at: number, command: FireCommand): Promise<string> {
    const name = schtasksName(scheduleId, this.dataDir);
    const dir = join(this.dataDir, 'schedule');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${scheduleId}.task.xml`);
    // Task Scheduler reads the XML as UTF-16 (the encoding its header declares).
    writeFileSync(file, `\ufeff${schtasksXml(scheduleId, this.dataDir, at, command)}`, 'utf16le');
    try {
      const r = await this.exec('schtasks', ['/Create', '/TN', name, '/XML', file, '/F']);
      if (r.code !== 0) throw new Error(`schtasks /Create failed: ${r.stderr.trim() || r.stdout.trim() || `exit ${r.code}`}`);
    } finally {
      rmSync(file, { force: true });
    }
    return name;
  }

  async remove(ref: string): Promise<void> {
    await this.exec('schtasks', ['/Delete', '/TN', ref, '/F']);
  }

  async list(): Promise<OsJob[]> {
    const folder = `\\Deskhand\\${hexOf(this.dataDir).slice(0, 16)}\\`;
    const r = await this.exec('schtasks', ['/Query', '/FO', 'CSV', '/NH']);
    if (r.code !== 0) return [];
    return parseSchtasksCsv(r.stdout, folder);
  }
}

/** `schtasks /Query /FO CSV /NH` lines → this folder's fire jobs. */
export function parseSchtasksCsv(csv: string, folder: string): OsJob[] {
  const jobs: OsJob[] = [];
  for (const line of csv.split(/\r?\n/)) {
    const name = /^"([^"]+)"/.exec(line)?.[1];
    if (!name?.startsWith(folder)) continue;
    const id = /\\fire-([A-Za-z0-9_]+)$/.exec(name)?.[1];
    if (id) jobs.push({ ref: name, scheduleId: id, at: null });
  }
  return jobs;
}

/**
 * The OS scheduler of this platform (`DESKHAND_OS_SCHEDULER=none` turns it off: the in-app ticker fires alone).
 * `DESKHAND_ATD_PID_FILE` names where atd writes its pid on systems that put it elsewhere than /run/atd.pid.
 */
export function platformScheduler(dataDir: string, env: NodeJS.ProcessEnv = process.env): OsScheduler | null {
  if (env.DESKHAND_OS_SCHEDULER === 'none') return null;
  if (process.platform === 'darwin') return new LaunchdScheduler(dataDir);
  if (process.platform === 'win32') return new SchtasksScheduler(dataDir);
  return new AtScheduler(dataDir, execCommand, env.DESKHAND_ATD_PID_FILE ? { pidFiles: [env.DESKHAND_ATD_PID_FILE] } : {});
}
