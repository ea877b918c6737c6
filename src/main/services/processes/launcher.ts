/**
 * The one door for processes: every process Deskhand starts goes through this module (lint refuses
 * `child_process` and `execa` anywhere else in src/). It has two entries, so the code says which is which:
 *
 * - `launchForModel`: a program started for the model's sake (a shell command, a custom tool, an MCP stdio server).
 *   It runs under the sandbox plan it is given (the same plan the shell tool uses; a plan that runs without the
 *   sandbox says why), leads its own process group, carries a tag its descendants inherit, and is stopped as a tree
 *   (group and tagged descendants) on abort, on timeout and by `stop()`.
 * - `launchHostProgram` / `runHostProgram` / `runHostProgramSync`: a fixed program Deskhand chose itself (ps,
 *   notify-send, at, xprop, ripgrep with the flags Deskhand builds, its own job worker), run on the host.
 *
 * Both start from Deskhand's environment with every credential-named, provider and shell-hijacking variable removed
 * and PATH made absolute (child-env.ts holds the rules; this is the only place that applies them). Variables a caller
 * passes in `env` are set on purpose (a value the person configured for an MCP server, PAGER=cat) and are kept as given.
 */
import { spawn, spawnSync, type ChildProcess, type IOType } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { childEnv } from './child-env';
import { TAG_ENV } from './proc-info';
import { KILL_GRACE_MS, killNow, stopProcessTree, type StopHow } from './process-tree';
import type { SandboxPlan } from '../sandbox/plan';

/** One stdio slot: a pipe to Deskhand, nothing, or an open file descriptor (a log file). */
export type StdioSlot = Extract<IOType, 'pipe' | 'ignore'> | number;

interface LaunchCommon {
  args: readonly string[];
  cwd?: string | undefined;
  /** Variables set on purpose, after the credential filter (kept as given). */
  env?: Readonly<Record<string, string>> | undefined;
  /** Which of Deskhand's own (filtered) variables the process inherits: all, or only these names. Default all. */
  inherit?: 'all' | readonly string[];
  /** The environment filtered and inherited (default Deskhand's own, process.env). */
  source?: NodeJS.ProcessEnv;
  /** Default: stdin ignored, stdout and stderr piped. */
  stdio?: readonly [StdioSlot, StdioSlot, StdioSlot];
  /** Stops the process tree when aborted. */
  signal?: AbortSignal | undefined;
  /** Stops the process tree after this long. */
  timeoutMs?: number | undefined;
  /** Between SIGTERM and SIGKILL when stopped by the signal or the timeout. */
  graceMs?: number;
}

export interface ModelProcessSpec extends LaunchCommon {
  /** The program; it runs inside `sandbox` (bubblewrap, sandbox-exec, or as it is when the plan says so). */
  file: string;
  sandbox: SandboxPlan;
  cwd: string;
}

export interface HostProgramSpec extends LaunchCommon {
  /** A program Deskhand chose (never one the model named): ps, notify-send, at, xprop, rg, its own worker. */
  program: string;
  /**
   * Leads its own process group (default true), so a stop ends what it started. A long-lived helper that talks over
   * pipes (the Windows UI helper) may stay in Deskhand's group.
   */
  ownGroup?: boolean;
}

/** The child types a caller holds (only the launcher imports child_process: no other module can start a process). */
export type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';

/** A started process and the means to end it with everything it started. */
export interface LaunchedProcess {
  readonly child: ChildProcess;
  /** Its pid, which is also its process group id when it leads one; undefined when it could not be started. */
  readonly pid: number | undefined;
  /** The tag its descendants carry (`DESKHAND_TASK_TAG`); null for host programs. */
  readonly tag: string | null;
  /** Whether the OS sandbox confines it. */
  readonly sandboxed: boolean;
  /** Why it stopped early, once the launcher stopped it (abort, timeout, or a `stop()` call). */
  readonly stoppedBy: 'abort' | 'timeout' | 'stop' | null;
  /** Ends the process and everything it started (SIGTERM, then SIGKILL after `graceMs`). Idempotent. */
  stop(graceMs?: number): Promise<StopHow>;
  /** Synchronous last resort (process 'exit'): SIGKILL to the group and tagged descendants, no waiting. */
  killNow(): void;
}

/**
 * The environment a launched process gets: Deskhand's own without credential-named, provider and shell-hijacking
 * variables (optionally only the names in `inherit`), then `env` as given.
 */
export function launchEnv(opts: { inherit?: 'all' | readonly string[]; env?: Readonly<Record<string, string>> | undefined; source?: NodeJS.ProcessEnv } = {}): Record<string, string> {
  const filtered = childEnv(opts.source ?? process.env);
  let base: Record<string, string> = filtered;
  if (opts.inherit && opts.inherit !== 'all') {
    base = {};
    for (const name of opts.inherit) if (Object.hasOwn(filtered, name)) base[name] = filtered[name]!;
  }
  const out: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(opts.env ?? {})) if (name !== '__proto__') out[name] = value;
  return out;
}

/** Tags say whether the group leader is bubblewrap (`bw…`) or the program itself (`sh…`): stops differ. */
function newTag(plan: SandboxPlan): string {
  return `${plan.kind === 'bubblewrap' ? 'bw' : 'sh'}${randomBytes(8).toString('hex')}`;
}

function own(child: ChildProcess, tag: string | null, sandboxed: boolean, ownGroup: boolean, spec: LaunchCommon): LaunchedProcess {
  const pid = child.pid;
  let stopping: Promise<StopHow> | null = null;
  let stoppedBy: LaunchedProcess['stoppedBy'] = null;
  let timer: NodeJS.Timeout | null = null;
  const onAbort = (): void => void stop(spec.graceMs, 'abort');
  const stop = (graceMs: number = KILL_GRACE_MS, why: 'abort' | 'timeout' | 'stop' = 'stop'): Promise<StopHow> => {
    if (stopping) return stopping;
    stoppedBy = why;
    if (pid === undefined) return (stopping = Promise.resolve('terminated'));
    if (ownGroup) {
      stopping = stopProcessTree(pid, tag, graceMs);
    } else {
      // Not a group leader: only the process itself (and tagged descendants) can be signalled.
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      t.unref();
      stopping = new Promise<StopHow>((resolve) => child.once('exit', () => (clearTimeout(t), resolve('terminated'))));
      if (child.exitCode !== null || child.signalCode !== null) stopping = Promise.resolve('terminated');
    }
    return stopping;
  };
  if (spec.signal) {
    if (spec.signal.aborted) queueMicrotask(onAbort);
    else spec.signal.addEventListener('abort', onAbort, { once: true });
  }
  if (spec.timeoutMs !== undefined) {
    timer = setTimeout(() => void stop(spec.graceMs, 'timeout'), spec.timeoutMs);
    timer.unref();
  }
  const settle = (): void => {
    if (timer) clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
  };
  child.once('exit', settle);
  child.once('error', settle);
  return {
    child,
    pid,
    tag,
    sandboxed,
    get stoppedBy() {
      return stoppedBy;
    },
    stop: (graceMs) => stop(graceMs ?? KILL_GRACE_MS, 'stop'),
    killNow: () => (ownGroup || tag ? killNow(ownGroup ? pid : undefined, tag) : void child.kill('SIGKILL')),
  };
}

/** Starts a program for the model's sake under `spec.sandbox`, in its own process group, tagged, env filtered. */
export function launchForModel(spec: ModelProcessSpec): LaunchedProcess {
  const tag = newTag(spec.sandbox);
  const { file, args } = spec.sandbox.wrap(spec.file, spec.args);
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: { ...launchEnv(spec), [TAG_ENV]: tag },
    stdio: [...(spec.stdio ?? ['ignore', 'pipe', 'pipe'])],
    detached: true, // setsid(): it leads its own process group, so the whole group can be signalled
    windowsHide: true,
  });
  return own(child, tag, spec.sandbox.kind !== null, true, spec);
}

/** Starts a fixed program Deskhand chose, on the host, env filtered, by default leading its own process group. */
export function launchHostProgram(spec: HostProgramSpec): LaunchedProcess {
  const ownGroup = spec.ownGroup !== false;
  const child = spawn(spec.program, [...spec.args], {
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    env: launchEnv(spec),
    stdio: [...(spec.stdio ?? ['ignore', 'pipe', 'pipe'])],
    detached: ownGroup && process.platform !== 'win32',
    windowsHide: true,
  });
  return own(child, null, false, ownGroup && process.platform !== 'win32', spec);
}

export interface HostRunResult {
  /** Exit code; null when it was killed by a signal or could not start. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Why it could not be started (ENOENT…), when it could not. */
  error: NodeJS.ErrnoException | null;
  /** It was stopped by the timeout, the abort signal, or for writing more than `maxBuffer`. */
  stoppedBy: 'abort' | 'timeout' | 'stop' | 'output' | null;
}

/**
 * Runs a fixed program to completion and collects its output (what `execFile` did): stdin gets `input` (or nothing),
 * output past `maxBuffer` bytes per stream stops it, the timeout (default 30 s) and the signal stop its group.
 */
export function runHostProgram(spec: Omit<HostProgramSpec, 'stdio'> & { input?: string; maxBuffer?: number }): Promise<HostRunResult> {
  const launched = launchHostProgram({ ...spec, timeoutMs: spec.timeoutMs ?? 30_000, graceMs: spec.graceMs ?? 1_000, stdio: [spec.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  const { child } = launched;
  const max = spec.maxBuffer ?? 16 * 1024 * 1024;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sizes = [0, 0];
    let overflow = false;
    let error: NodeJS.ErrnoException | null = null;
    const collect = (sink: Buffer[], i: 0 | 1) => (chunk: Buffer) => {
      sizes[i]! += chunk.length;
      if (sizes[i]! > max) {
        if (!overflow) {
          overflow = true;
          void launched.stop(0);
        }
        return;
      }
      sink.push(chunk);
    };
    child.stdout?.on('data', collect(out, 0));
    child.stderr?.on('data', collect(err, 1));
    child.stdin?.on('error', () => undefined);
    if (spec.input !== undefined) child.stdin?.end(spec.input);
    child.once('error', (e) => {
      error = e as NodeJS.ErrnoException;
      // 'close' may never come for a process that never started.
      if (child.pid === undefined) finish(null, null);
    });
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), error, stoppedBy: overflow ? 'output' : launched.stoppedBy });
    };
    child.once('close', (code, signal) => finish(code, signal));
  });
}

export interface HostRunSyncResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Why it could not be started or was stopped (ENOENT, ETIMEDOUT), when so. */
  error: string | null;
}

/** Runs a fixed program synchronously (the sandbox probe, `ps` where /proc is missing). Env filtered like the rest. */
export function runHostProgramSync(spec: Pick<HostProgramSpec, 'program' | 'args' | 'cwd' | 'env' | 'inherit' | 'source'> & { timeoutMs: number }): HostRunSyncResult {
  const r = spawnSync(spec.program, [...spec.args], {
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    env: launchEnv(spec),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: spec.timeoutMs,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
    windowsHide: true,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error ? r.error.message : null };
}
