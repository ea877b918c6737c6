/** The shapes of background tasks shared by the task service and its parts: inputs, events, a running command. */
import { randomBytes } from 'node:crypto';
import type { CommandProcess } from '../processes/command-process';
import { isSameProcess, type ProcIdentity } from '../processes/proc-info';
import type { TaskLog } from '../processes/task-log';
import type { SandboxPlan, SandboxRequest } from '../sandbox/sandbox';
import type { Store } from '../store/store';
import type { OutputRedactor } from '../processes/task-log';
import type { TaskRow } from './task-store';
import type { WorkerLauncher } from './worker-launch';

export interface BackgroundTasksOptions {
  store: Store;
  dataDir: string;
  /** How job workers are started (tests may substitute). */
  launcher?: WorkerLauncher;
  /** Per-task cap of the output kept on disk. */
  logCapBytes?: number;
  /** The runtime's redactor: command text, live output and the log on disk never hold a secret's value. */
  redactor?: OutputRedactor;
  /** How long ended tasks' logs are kept, read when logs are pruned (Settings → retention); default LOG_RETENTION_MS. */
  logRetentionMs?: () => number;
}

export type TaskEvent =
  | { type: 'task.changed'; task: TaskRow }
  | { type: 'task.output'; taskId: string; conversationId: string; stream: 'stdout' | 'stderr'; chunk: string };

export interface StartCommandInput {
  conversationId: string;
  runId: string | null;
  callId: string | null;
  command: string;
  cwd: string;
  plan: SandboxPlan;
  /** Start in the background (true) or in the foreground of the calling tool (false). */
  background: boolean;
  title: string;
  /** Ends the task after this long (background tasks); null: no limit. */
  timeoutMs?: number | null;
  /** Live output (the calling tool streams it to its card while in the foreground). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export interface CheckResult {
  exitCode: number | null;
  output: string;
  durationMs: number;
  timedOut: boolean;
}

export interface StartBatchInput {
  conversationId: string;
  runId: string | null;
  callId: string | null;
  title: string;
  jobs: { command: string; cwd: string; retries: number; timeoutMs: number }[];
  concurrency: number;
  backoffMs: number;
  sandbox: Omit<SandboxRequest, 'cwd'>;
}

export interface BatchSpec {
  concurrency: number;
  backoffMs: number;
  sandbox: Omit<SandboxRequest, 'cwd'>;
}

/** A running command: its process, its row, and the way to let it continue in the background. */
export class CommandTask {
  private isBackground: boolean;
  constructor(
    readonly id: string,
    readonly process: CommandProcess,
    readonly log: TaskLog,
    readonly finished: Promise<TaskRow | undefined>,
    background: boolean,
    private readonly onMove: () => boolean,
  ) {
    this.isBackground = background;
  }

  get background(): boolean {
    return this.isBackground;
  }

  /** The command keeps running as a background task; false when it has already ended. */
  moveToBackground(): boolean {
    if (this.isBackground) return true;
    if (!this.onMove()) return false;
    this.isBackground = true;
    return true;
  }
}

export function newTaskId(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Resolves when the process is gone (or after `timeoutMs`). */
export async function waitGone(p: ProcIdentity, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isSameProcess(p.pid, p.start) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
