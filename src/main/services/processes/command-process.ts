/**
 * One shell command as a process Deskhand owns: bash (inside the sandbox when there is one) leading its own process
 * group, stdin closed, a credential-free environment carrying a tag its descendants inherit, output read as fast as
 * it comes (head + tail kept in memory, everything on disk), and a stop that ends the group and every tagged
 * descendant: SIGTERM, then SIGKILL after a grace period so a command can finish writing and clean up.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { launchForModel, type LaunchedProcess } from './launcher';
import { HeadTailBuffer } from './output-buffer';
import { anyLeftover, groupMembers, isSameProcess, processStartTime, taggedProcesses } from './proc-info';
import { KILL_GRACE_MS, stopProcessTree, type StopHow } from './process-tree';
import type { TaskLog } from './task-log';
import type { SandboxPlan } from '../sandbox/sandbox';

export { KILL_GRACE_MS, isSandboxTag, killNow, stopProcessTree, type StopHow } from './process-tree';

export const SHELL = '/bin/bash';
/** Per stream. Half is kept from the start and half from the end: errors usually sit at the end of long output. */
export const OUTPUT_CAP_BYTES = 256 * 1024;
/**
 * The largest file a command may write (RLIMIT_FSIZE, set as both soft and hard limit so the command cannot raise
 * it): an unbounded write such as `yes > f` is stopped there (SIGXFSZ) instead of filling the disk.
 * `DESKHAND_MAX_FILE_BYTES` overrides it (tests use a small one).
 */
export function maxFileBytes(): number {
  const v = Number(process.env.DESKHAND_MAX_FILE_BYTES);
  return Number.isInteger(v) && v > 0 ? v : 1024 * 1024 * 1024;
}

/** The command with the file size limit set first (bash counts `ulimit -f` in 1024-byte blocks). */
export function withFileSizeLimit(command: string, bytes = maxFileBytes()): string {
  return `ulimit -f ${Math.max(1, Math.floor(bytes / 1024))} || exit 125\n${command}`;
}

/** After the shell exits, output still in the pipes arrives within this window; a leftover job may hold them forever. */
const EXIT_DRAIN_MS = 150;

export interface CommandSpec {
  command: string;
  cwd: string;
  sandbox: SandboxPlan;
  /** Full output goes here (optional). */
  log?: TaskLog | null;
  /** Every chunk as it arrives (live output). Must not throw; errors are swallowed. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** Extra environment (after the credential filter). */
  env?: Record<string, string>;
  outputCap?: number;
}

export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the shell could not be started at all. */
  error?: string;
  durationMs: number;
}

export type StopReason = 'timeout' | 'interrupted' | 'cancelled' | 'shutdown';

export class CommandProcess {
  readonly tag: string;
  readonly stdout: HeadTailBuffer;
  readonly stderr: HeadTailBuffer;
  readonly exited: Promise<CommandExit>;
  /** The process group id (the shell's, or the sandbox's, pid); undefined when spawning failed. */
  readonly pgid: number | undefined;
  readonly startedAt = Date.now();
  /** The leader's start time (processStartTime), read right after the spawn; null when it was already gone. */
  readonly startTime: string | null;
  stopReason: StopReason | null = null;
  private stopping: Promise<StopHow> | null = null;
  private readonly child: ChildProcess;
  private readonly launched: LaunchedProcess;
  private exitInfo: CommandExit | null = null;

  constructor(readonly spec: CommandSpec) {
    const cap = spec.outputCap ?? OUTPUT_CAP_BYTES;
    this.stdout = new HeadTailBuffer(cap);
    this.stderr = new HeadTailBuffer(cap);
    const started = performance.now();
    // Through the launcher: the sandbox plan, the credential filter, its own process group and the tag.
    this.launched = launchForModel({
      file: SHELL,
      args: ['-c', withFileSizeLimit(spec.command)],
      sandbox: spec.sandbox,
      cwd: spec.cwd,
      env: { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', ...spec.env },
    });
    this.child = this.launched.child;
    this.tag = this.launched.tag!;
    this.pgid = this.launched.pid;
    this.startTime = this.pgid === undefined ? null : processStartTime(this.pgid);

    let collecting = true;
    const ended = { stdout: false, stderr: false };
    let onEnded: (() => void) | null = null;
    const attach = (name: 'stdout' | 'stderr', stream: Readable | null, sink: HeadTailBuffer): void => {
      if (!stream) {
        ended[name] = true;
        return;
      }
      stream.on('error', () => undefined);
      // Always consume: a full pipe would block the writer (`yes`), so past the caps we keep reading and count.
      stream.on('data', (chunk: Buffer) => {
        if (!collecting) return;
        sink.push(chunk);
        spec.log?.write(chunk);
        if (spec.onOutput) {
          try {
            spec.onOutput(name, chunk);
          } catch {
            // A watcher that fails must not stop the command or its output collection.
          }
        }
      });
      stream.once('close', () => {
        ended[name] = true;
        onEnded?.();
      });
    };
    attach('stdout', this.child.stdout, this.stdout);
    attach('stderr', this.child.stderr, this.stderr);

    const shellExit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
      this.child.once('error', (error) => resolve({ code: null, signal: null, error: error.message }));
    });
    this.exited = shellExit.then(async (result) => {
      // A running stop finishes with the whole group; then the last output gets a moment to arrive. The pipes close
      // at once unless a leftover job inherited them, so the wait is short either way.
      if (this.stopping) await this.stopping;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          if (ended.stdout && ended.stderr) resolve();
        };
        onEnded = done;
        setTimeout(resolve, EXIT_DRAIN_MS).unref();
        done();
      });
      collecting = false;
      // Leftover jobs may still hold the pipes: keep draining (so they never block on a full pipe) without keeping
      // Deskhand's event loop alive for them.
      for (const stream of [this.child.stdout, this.child.stderr]) (stream as (Readable & { unref?: () => void }) | null)?.unref?.();
      // What the command created that steers the agent or runs later is removed, and the model told so (sandbox.ts).
      let note: string | null = null;
      try {
        note = spec.sandbox.settle?.() ?? null;
      } catch (err) {
        note = `Deskhand could not check what this command created: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (note) {
        const chunk = Buffer.from(`\n[deskhand] ${note}\n`);
        this.stderr.push(chunk);
        spec.log?.write(chunk);
      }
      this.exitInfo = { ...result, durationMs: performance.now() - started };
      return this.exitInfo;
    });
  }

  get done(): boolean {
    return this.exitInfo !== null;
  }

  /** Stops the command and everything it started. Idempotent; resolves when they are gone. */
  stop(reason: StopReason, graceMs: number = KILL_GRACE_MS): Promise<StopHow> {
    if (this.stopping) return this.stopping;
    if (this.pgid === undefined) return Promise.resolve('terminated');
    this.stopReason = reason;
    this.stopping = stopProcessTree(this.pgid, this.tag, graceMs);
    return this.stopping;
  }

  /** How the last stop ended, once it has. */
  get stopped(): Promise<StopHow> | null {
    return this.stopping;
  }

  /** After the shell exited: processes it left running (`cmd &`, daemons that called setsid). */
  leftovers(): boolean {
    if (this.pgid === undefined) return false;
    return anyLeftover(this.pgid, this.tag, this.startTime, this.startedAt);
  }
}

/**
 * Ends a process group recorded earlier (possibly by a process that has died since): the group is signalled only
 * when it is provably still ours (its leader is the same process, or a member carries our tag), never a stranger
 * that got a recycled pid; tagged descendants are ended either way.
 */
export function stopRecordedGroup(group: { pgid: number; start_time: string; tag: string }, graceMs: number = KILL_GRACE_MS): Promise<StopHow> {
  const tagged = taggedProcesses(group.tag);
  const ours = isSameProcess(group.pgid, group.start_time) || groupMembers(group.pgid).some((pid) => tagged.includes(pid));
  if (!ours && tagged.length === 0) return Promise.resolve('terminated');
  return stopProcessTree(ours ? group.pgid : null, group.tag, graceMs);
}
