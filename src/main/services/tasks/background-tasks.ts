/**
 * Background tasks: every command Deskhand runs (foreground ones too, so a timed-out command can keep going), job
 * batches run by the detached worker, and wait_for checks, in one table. This service owns their processes: each
 * process group is recorded in the store (pgid + start time + a tag its descendants inherit) and ended on cancel, on
 * a stopped run, on quit (`shutdown()`), and after a crash at the next start (`recover()`).
 */
import { LOG_RETENTION_MS, pruneTaskLogs } from './log-retention';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DeskhandError } from '../../../shared/errors';
import { CommandProcess, killNow, stopRecordedGroup, type CommandExit } from '../processes/command-process';
import { isSameProcess, processStartTime, selfIdentity, type ProcIdentity } from '../processes/proc-info';
import { LOG_CAP_BYTES, TaskLog, readLogPage, type LogPage, type OutputRedactor } from '../processes/task-log';
import type { SandboxPlan } from '../sandbox/sandbox';
import { TERMINAL_STATUSES, TaskStore, type JobRow, type TaskKind, type TaskRow, type TaskStatus } from './task-store';
import { describeResult, formatDuration } from './task-text';
import { launchWorker, type WorkerLauncher } from './worker-launch';
import { CommandTask, newTaskId, waitGone, type BackgroundTasksOptions, type BatchSpec, type CheckResult, type StartBatchInput, type StartCommandInput, type TaskEvent } from './task-model';
import { WaitChecks } from './wait-checks';
import { QuestionTasks, progressOf, type StartQuestionInput } from './question-tasks';
import { ExternalTasks } from './external-tasks';

export { CommandTask, newTaskId };
export type { BackgroundTasksOptions, BatchSpec, CheckResult, StartBatchInput, StartCommandInput, TaskEvent };

/** Live output of one background task forwarded to listeners (the UI tail); the rest is on disk. */
const LIVE_CAP_BYTES = 256 * 1024;
const TERMINAL = new Set<string>(TERMINAL_STATUSES);
/** Whole outputs are kept this long after a task ends, then deleted (the task's row and summary stay). */

/** Last resort if a host exits without shutdown(): nothing a command started may outlive Deskhand. */
const OPEN = new Set<WeakRef<BackgroundTasks>>();
process.on('exit', () => {
  for (const ref of OPEN) ref.deref()?.killEverythingNow();
});

interface Lingering {
  pgid: number;
  tag: string;
  timer: NodeJS.Timeout;
}

export class BackgroundTasks {
  readonly rows: TaskStore;
  readonly identity: ProcIdentity;
  private readonly dataDir: string;
  private readonly retention: (() => number) | null;
  private readonly launcher: WorkerLauncher;
  /** Job workers this process started: they end with it (see shutdown()). */
  private readonly workers = new Map<string, ProcIdentity>();
  private readonly logCap: number;
  private readonly redactor: OutputRedactor | null;
  private readonly commands = new Map<string, CommandTask>();
  private readonly waitChecks: WaitChecks;
  private readonly questions: QuestionTasks;
  /** Processes an unsandboxed command left running after its shell exited (`cmd &`): ended on quit. */
  private readonly lingering = new Map<string, Lingering>();
  private readonly listeners = new Set<(e: TaskEvent) => void>();
  private watchTimer: NodeJS.Timeout | null = null;
  private watchedSince = Date.now();
  private closing: Promise<void> | null = null;
  private readonly ref: WeakRef<BackgroundTasks>;
  /** Tasks other services run (subagents): rows here, cancelled and described by their owner. */
  readonly external = new ExternalTasks(() => this.rows, (id) => this.changed(id));

  constructor(opts: BackgroundTasksOptions) {
    this.rows = opts.store.tasks;
    this.dataDir = opts.dataDir;
    this.launcher = opts.launcher ?? launchWorker;
    this.logCap = opts.logCapBytes ?? LOG_CAP_BYTES;
    this.redactor = opts.redactor ?? null;
    this.retention = opts.logRetentionMs ?? null;
    this.identity = selfIdentity();
    this.ref = new WeakRef(this);
    OPEN.add(this.ref);
    const host = { rows: this.rows, store: opts.store, identity: this.identity, assertOpen: () => this.assertOpen(), changed: (id: string) => this.changed(id) };
    this.waitChecks = new WaitChecks({ ...host, recordGroup: (proc, taskId) => this.recordGroup(proc, taskId) });
    this.questions = new QuestionTasks(host);
  }

  onEvent(listener: (e: TaskEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── Commands ──────────────────────────────────────────────────────────────────────────────────────────────────

  startCommand(input: StartCommandInput): CommandTask {
    this.assertOpen();
    const id = newTaskId('cmd');
    const log = new TaskLog(join(this.dataDir, 'tasks', `${id}.log`), this.logCap, this.redactor);
    // The process starts before its CommandTask exists; the output handler finds the task through this.
    const ref: { task?: CommandTask } = {};
    let live = 0;
    const proc = new CommandProcess({
      command: input.command,
      cwd: input.cwd,
      sandbox: input.plan,
      log,
      onOutput: (stream, chunk) => {
        input.onOutput?.(stream, chunk);
        if (ref.task?.background && live < LIVE_CAP_BYTES && this.listeners.size > 0) {
          live += chunk.length;
          this.emit({ type: 'task.output', taskId: id, conversationId: input.conversationId, stream, chunk: this.redactor ? this.redactor.redact(chunk.toString('utf8')) : chunk.toString('utf8') });
        }
      },
    });
    // The command may carry a secret's value (put in for `[redacted:NAME]` just before it runs): store it redacted.
    const spec = { command: this.redactor ? this.redactor.redact(input.command) : input.command, cwd: input.cwd, sandbox: input.plan.summary, sandboxKind: input.plan.kind, network: input.plan.network };
    // Committed before the first await (a crash later leaves them for recover()); without an fsync, since a power
    // loss, the only thing an fsync adds protection against, ends the process too (docs/performance.md).
    this.rows.transactionWithoutFsync(() => {
      this.rows.insertTask({
        id,
        conversation_id: input.conversationId,
        run_id: input.runId,
        call_id: input.callId,
        kind: 'command',
        title: this.redactor ? this.redactor.redact(input.title) : input.title,
        spec: JSON.stringify(spec),
        background: input.background ? 1 : 0,
        notify: input.background ? 1 : 0,
        output_path: log.path,
        owner_pid: this.identity.pid,
        owner_start: this.identity.start,
      });
      this.recordGroup(proc, id);
    });

    let timer: NodeJS.Timeout | undefined;
    if (input.timeoutMs) timer = setTimeout(() => void proc.stop('timeout'), input.timeoutMs);
    const finished = proc.exited.then((exit) => {
      clearTimeout(timer);
      return this.settleCommand(id, proc, log, exit, input.plan);
    });
    const task = new CommandTask(id, proc, log, finished, input.background, () => {
      const row = this.rows.getTask(id);
      if (!row || row.status !== 'running' || proc.done) return false;
      this.rows.updateTask(id, { background: 1, notify: 1 });
      this.changed(id);
      return true;
    });
    ref.task = task;
    this.commands.set(id, task);
    if (input.background) this.changed(id);
    return task;
  }

  private recordGroup(proc: CommandProcess, taskId: string, owner: ProcIdentity = this.identity): void {
    if (proc.pgid === undefined) return;
    this.rows.insertGroup({
      pgid: proc.pgid,
      start_time: proc.startTime ?? 'exited',
      tag: proc.tag,
      task_id: taskId,
      owner_pid: owner.pid,
      owner_start: owner.start,
    });
  }

  private async settleCommand(id: string, proc: CommandProcess, log: TaskLog, exit: CommandExit, plan: SandboxPlan): Promise<TaskRow | undefined> {
    await log.close();
    const how = proc.stopReason;
    const status: TaskStatus =
      how === 'cancelled' || how === 'interrupted' ? 'cancelled' : how === 'shutdown' ? 'interrupted' : how === 'timeout' ? 'timed_out' : exit.code === 0 ? 'finished' : 'failed';
    const took = formatDuration(exit.durationMs);
    const summary = exit.error
      ? `could not start: ${exit.error}`
      : how === 'cancelled'
        ? `cancelled after ${took}`
        : how === 'interrupted'
          ? `stopped with its run after ${took}`
          : how === 'shutdown'
            ? 'ended because Deskhand quit'
            : how === 'timeout'
              ? `timed out after ${took}`
              : exit.code === null
                ? `killed by ${exit.signal ?? 'a signal'} after ${took}`
                : `exit code ${exit.code} after ${took}`;
    // Outside the bubblewrap pid namespace, jobs the shell left behind (`server &`) keep running: watch them so quit
    // still ends them.
    const leftovers = !how && plan.kind !== 'bubblewrap' && proc.pgid !== undefined && proc.leftovers();
    try {
      // Without an fsync, as at the start.
      this.rows.transactionWithoutFsync(() => {
        if (!leftovers) this.rows.deleteGroup(proc.tag);
        this.rows.finishTask(id, status, { exit_code: exit.code, summary, ...(how === 'shutdown' ? { notified_at: Date.now() } : {}) });
      });
    } catch {
      // The store is closed (shutdown after close) or the conversation was deleted: nothing left to record.
    }
    if (leftovers && proc.pgid !== undefined) this.watchLingering(proc.pgid, proc.tag, () => proc.leftovers());
    this.commands.delete(id);
    this.changed(id);
    try {
      return this.rows.getTask(id);
    } catch {
      return undefined;
    }
  }

  private watchLingering(pgid: number, tag: string, stillThere: () => boolean): void {
    const entry: Lingering = {
      pgid,
      tag,
      timer: setInterval(() => {
        if (stillThere()) return;
        clearInterval(entry.timer);
        this.lingering.delete(tag);
        try {
          this.rows.deleteGroup(tag);
        } catch {
          // store closed
        }
      }, 2_000),
    };
    entry.timer.unref();
    this.lingering.set(tag, entry);
  }

  /** Deletes the disk log of a foreground command whose whole output was returned inline (nothing left to page). */
  discardLog(task: CommandTask): void {
    if (!task.background) rmSync(task.log.path, { force: true });
  }

  // ── wait_for ──────────────────────────────────────────────────────────────────────────────────────────────────

  /** Runs one check command to its end (or `timeoutMs`), output combined and cut to its tail. */
  runCheck(command: string, cwd: string, plan: SandboxPlan, timeoutMs: number, signal?: AbortSignal, taskId?: string): Promise<CheckResult> {
    return this.waitChecks.run(command, cwd, plan, timeoutMs, signal, taskId);
  }

  /** Keeps checking in the background after a first check that did not hold. */
  startWaitFor(input: Parameters<WaitChecks['start']>[0]): TaskRow {
    return this.waitChecks.start(input);
  }

  // ── Background questions (question-tasks.ts) ──────────────────────────────────────────────────────────────────

  startQuestion = (input: StartQuestionInput): { task: TaskRow; requestId: string } => this.questions.start(input);

  /** The person answered a background question (or declined it): from the runtime's `onBackgroundAnswer`. */
  settleQuestion = (taskId: string, result: { output: string } | { declined: string | null }): void => this.questions.settle(taskId, result);

  // ── Job batches ───────────────────────────────────────────────────────────────────────────────────────────────

  startBatch(input: StartBatchInput): TaskRow {
    this.assertOpen();
    const id = newTaskId('jobs');
    const spec: BatchSpec = { concurrency: input.concurrency, backoffMs: input.backoffMs, sandbox: input.sandbox };
    const row = this.rows.transaction(() => {
      const r = this.rows.insertTask({
        id,
        conversation_id: input.conversationId,
        run_id: input.runId,
        call_id: input.callId,
        kind: 'job_batch',
        title: input.title,
        spec: JSON.stringify(spec),
        background: 1,
        notify: 1,
        output_path: null,
        owner_pid: null,
        owner_start: null,
      });
      input.jobs.forEach((job, i) =>
        this.rows.insertJob({
          task_id: id,
          idx: i + 1,
          command: job.command,
          cwd: job.cwd,
          retries: job.retries,
          timeout_ms: job.timeoutMs,
          output_path: join(this.dataDir, 'tasks', `${id}.${i + 1}.log`),
        }),
      );
      return r;
    });
    this.launch(id);
    this.changed(id);
    return row;
  }

  private launch(batchId: string): void {
    const worker = this.launcher(this.dataDir, batchId);
    if (!worker) throw new DeskhandError('internal', 'The job worker could not be started.');
    this.workers.set(batchId, worker);
    // The worker claims the batch itself; recording it here too closes the window in which it looks unowned.
    this.rows.setBatchOwner(batchId, worker.pid, worker.start);
  }

  /** Batches whose worker died (crash, SIGKILL, reboot) get a new worker, which picks them up where they stopped. */
  reviveBatches(): string[] {
    const revived: string[] = [];
    for (const batch of this.rows.runningTasks('job_batch')) {
      if (isSameProcess(batch.owner_pid, batch.owner_start)) continue;
      // Give a just-launched worker a moment before calling it dead.
      if (!batch.owner_pid && Date.now() - batch.created_at < 2_000) continue;
      try {
        this.launch(batch.id);
        revived.push(batch.id);
      } catch {
        // Try again on the next look.
      }
    }
    return revived;
  }

  // ── Queries ───────────────────────────────────────────────────────────────────────────────────────────────────

  /** A task or a job of a batch (`jobs_1a2b3c4d.2`) of this conversation; a clear error otherwise. */
  resolve(id: string, conversationId: string | null): { task: TaskRow; job: JobRow | null } {
    const m = /^(.+)\.(\d+)$/.exec(id.trim());
    const taskId = m ? m[1]! : id.trim();
    const task = this.rows.getTask(taskId);
    if (!task || (conversationId !== null && task.conversation_id !== conversationId)) {
      throw new DeskhandError('not_found', `No background task "${id.slice(0, 80)}" in this conversation. list_background_jobs shows the ids.`);
    }
    if (!m) return { task, job: null };
    const job = task.kind === 'job_batch' ? this.rows.getJob(taskId, Number(m[2])) : undefined;
    if (!job) throw new DeskhandError('not_found', `Task ${taskId} has no job ${m[2]}. list_background_jobs shows its jobs.`);
    return { task, job };
  }

  list(conversationId: string | null, opts: { activeOnly?: boolean; limit?: number } = {}): TaskRow[] {
    return this.rows.listTasks(conversationId, opts);
  }

  jobs(taskId: string): JobRow[] {
    return this.rows.jobs(taskId);
  }

  /** An ended (or running) task's result in words, with the tail of its output: for wait_tasks and wake-ups. */
  describe(task: TaskRow, tailBytes = 4 * 1024): string {
    const owner = this.external.owner(task.kind);
    if (owner) return owner.describe(task);
    if (task.kind === 'command') {
      const page = readLogPage(task.output_path, undefined, tailBytes);
      return describeResult(task, { output: page.text, outputBytes: page.total });
    }
    if (task.kind === 'job_batch') return describeResult(task, { jobs: this.rows.jobs(task.id) });
    return describeResult(task, task.kind === 'question' ? { output: progressOf(task).output ?? '' } : {});
  }

  /** A page of a command's or job's full output, as it is on disk now. */
  readOutput(task: TaskRow, job: JobRow | null, offset: number | undefined, limit: number): LogPage {
    return readLogPage(job ? job.output_path : task.output_path, offset, limit);
  }

  // ── Cancel and wait ───────────────────────────────────────────────────────────────────────────────────────────

  /** Cancels tasks (and jobs) of a conversation; resolves when their processes are gone. */
  async cancel(ids: readonly string[], conversationId: string | null, reason = 'cancelled'): Promise<{ id: string; result: string }[]> {
    const out: { id: string; result: string }[] = [];
    for (const id of ids) {
      let resolved: { task: TaskRow; job: JobRow | null };
      try {
        resolved = this.resolve(id, conversationId);
      } catch (err) {
        out.push({ id, result: err instanceof Error ? err.message : String(err) });
        continue;
      }
      out.push({ id, result: await this.cancelOne(resolved.task, resolved.job, reason) });
    }
    return out;
  }

  private async cancelOne(task: TaskRow, job: JobRow | null, reason: string): Promise<string> {
    if (task.status !== 'running') return `already ${task.status}`;
    if (this.external.owner(task.kind)) return this.external.owner(task.kind)!.cancel(task, reason).then(() => 'cancelled');
    if (task.kind === 'command') {
      const live = this.commands.get(task.id);
      if (live) {
        // Cancelled by the conversation itself: no wake-up about it.
        this.rows.updateTask(task.id, { notify: 0 });
        await live.process.stop('cancelled');
        await live.finished;
        // The reason the canceller gave stays with the task (its status line and result show it).
        const summary = this.rows.getTask(task.id)?.summary;
        this.rows.updateTask(task.id, { summary: summary ? `${summary}: ${reason}` : reason });
        return 'cancelled';
      }
      await this.endOrphan(task, reason);
      return 'cancelled';
    }
    if (task.kind === 'wait_for' || task.kind === 'question') {
      await (task.kind === 'wait_for' ? this.waitChecks.cancel(task, reason) : this.questions.cancel(task, reason));
      return 'cancelled';
    }
    // A batch (or one job of it): the jobs are marked first, so the worker (alive or not) cannot restart them.
    const targets = job ? [job] : this.rows.jobs(task.id);
    const running: JobRow[] = [];
    this.rows.transaction(() => {
      if (!job) this.rows.updateTask(task.id, { cancel_requested: 1, notify: 0 });
      for (const j of targets) {
        if (this.rows.updateJob(task.id, j.idx, { status: 'cancelled', note: reason, finished_at: Date.now(), next_attempt_at: null }, ['pending', 'running']) && j.status === 'running') {
          running.push(j);
        }
      }
    });
    await Promise.all(running.flatMap((j) => this.rows.groupsForTask(`${task.id}.${j.idx}`).map((g) => stopRecordedGroup(g).then(() => this.rows.deleteGroup(g.tag)))));
    if (!job && !isSameProcess(task.owner_pid, task.owner_start)) {
      // No worker to close the batch: close it here.
      this.rows.finishTask(task.id, 'cancelled', { summary: reason, notified_at: Date.now() });
      this.changed(task.id);
    }
    return job ? `job ${job.idx} cancelled` : 'cancelled';
  }

  /** Ends the processes of a task this process does not run (its owner died) and marks it. */
  private async endOrphan(task: TaskRow, reason: string): Promise<void> {
    await Promise.all(this.rows.groupsForTask(task.id).map((g) => stopRecordedGroup(g).then(() => this.rows.deleteGroup(g.tag))));
    this.rows.finishTask(task.id, 'cancelled', { summary: reason, notified_at: Date.now() });
    this.changed(task.id);
  }

  /** Ends every background task of a conversation (before it is deleted). */
  async cancelForConversation(conversationId: string, reason = 'its conversation was deleted'): Promise<void> {
    const tasks = this.rows.listTasks(conversationId, { activeOnly: true, limit: 1000 });
    await Promise.all(tasks.map((t) => this.cancelOne(t, null, reason).catch(() => undefined)));
  }

  /** Ends every background task a run started (the person stopped the run). */
  async cancelForRun(runId: string, reason = 'stopped with its run'): Promise<void> {
    const tasks = this.rows.tasksForRun(runId);
    await Promise.all(tasks.map((t) => this.cancelOne(t, null, reason).catch(() => undefined)));
  }

  /**
   * Suspends until one of `ids` (or, without ids, any background task of the conversation running now) ends, the
   * time passes, or `signal` aborts. Tasks reported here are marked as told, so they wake nobody later.
   */
  async waitAny(conversationId: string, ids: readonly string[] | null, timeoutMs: number, signal?: AbortSignal): Promise<{ finished: TaskRow[]; running: TaskRow[]; timedOut: boolean }> {
    const targets = ids
      ? [...new Set(ids.map((id) => this.resolve(id, conversationId).task.id))]
      : this.rows.listTasks(conversationId, { activeOnly: true, limit: 100 }).map((t) => t.id);
    const snapshot = () => targets.map((id) => this.rows.getTask(id)).filter((t): t is TaskRow => t !== undefined);
    const settle = (timedOut: boolean) => {
      const rows = snapshot();
      const finished = rows.filter((t) => TERMINAL.has(t.status));
      if (finished.length) this.rows.claimNotifications(finished.map((t) => t.id));
      return { finished, running: rows.filter((t) => !TERMINAL.has(t.status)), timedOut };
    };
    if (targets.length === 0 || snapshot().some((t) => TERMINAL.has(t.status))) return settle(false);
    const deadline = Date.now() + timeoutMs;
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        clearInterval(poll);
        off();
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const check = () => {
        if (snapshot().some((t) => TERMINAL.has(t.status))) finish();
      };
      const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      // In-process tasks report at once; batches (another process) are polled.
      const off = this.onEvent((e) => {
        if (e.type === 'task.changed' && targets.includes(e.task.id) && TERMINAL.has(e.task.status)) finish();
      });
      const poll = setInterval(check, 500);
      signal?.addEventListener('abort', finish, { once: true });
      if (signal?.aborted) finish();
    });
    if (signal?.aborted) throw new DeskhandError('aborted', 'The wait was stopped.');
    return settle(Date.now() >= deadline);
  }

  /**
   * Watches rows another process writes (job workers): emits changes and revives batches whose worker died. Hosts
   * that show tasks or deliver wake-ups call this once.
   */
  watch(intervalMs = 1_000): void {
    if (this.watchTimer || this.closing) return;
    let ticks = 0;
    this.watchTimer = setInterval(() => {
      try {
        const since = this.watchedSince;
        this.watchedSince = Date.now();
        for (const task of this.rows.changedSince(since - 50)) {
          if (!this.commands.has(task.id) && !this.waitChecks.has(task.id)) this.emit({ type: 'task.changed', task });
        }
        if (++ticks % 5 === 0) this.reviveBatches();
      } catch {
        // The store may be closing.
      }
    }, intervalMs);
    this.watchTimer.unref();
  }

  /**
   * At start: ends what processes that died left behind (their recorded groups, tagged descendants included),
   * marks their tasks interrupted, and gives orphaned job batches a new worker.
   */
  async recover(): Promise<{ ended: number; interrupted: string[]; revived: string[] }> {
    const interrupted: string[] = [];
    for (const task of this.rows.runningTasks()) {
      // A question waits for a person, not a process: it survives a restart (its request stays answerable).
      if (task.kind === 'job_batch' || task.kind === 'question' || isSameProcess(task.owner_pid, task.owner_start)) continue;
      // Nor does work parked on a person (a background subagent whose run parked): its owner says so.
      if (this.external.owner(task.kind)?.survives?.(task)) continue;
      if (this.rows.finishTask(task.id, 'interrupted', { summary: 'Deskhand stopped while this was running', notified_at: Date.now() })) interrupted.push(task.id);
    }
    const revived = this.reviveBatches();
    this.pruneLogs();
    // SIGTERM goes out before the first await; a group's row goes only once the group is gone, so a process that
    // exits before the SIGKILL leaves it for the next start.
    const orphans = this.rows.groups().filter((g) => !isSameProcess(g.owner_pid, g.owner_start));
    await Promise.all(orphans.map((g) => stopRecordedGroup(g).then(() => this.rows.deleteGroup(g.tag))));
    return { ended: orphans.length, interrupted, revived };
  }

  /** Output logs of tasks that ended more than `maxAgeMs` ago are deleted (the rows stay; log-retention.ts). */
  pruneLogs(maxAgeMs = this.retention?.() ?? LOG_RETENTION_MS): number {
    return pruneTaskLogs(this.rows, this.dataDir, maxAgeMs);
  }

  /** On quit: ends every command and check this process runs (SIGTERM, SIGKILL after 3 s) and records it. */
  shutdown(): Promise<void> {
    if (!this.closing) this.closing = this.close();
    return this.closing;
  }

  private async close(): Promise<void> {
    if (this.watchTimer) clearInterval(this.watchTimer);
    const work: Promise<unknown>[] = [];
    // Nothing keeps working after Deskhand stops: the job workers we started stop their jobs and leave the batch
    // for the next start (they also notice on their own when this process is gone).
    for (const [batchId, w] of this.workers) {
      if (!isSameProcess(w.pid, w.start)) continue;
      try {
        process.kill(w.pid, 'SIGTERM');
      } catch {
        continue;
      }
      work.push(waitGone(w, 10_000).then(() => this.workers.delete(batchId)));
    }
    for (const task of this.commands.values()) work.push(task.process.stop('shutdown').then(() => task.finished));
    work.push(...this.waitChecks.stopAll());
    for (const l of this.lingering.values()) {
      clearInterval(l.timer);
      work.push(
        stopRecordedGroup({ pgid: l.pgid, start_time: processStartTime(l.pgid) ?? '', tag: l.tag }).then(() => {
          try {
            this.rows.deleteGroup(l.tag);
          } catch {
            // store closed
          }
        }),
      );
    }
    await Promise.allSettled(work);
    this.lingering.clear();
    OPEN.delete(this.ref);
  }

  /** @internal Synchronous last resort from the process 'exit' handler. */
  killEverythingNow(): void {
    for (const task of this.commands.values()) killNow(task.process.pgid, task.process.tag);
    for (const check of this.waitChecks.checks) killNow(check.pgid, check.tag);
    for (const l of this.lingering.values()) killNow(l.pgid, l.tag);
  }

  private assertOpen(): void {
    if (this.closing) throw new DeskhandError('conflict', 'Deskhand is quitting; no new commands start now.');
  }

  private changed(id: string): void {
    if (this.listeners.size === 0) return;
    let task: TaskRow | undefined;
    try {
      task = this.rows.getTask(id);
    } catch {
      return;
    }
    if (task) this.emit({ type: 'task.changed', task });
  }

  private emit(event: TaskEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}

export type { TaskKind, TaskRow, JobRow, TaskStatus };
