/**
 * What the process table says about a process: its start time (so a recycled pid is never mistaken for ours), its
 * group, and whether it carries a Deskhand tag in its environment (so descendants that left the group with `setsid`
 * can still be found). Linux reads /proc; macOS asks `ps`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { runHostProgramSync } from './launcher';

/** A process named by pid and start time: the pair stays unique across pid reuse (and, with the boot id, reboots). */
export interface ProcIdentity {
  pid: number;
  start: string;
}

/** The environment variable every command and its descendants carry, naming the task that started them. */
export const TAG_ENV = 'DESKHAND_TASK_TAG';

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  startTicks: string;
}

let bootIdCache: string | undefined;
function bootId(): string {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().slice(0, 8);
    } catch {
      bootIdCache = 'boot';
    }
  }
  return bootIdCache;
}

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp session … starttime is field 22; comm may hold spaces and ')', so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), state: fields[0] ?? '?', startTicks: fields[19] ?? '' };
  } catch {
    return null;
  }
}

const isDead = (state: string): boolean => state === 'Z' || state === 'X';

/** The start time of a live process, or null when it is gone (zombies count as gone). */
export function processStartTime(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (process.platform === 'linux') {
    const stat = readStat(pid);
    return stat && !isDead(stat.state) ? `${bootId()}:${stat.startTicks}` : null;
  }
  const r = runHostProgramSync({ program: 'ps', args: ['-o', 'stat=,lstart=', '-p', String(pid)], timeoutMs: 10_000 });
  const out = r.status === 0 ? r.stdout.trim() : '';
  if (!out || out.startsWith('Z')) return null;
  return out.replace(/^\S+\s+/, '');
}

let self: ProcIdentity | undefined;
export function selfIdentity(): ProcIdentity {
  if (!self || self.pid !== process.pid) self = { pid: process.pid, start: processStartTime(process.pid) ?? `pid:${process.pid}` };
  return self;
}

/** True when `pid` is still the very process that had `start` (not a later process that got the same pid). */
export function isSameProcess(pid: number | null | undefined, start: string | null | undefined): boolean {
  if (!pid || !start) return false;
  return processStartTime(pid) === start;
}

/**
 * Is the process that owns a run (runs.owner_pid + owner_start) still running? By pid and start time, so a later
 * process that got the same pid is not taken for the owner. Rows written before start times were recorded have
 * none: for those only the pid can be checked.
 */
export function runOwnerAlive(run: { owner_pid: number | null; owner_start?: string | null }): boolean {
  if (!run.owner_pid) return false;
  if (run.owner_start) return isSameProcess(run.owner_pid, run.owner_start);
  return processStartTime(run.owner_pid) !== null;
}

/** Every live process (Linux), or null where /proc cannot be read. */
function liveProcesses(): ProcStat[] | null {
  if (process.platform !== 'linux') return null;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const out: ProcStat[] = [];
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readStat(Number(entry));
    if (stat && !isDead(stat.state)) out.push(stat);
  }
  return out;
}

/** Live (non-zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const all = liveProcesses();
  if (all) return all.filter((p) => p.pgid === pgid).map((p) => p.pid);
  const r = runHostProgramSync({ program: 'ps', args: ['-A', '-o', 'pid=,pgid=,stat='], timeoutMs: 10_000 });
  if (r.status !== 0) return [];
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === pgid && !(f[2] ?? '').startsWith('Z'))
    .map((f) => Number(f[0]));
}

export function processGroupAlive(pgid: number): boolean {
  if (process.platform === 'linux') return groupMembers(pgid).length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Live processes whose environment carries `TAG_ENV=tag`: a command's descendants, including those that called
 * `setsid` or double-forked to leave its process group. Best effort: a process that clears its environment, or one
 * of another user we may not read, is not found (the OS sandbox's pid namespace covers those). Linux only.
 */
export function taggedProcesses(tag: string): number[] {
  const all = liveProcesses();
  if (!all) return [];
  const needle = Buffer.from(`${TAG_ENV}=${tag}\0`);
  const found: number[] = [];
  for (const p of all) {
    if (p.pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${p.pid}/environ`);
      if (env.indexOf(needle) === 0 || env.indexOf(Buffer.concat([Buffer.from([0]), needle])) >= 0) found.push(p.pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/**
 * After a command's shell exited: is anything it started still running? One pass over the process table: members
 * of its group, and processes carrying its tag among those started since the command (their environments are the
 * only ones read, so this stays cheap on a busy machine). `since` is the command's start time (processStartTime).
 */
export function anyLeftover(pgid: number, tag: string, since: string | null, startedAtMs?: number): boolean {
  if (process.platform === 'linux' && startedAtMs !== undefined && Date.now() - startedAtMs < QUICK_LEFTOVER_WINDOW_MS) {
    const quick = quickLeftover(pgid, tag);
    if (quick !== null) return quick;
  }
  const all = liveProcesses();
  if (!all) return processGroupAlive(pgid);
  const sinceTicks = since ? Number(since.split(':')[1] ?? 0) : 0;
  const needle = Buffer.from(`${TAG_ENV}=${tag}\0`);
  for (const p of all) {
    if (p.pid === process.pid) continue;
    if (p.pgid === pgid) return true;
    if (Number(p.startTicks) < sinceTicks) continue;
    try {
      const env = readFileSync(`/proc/${p.pid}/environ`);
      if (env.indexOf(needle) === 0 || env.indexOf(Buffer.concat([Buffer.from([0]), needle])) >= 0) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

/**
 * Within this long after a command started, the pids allocated since then cannot have wrapped around pid_max (that
 * takes tens of thousands of forks), so the processes it may have started are exactly the pids above its own up to the
 * namespace's last pid.
 */
const QUICK_LEFTOVER_WINDOW_MS = 1_000;
/** Up to this many pids allocated since the command, each is probed by number; past it /proc is listed once. */
const QUICK_PROBE_PIDS = 2_048;

/**
 * anyLeftover for a command that ran briefly (the common case: most commands end in milliseconds), without reading
 * the stat of every process on the machine: the group is probed with signal 0, and only processes whose pid was
 * allocated after the command's (between its pid and /proc/sys/kernel/ns_last_pid) are read. Null when it cannot
 * tell (a group member exists, pids wrapped, /proc unreadable): the caller then does the full pass.
 */
function quickLeftover(pgid: number, tag: string): boolean | null {
  try {
    process.kill(-pgid, 0);
    // Something of the group is there (possibly a zombie, which the full pass tells apart).
    return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') return null;
  }
  let last: number;
  try {
    last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  } catch {
    return null;
  }
  if (!Number.isInteger(last) || last < pgid) return null;
  // Few pids allocated since (the usual case): probe each one, without listing every process of the machine.
  let candidates: Iterable<number>;
  if (last - pgid <= QUICK_PROBE_PIDS) {
    const range: number[] = [];
    for (let pid = pgid + 1; pid <= last; pid++) if (statSync(`/proc/${pid}`, { throwIfNoEntry: false })) range.push(pid);
    candidates = range;
  } else {
    try {
      candidates = readdirSync('/proc').map(Number);
    } catch {
      return null;
    }
  }
  const needle = Buffer.from(`${TAG_ENV}=${tag}\0`);
  for (const pid of candidates) {
    if (!(pid > pgid && pid <= last) || pid === process.pid) continue;
    const stat = readStat(pid);
    if (!stat || isDead(stat.state)) continue;
    if (stat.pgid === pgid) return true;
    try {
      const env = readFileSync(`/proc/${pid}/environ`);
      if (env.indexOf(needle) === 0 || env.indexOf(Buffer.concat([Buffer.from([0]), needle])) >= 0) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}
