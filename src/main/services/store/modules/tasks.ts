/**
 * Background tasks: one table for every kind of task (commands, job batches, wait_for, background questions; later
 * subagents), the jobs of a batch, and the process groups Deskhand has to end. Shared by the app and the detached
 * job worker, each over its own connection to the same database.
 */
import { defineStoreModule, type Sql } from '../module';

export type TaskKind = 'command' | 'job_batch' | 'wait_for' | 'question' | 'subagent' | 'workflow';
export type TaskStatus = 'running' | 'finished' | 'failed' | 'cancelled' | 'timed_out' | 'interrupted';
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['finished', 'failed', 'cancelled', 'timed_out', 'interrupted'];
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';

export interface TaskRow {
  id: string;
  conversation_id: string;
  run_id: string | null;
  call_id: string | null;
  kind: TaskKind;
  title: string;
  /** JSON: what was asked (command, cwd, sandbox, interval…). */
  spec: string;
  /** JSON: progress so far (wait_for checks…). */
  progress: string;
  status: TaskStatus;
  /** 0 while a command still runs in the foreground of the call that started it. */
  background: number;
  exit_code: number | null;
  summary: string | null;
  output_path: string | null;
  owner_pid: number | null;
  owner_start: string | null;
  cancel_requested: number;
  /** 1 when the conversation should be woken with the result. */
  notify: number;
  notified_at: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface JobRow {
  task_id: string;
  idx: number;
  command: string;
  cwd: string;
  retries: number;
  timeout_ms: number;
  status: JobStatus;
  attempts: number;
  exit_code: number | null;
  note: string | null;
  next_attempt_at: number | null;
  output_path: string | null;
  tail: string | null;
  started_at: number | null;
  finished_at: number | null;
}

export interface ProcessGroupRow {
  pgid: number;
  start_time: string;
  tag: string;
  task_id: string | null;
  owner_pid: number;
  owner_start: string;
  created_at: number;
}

export type NewTask = Pick<TaskRow, 'id' | 'conversation_id' | 'run_id' | 'call_id' | 'kind' | 'title' | 'spec' | 'background' | 'notify' | 'output_path' | 'owner_pid' | 'owner_start'>;

const STATUS_LIST = TERMINAL_STATUSES.map((s) => `'${s}'`).join(',');

/** The queries of the tasks module; reached as `store.tasks` (and typed `TaskStore` in services/tasks). */
/** Columns that hold text from outside (a command's tail, a summary of what a task printed): stored redacted. */
const TASK_TEXT = ['title', 'summary', 'progress'] as const;
const JOB_TEXT = ['note', 'tail'] as const;

export class TaskQueries {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  transaction<T>(fn: () => T): T {
    return this.#sql.transaction(fn);
  }

  /** Process bookkeeping (a command's row and process group): survives a crash of Deskhand, not a power loss (Sql). */
  transactionWithoutFsync<T>(fn: () => T): T {
    return this.#sql.transactionWithoutFsync(fn);
  }

  insertTask(row: NewTask): TaskRow {
    const now = Date.now();
    const full: TaskRow = {
      ...row,
      progress: '{}',
      status: 'running',
      exit_code: null,
      summary: null,
      cancel_requested: 0,
      notified_at: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
    this.#sql
      .statement(
        `INSERT INTO background_tasks (id,conversation_id,run_id,call_id,kind,title,spec,progress,status,background,exit_code,summary,output_path,owner_pid,owner_start,cancel_requested,notify,notified_at,created_at,updated_at,finished_at)
         VALUES (@id,@conversation_id,@run_id,@call_id,@kind,@title,@spec,@progress,@status,@background,@exit_code,@summary,@output_path,@owner_pid,@owner_start,@cancel_requested,@notify,@notified_at,@created_at,@updated_at,@finished_at)`,
      )
      .run(this.#sql.fields(full, TASK_TEXT));
    return full;
  }

  getTask(id: string): TaskRow | undefined {
    return this.#sql.statement('SELECT * FROM background_tasks WHERE id = ?').get(id) as TaskRow | undefined;
  }

  /** A conversation's background tasks, newest first (foreground commands excluded). */
  listTasks(conversationId: string | null, opts: { activeOnly?: boolean; limit?: number } = {}): TaskRow[] {
    const where = ['background = 1'];
    const params: unknown[] = [];
    if (conversationId !== null) {
      where.push('conversation_id = ?');
      params.push(conversationId);
    }
    if (opts.activeOnly) where.push("status = 'running'");
    params.push(opts.limit ?? 50);
    return this.#sql.statement(`SELECT * FROM background_tasks WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id LIMIT ?`).all(...params) as TaskRow[];
  }

  runningTasks(kind?: TaskKind): TaskRow[] {
    return kind
      ? (this.#sql.statement("SELECT * FROM background_tasks WHERE status = 'running' AND kind = ? ORDER BY created_at").all(kind) as TaskRow[])
      : (this.#sql.statement("SELECT * FROM background_tasks WHERE status = 'running' ORDER BY created_at").all() as TaskRow[]);
  }

  tasksForRun(runId: string): TaskRow[] {
    return this.#sql.statement("SELECT * FROM background_tasks WHERE run_id = ? AND status = 'running'").all(runId) as TaskRow[];
  }

  /** Tasks changed after `since` (ms), for watchers of rows another process writes (the job worker). */
  changedSince(since: number): TaskRow[] {
    return this.#sql.statement('SELECT * FROM background_tasks WHERE updated_at > ? ORDER BY updated_at').all(since) as TaskRow[];
  }

  updateTask(id: string, patch: Partial<Omit<TaskRow, 'id' | 'conversation_id' | 'created_at'>>): void {
    const fields = Object.keys(patch);
    if (fields.length === 0) return;
    const sets = fields.map((f) => `${f} = @${f}`).join(', ');
    this.#sql.statement(`UPDATE background_tasks SET ${sets}, updated_at = @now WHERE id = @id`).run({ ...this.#sql.fields(patch, TASK_TEXT), id, now: Date.now() });
  }

  /** Moves a running task to a final status; false when it had already ended (the first ending wins). */
  finishTask(id: string, status: TaskStatus, patch: Partial<Pick<TaskRow, 'exit_code' | 'summary' | 'progress' | 'notified_at'>> = {}): boolean {
    const fields = Object.keys(patch);
    const sets = fields.map((f) => `, ${f} = @${f}`).join('');
    const now = Date.now();
    const info = this.#sql
      .statement(`UPDATE background_tasks SET status = @status, finished_at = @now, updated_at = @now${sets} WHERE id = @id AND status = 'running'`)
      .run({ ...this.#sql.fields(patch, TASK_TEXT), status, id, now });
    return info.changes === 1;
  }

  /** Ended background tasks whose conversation has not been told yet. */
  tasksToNotify(): TaskRow[] {
    return this.#sql
      .statement(`SELECT * FROM background_tasks WHERE status IN (${STATUS_LIST}) AND notify = 1 AND background = 1 AND notified_at IS NULL ORDER BY finished_at, id`)
      .all() as TaskRow[];
  }

  /** Marks tasks as told; returns the ids this call claimed (another process may have claimed some first). */
  claimNotifications(ids: readonly string[]): string[] {
    const stmt = this.#sql.statement('UPDATE background_tasks SET notified_at = ?, updated_at = ? WHERE id = ? AND notified_at IS NULL');
    return this.transaction(() => {
      const now = Date.now();
      return ids.filter((id) => stmt.run(now, now, id).changes === 1);
    });
  }

  /** Gives claimed notifications back (the wake-up could not be delivered now). */
  unclaimNotifications(ids: readonly string[]): void {
    const stmt = this.#sql.statement('UPDATE background_tasks SET notified_at = NULL WHERE id = ?');
    this.transaction(() => ids.forEach((id) => stmt.run(id)));
  }

  // Jobs of a batch

  insertJob(row: Pick<JobRow, 'task_id' | 'idx' | 'command' | 'cwd' | 'retries' | 'timeout_ms' | 'output_path'>): void {
    this.#sql
      .statement(
        `INSERT INTO background_jobs (task_id,idx,command,cwd,retries,timeout_ms,status,attempts,output_path)
         VALUES (@task_id,@idx,@command,@cwd,@retries,@timeout_ms,'pending',0,@output_path)`,
      )
      .run(row);
  }

  jobs(taskId: string): JobRow[] {
    return this.#sql.statement('SELECT * FROM background_jobs WHERE task_id = ? ORDER BY idx').all(taskId) as JobRow[];
  }

  getJob(taskId: string, idx: number): JobRow | undefined {
    return this.#sql.statement('SELECT * FROM background_jobs WHERE task_id = ? AND idx = ?').get(taskId, idx) as JobRow | undefined;
  }

  /** Updates a job; with `onlyIf`, only while it still has that status (returns whether it changed). */
  updateJob(taskId: string, idx: number, patch: Partial<Omit<JobRow, 'task_id' | 'idx'>>, onlyIf?: JobStatus | JobStatus[]): boolean {
    const fields = Object.keys(patch);
    if (fields.length === 0) return false;
    const sets = fields.map((f) => `${f} = @${f}`).join(', ');
    const statuses = onlyIf === undefined ? null : Array.isArray(onlyIf) ? onlyIf : [onlyIf];
    const guard = statuses ? ` AND status IN (${statuses.map((s) => `'${s}'`).join(',')})` : '';
    const info = this.#sql.statement(`UPDATE background_jobs SET ${sets} WHERE task_id = @task_id AND idx = @idx${guard}`).run({ ...this.#sql.fields(patch, JOB_TEXT), task_id: taskId, idx });
    if (info.changes === 1) this.#sql.statement('UPDATE background_tasks SET updated_at = ? WHERE id = ?').run(Date.now(), taskId);
    return info.changes === 1;
  }

  /** Records the worker just launched for a batch as its owner, while the batch still runs. */
  setBatchOwner(batchId: string, pid: number, start: string): void {
    this.#sql.run("UPDATE background_tasks SET owner_pid = ?, owner_start = ?, updated_at = ? WHERE id = ? AND status = 'running'", pid, start, Date.now(), batchId);
  }

  /** Tasks that ended before `cutoff` (ms) and still have an output log (their own or one of their jobs'). */
  endedWithLogs(cutoff: number): { id: string; output_path: string | null }[] {
    return this.#sql.all(
      `SELECT id, output_path FROM background_tasks t WHERE finished_at IS NOT NULL AND finished_at < ?
       AND (output_path IS NOT NULL OR EXISTS (SELECT 1 FROM background_jobs j WHERE j.task_id = t.id AND j.output_path IS NOT NULL))`,
      cutoff,
    );
  }

  /** Forgets the output logs of a task and its jobs (after the files were deleted). */
  clearOutputPaths(taskId: string): void {
    this.transaction(() => {
      this.updateTask(taskId, { output_path: null });
      this.#sql.run('UPDATE background_jobs SET output_path = NULL WHERE task_id = ?', taskId);
    });
  }

  // Process groups

  insertGroup(row: Omit<ProcessGroupRow, 'created_at'>): void {
    this.#sql
      .statement('INSERT OR REPLACE INTO process_groups (pgid,start_time,tag,task_id,owner_pid,owner_start,created_at) VALUES (?,?,?,?,?,?,?)')
      .run(row.pgid, row.start_time, row.tag, row.task_id, row.owner_pid, row.owner_start, Date.now());
  }

  deleteGroup(tag: string): void {
    this.#sql.statement('DELETE FROM process_groups WHERE tag = ?').run(tag);
  }

  groups(): ProcessGroupRow[] {
    return this.#sql.statement('SELECT * FROM process_groups ORDER BY created_at').all() as ProcessGroupRow[];
  }

  groupsForTask(taskId: string): ProcessGroupRow[] {
    return this.#sql.statement('SELECT * FROM process_groups WHERE task_id = ?').all(taskId) as ProcessGroupRow[];
  }
}

export const tasksModule = defineStoreModule({
  name: 'tasks',
  migrations: [
    {
      description: 'background tasks (commands, job batches and their jobs, wait_for) and the process groups Deskhand must end',
      legacyUserVersion: 2,
      sql: `
      CREATE TABLE background_tasks (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        run_id TEXT,
        call_id TEXT,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        spec TEXT NOT NULL DEFAULT '{}',
        progress TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL CHECK (status IN ('running','finished','failed','cancelled','timed_out','interrupted')),
        background INTEGER NOT NULL DEFAULT 1,
        exit_code INTEGER,
        summary TEXT,
        output_path TEXT,
        owner_pid INTEGER,
        owner_start TEXT,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        notify INTEGER NOT NULL DEFAULT 1,
        notified_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX background_tasks_conversation ON background_tasks(conversation_id, created_at);
      CREATE INDEX background_tasks_status ON background_tasks(status, notified_at);
      CREATE TABLE background_jobs (
        task_id TEXT NOT NULL REFERENCES background_tasks(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        command TEXT NOT NULL,
        cwd TEXT NOT NULL,
        retries INTEGER NOT NULL DEFAULT 0,
        timeout_ms INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','running','succeeded','failed','cancelled','interrupted')),
        attempts INTEGER NOT NULL DEFAULT 0,
        exit_code INTEGER,
        note TEXT,
        next_attempt_at INTEGER,
        output_path TEXT,
        tail TEXT,
        started_at INTEGER,
        finished_at INTEGER,
        PRIMARY KEY (task_id, idx)
      );
      CREATE TABLE process_groups (
        pgid INTEGER NOT NULL,
        start_time TEXT NOT NULL,
        tag TEXT NOT NULL,
        task_id TEXT,
        owner_pid INTEGER NOT NULL,
        owner_start TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (pgid, start_time)
      );`,
    },
  ],
  queries: (sql: Sql) => new TaskQueries(sql),
});
