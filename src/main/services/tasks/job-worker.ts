/**
 * The job worker: runs one batch of `run_background_jobs` in its own process, ending with the Deskhand process that
 * started it (nothing keeps working after Deskhand stops). Everything it knows lives in the store: a worker started
 * later for the same batch (when Deskhand starts again) ends what this one left running and carries on from there.
 */
import { CommandProcess, stopRecordedGroup } from '../processes/command-process';
import { isSameProcess, selfIdentity, type ProcIdentity } from '../processes/proc-info';
import { TaskLog, readLogPage } from '../processes/task-log';
import { planSandbox } from '../sandbox/sandbox';
import { Store } from '../store/store';
import type { BatchSpec } from './background-tasks';
import { TaskStore, type JobRow } from './task-store';
import { formatDuration, parseJson } from './task-text';

const TAIL_BYTES = 4 * 1024;
const MAX_BACKOFF_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function backoffDelay(baseMs: number, failedAttempts: number): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, failedAttempts - 1));
}

export interface WorkerOptions {
  dataDir: string;
  batchId: string;
  pollMs?: number;
  /**
   * The Deskhand process this worker serves. Nothing keeps working after Deskhand stops: once it is gone (SIGTERM,
   * Ctrl-C, a crash), the worker stops its jobs as on SIGTERM and leaves the batch for the next start to resume.
   */
  parent?: ProcIdentity;
}

/** Runs the batch to its end. Resolves with how it ended ('not mine' when another live worker owns it). */
export async function runBatch(opts: WorkerOptions): Promise<string> {
  const store = new Store(opts.dataDir);
  const rows = store.tasks;
  const me = selfIdentity();
  const pollMs = opts.pollMs ?? 200;
  const live = new Map<number, { proc: CommandProcess; log: TaskLog; timer: NodeJS.Timeout; done: Promise<void> }>();
  let stopping = false;

  const claimed = rows.transaction(() => {
    const batch = rows.getTask(opts.batchId);
    if (!batch || batch.status !== 'running' || batch.kind !== 'job_batch') return null;
    if (batch.owner_pid && batch.owner_pid !== me.pid && isSameProcess(batch.owner_pid, batch.owner_start)) return null;
    rows.updateTask(batch.id, { owner_pid: me.pid, owner_start: me.start });
    return batch;
  });
  if (!claimed) {
    store.close();
    return 'not mine';
  }
  const spec = parseJson<BatchSpec>(claimed.spec, { concurrency: 2, backoffMs: 1000, sandbox: { mode: 'workspace-write', network: false, outside: false, roots: [], dataDir: opts.dataDir } });

  // Jobs a dead worker left running: end what is left of them, then retry them or report them interrupted.
  for (const job of rows.jobs(opts.batchId)) {
    if (job.status !== 'running') continue;
    for (const g of rows.groupsForTask(`${opts.batchId}.${job.idx}`)) {
      if (isSameProcess(g.owner_pid, g.owner_start)) continue;
      await stopRecordedGroup(g);
      rows.deleteGroup(g.tag);
    }
    const note = 'the worker running it stopped';
    if (job.attempts <= job.retries) {
      rows.updateJob(opts.batchId, job.idx, { status: 'pending', note: `${note}; started again`, next_attempt_at: Date.now() }, 'running');
    } else {
      rows.updateJob(opts.batchId, job.idx, { status: 'interrupted', note: `${note} (no retries left)`, finished_at: Date.now(), tail: tailOf(job.output_path) }, 'running');
    }
  }

  const start = (job: JobRow): void => {
    const attempt = job.attempts + 1;
    if (!rows.updateJob(opts.batchId, job.idx, { status: 'running', attempts: attempt, started_at: Date.now(), next_attempt_at: null }, 'pending')) return;
    const log = new TaskLog(job.output_path ?? `${opts.dataDir}/tasks/${opts.batchId}.${job.idx}.log`);
    if (attempt > 1) log.write(`\n=== attempt ${attempt} (${new Date().toISOString()}) ===\n`);
    const plan = planSandbox({ ...spec.sandbox, cwd: job.cwd });
    const proc = new CommandProcess({ command: job.command, cwd: job.cwd, sandbox: plan, log });
    if (proc.pgid !== undefined) {
      rows.insertGroup({ pgid: proc.pgid, start_time: proc.startTime ?? 'exited', tag: proc.tag, task_id: `${opts.batchId}.${job.idx}`, owner_pid: me.pid, owner_start: me.start });
    }
    const timer = setTimeout(() => void proc.stop('timeout'), job.timeout_ms);
    const done = proc.exited.then(async (exit) => {
      clearTimeout(timer);
      await log.close();
      rows.deleteGroup(proc.tag);
      live.delete(job.idx);
      const tail = tailOf(log.path);
      const took = formatDuration(exit.durationMs);
      if (proc.stopReason === 'shutdown') {
        // Stopped because this worker is stopping: a later worker runs it again; this attempt does not count.
        rows.updateJob(opts.batchId, job.idx, { status: 'pending', attempts: attempt - 1, note: 'stopped with the worker; will run again', tail }, 'running');
        return;
      }
      const failed = proc.stopReason === 'timeout' ? `timed out after ${took}` : exit.error ? `could not start: ${exit.error}` : exit.code === 0 ? null : exit.code === null ? `killed by ${exit.signal ?? 'a signal'}` : `exit code ${exit.code}`;
      if (!failed) {
        rows.updateJob(opts.batchId, job.idx, { status: 'succeeded', exit_code: 0, note: attempt > 1 ? `succeeded on attempt ${attempt}` : null, finished_at: Date.now(), tail }, 'running');
      } else if (attempt <= job.retries) {
        const delay = backoffDelay(spec.backoffMs, attempt);
        rows.updateJob(opts.batchId, job.idx, { status: 'pending', exit_code: exit.code, note: `attempt ${attempt} failed (${failed}); retrying in ${formatDuration(delay)}`, next_attempt_at: Date.now() + delay, tail }, 'running');
      } else {
        const note = `${failed}${attempt > 1 ? ` on attempt ${attempt} of ${job.retries + 1}` : ''}`;
        rows.updateJob(opts.batchId, job.idx, { status: 'failed', exit_code: exit.code, note, finished_at: Date.now(), tail }, 'running');
      }
    });
    live.set(job.idx, { proc, log, timer, done });
  };

  const stopAll = async (reason: 'shutdown' | 'cancelled'): Promise<void> => {
    await Promise.all([...live.values()].map(async (l) => {
      await l.proc.stop(reason);
      await l.done;
    }));
  };

  const onSignal = () => {
    stopping = true;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onSignal);

  let outcome = 'finished';
  try {
    for (;;) {
      const batch = rows.getTask(opts.batchId);
      if (!batch || batch.status !== 'running' || batch.owner_pid !== me.pid) {
        // Deleted with its conversation, closed by someone else, or taken over: stop what runs and leave.
        await stopAll('cancelled');
        outcome = batch ? 'taken over' : 'gone';
        break;
      }
      if (!stopping && opts.parent && !isSameProcess(opts.parent.pid, opts.parent.start)) stopping = true;
      if (stopping) {
        await stopAll('shutdown');
        outcome = 'stopped';
        break;
      }
      const jobs = rows.jobs(opts.batchId);
      // Jobs cancelled from the app: their processes are ended there too; make sure here.
      for (const job of jobs) {
        const l = live.get(job.idx);
        if (l && job.status === 'cancelled') void l.proc.stop('cancelled');
      }
      const now = Date.now();
      for (const job of jobs) {
        if (live.size >= Math.max(1, spec.concurrency)) break;
        if (job.status === 'pending' && !live.has(job.idx) && (job.next_attempt_at ?? 0) <= now) start(job);
      }
      if (live.size === 0 && !rows.jobs(opts.batchId).some((j) => j.status === 'pending' || j.status === 'running')) {
        finishBatch(rows, opts.batchId, batch.cancel_requested === 1);
        break;
      }
      await sleep(pollMs);
    }
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onSignal);
    store.close();
  }
  return outcome;
}

function finishBatch(rows: TaskStore, batchId: string, cancelled: boolean): void {
  const jobs = rows.jobs(batchId);
  const count = (s: string) => jobs.filter((j) => j.status === s).length;
  const ok = count('succeeded');
  const bad = count('failed') + count('interrupted');
  const summary = `${jobs.length} job${jobs.length === 1 ? '' : 's'}: ${ok} succeeded${bad ? `, ${bad} failed` : ''}${count('cancelled') ? `, ${count('cancelled')} cancelled` : ''}`;
  rows.finishTask(batchId, cancelled ? 'cancelled' : bad > 0 ? 'failed' : 'finished', { summary, exit_code: bad > 0 ? 1 : 0 });
}

function tailOf(path: string | null): string | null {
  if (!path) return null;
  const page = readLogPage(path, undefined, TAIL_BYTES);
  return page.total > page.text.length ? `[… ${page.offset} earlier bytes …]\n${page.text}` : page.text;
}

