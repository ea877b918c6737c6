/**
 * wait_for's checks: one check run as a command (recorded like any command outside bubblewrap), and the background
 * loop that re-runs it until it exits 0 or the time is up. Owned by BackgroundTasks, which ends them on cancel and quit.
 */
import { CommandProcess } from '../processes/command-process';
import type { ProcIdentity } from '../processes/proc-info';
import type { SandboxPlan } from '../sandbox/sandbox';
import { newTaskId, sleep, type CheckResult } from './task-model';
import type { TaskRow, TaskStatus, TaskStore } from './task-store';
import { formatDuration, parseJson, type WaitProgress } from './task-text';

const CHECK_OUTPUT_CHARS = 8 * 1024;
const CHECK_TIMEOUT_MS = 60_000;
const NO_PROGRESS: WaitProgress = { checks: 0, lastExit: null, lastOutput: '', identical: false, recent: [] };

/** What the checks need of the task service that owns them. */
export interface WaitHost {
  readonly rows: TaskStore;
  readonly identity: ProcIdentity;
  assertOpen(): void;
  changed(id: string): void;
  recordGroup(proc: CommandProcess, taskId: string): void;
}

interface LiveWait {
  controller: AbortController;
  done: Promise<void>;
}

export class WaitChecks {
  /** Waits looping in this process. */
  private readonly live = new Map<string, LiveWait>();
  /** Checks running right now (ended at once on a hard exit). */
  readonly checks = new Set<CommandProcess>();

  constructor(private readonly host: WaitHost) {}

  has(id: string): boolean {
    return this.live.has(id);
  }

  async run(command: string, cwd: string, plan: SandboxPlan, timeoutMs: number, signal?: AbortSignal, taskId?: string): Promise<CheckResult> {
    const proc = new CommandProcess({ command, cwd, sandbox: plan, outputCap: CHECK_OUTPUT_CHARS * 2 });
    this.checks.add(proc);
    // Inside bubblewrap the kernel ends a check with Deskhand (die-with-parent + pid namespace): recording every
    // 250 ms check would cost a synced write each. Outside it, the check is recorded like any command.
    const recorded = plan.kind !== 'bubblewrap' && taskId !== undefined && proc.pgid !== undefined;
    if (recorded) this.host.recordGroup(proc, taskId);
    const timer = setTimeout(() => void proc.stop('timeout', 500), timeoutMs);
    const onAbort = () => void proc.stop('interrupted', 500);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const exit = await proc.exited;
      const out = proc.stdout.toString() + proc.stderr.toString();
      const output = out.length > CHECK_OUTPUT_CHARS ? `[…]${out.slice(out.length - CHECK_OUTPUT_CHARS)}` : out;
      return { exitCode: exit.code, output: exit.error ? `could not start: ${exit.error}` : output, durationMs: exit.durationMs, timedOut: proc.stopReason === 'timeout' };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.checks.delete(proc);
      if (recorded) this.host.rows.deleteGroup(proc.tag);
    }
  }

  /** Keeps checking in the background after a first check that did not hold. */
  start(input: {
    conversationId: string;
    runId: string | null;
    callId: string | null;
    command: string;
    cwd: string;
    plan: SandboxPlan;
    intervalMs: number;
    timeoutMs: number;
    title: string;
    first: CheckResult;
  }): TaskRow {
    this.host.assertOpen();
    const id = newTaskId('wait');
    const started = Date.now();
    const deadline = started + input.timeoutMs;
    const firstKey = `${input.first.exitCode}\0${input.first.output}`;
    const progress: WaitProgress = {
      checks: 1,
      lastExit: input.first.exitCode,
      lastOutput: input.first.output,
      identical: true,
      recent: [{ at: started, exit: input.first.exitCode, ms: Math.round(input.first.durationMs), output: input.first.output.slice(-300) }],
    };
    const row = this.host.rows.insertTask({
      id,
      conversation_id: input.conversationId,
      run_id: input.runId,
      call_id: input.callId,
      kind: 'wait_for',
      title: input.title,
      spec: JSON.stringify({ command: input.command, cwd: input.cwd, intervalMs: input.intervalMs, timeoutMs: input.timeoutMs, sandbox: input.plan.summary }),
      background: 1,
      notify: 1,
      output_path: null,
      owner_pid: this.host.identity.pid,
      owner_start: this.host.identity.start,
    });
    this.host.rows.updateTask(id, { progress: JSON.stringify(progress) });
    const controller = new AbortController();
    const entry: LiveWait = { controller, done: Promise.resolve() };
    let lastSaved = Date.now();
    const loop = async (): Promise<void> => {
      while (!controller.signal.aborted) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        await sleep(Math.min(input.intervalMs, left), controller.signal);
        if (controller.signal.aborted || Date.now() >= deadline) break;
        const check = await this.run(input.command, input.cwd, input.plan, Math.min(CHECK_TIMEOUT_MS, Math.max(250, deadline - Date.now())), controller.signal, id);
        if (controller.signal.aborted) break;
        progress.checks++;
        progress.lastExit = check.exitCode;
        progress.lastOutput = check.output;
        if (`${check.exitCode}\0${check.output}` !== firstKey) progress.identical = false;
        progress.recent = [...progress.recent, { at: Date.now(), exit: check.exitCode, ms: Math.round(check.durationMs), output: check.output.slice(-300) }].slice(-5);
        if (check.exitCode === 0) {
          this.finish(id, 'finished', progress, `the check exited 0 after ${progress.checks} checks`);
          return;
        }
        // Progress is saved now and then (not on every 250 ms check) and always at the end.
        if (Date.now() - lastSaved > 2_000) {
          lastSaved = Date.now();
          this.host.rows.updateTask(id, { progress: JSON.stringify(progress) });
          this.host.changed(id);
        }
      }
      if (!controller.signal.aborted) {
        this.finish(id, 'timed_out', progress, `the check never exited 0 in ${formatDuration(input.timeoutMs)}`);
      }
    };
    entry.done = loop()
      .catch((err: unknown) => {
        this.finish(id, 'failed', progress, `checking failed: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => this.live.delete(id));
    this.live.set(id, entry);
    this.host.changed(id);
    return row;
  }

  finish(id: string, status: TaskStatus, progress: WaitProgress, summary: string, extra: Partial<Pick<TaskRow, 'notified_at'>> = {}): void {
    try {
      this.host.rows.finishTask(id, status, { exit_code: progress.lastExit, summary, progress: JSON.stringify(progress), ...extra });
    } catch {
      // store closed
    }
    this.host.changed(id);
  }

  /** Stops a wait (cancel): its loop ends and it is marked with `reason`. */
  async cancel(task: TaskRow, reason: string): Promise<void> {
    const live = this.live.get(task.id);
    if (live) {
      live.controller.abort();
      await live.done;
    }
    this.finish(task.id, 'cancelled', parseJson<WaitProgress>(task.progress, NO_PROGRESS), reason, { notified_at: Date.now() });
  }

  /** Ends every wait of this process (quit): each is marked interrupted. */
  stopAll(): Promise<unknown>[] {
    return [...this.live].map(([id, wait]) => {
      wait.controller.abort();
      return wait.done.then(() => {
        try {
          const row = this.host.rows.getTask(id);
          if (row) this.finish(id, 'interrupted', parseJson<WaitProgress>(row.progress, NO_PROGRESS), 'ended because Deskhand quit', { notified_at: Date.now() });
        } catch {
          // store closed
        }
      });
    });
  }
}
