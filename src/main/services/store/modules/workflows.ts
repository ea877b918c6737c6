/**
 * Workflows: one row per workflow run (its script, args, resolved limits, status, current phase, each phase's output,
 * spend summed over its children, result or error), its event log (phases, progress, log lines, children) and its
 * journal: every API call the script made, in the order it made them, with the answer it got — what lets a parked run
 * replay its script in another process and continue at the call that parked (workflow-service.ts).
 */
import { defineStoreModule, setClause, type Sql } from '../module';

/** `parked`: its script is not running anywhere; a child waits for a person, and an answer from any process replays it. */
export type WorkflowStatus = 'running' | 'parked' | 'finished' | 'failed' | 'cancelled' | 'interrupted';
export const WORKFLOW_TERMINAL: readonly WorkflowStatus[] = ['finished', 'failed', 'cancelled', 'interrupted'];

export interface WorkflowPhase {
  name: string;
  status: 'running' | 'done';
  output: string | null;
  started_at: number;
  ended_at: number | null;
}

export interface WorkflowRow {
  id: string;
  conversation_id: string;
  run_id: string;
  call_id: string;
  task_id: string | null;
  /** The catalog name, or null for an inline script. */
  name: string | null;
  script: string;
  args: string;
  /** JSON: {maxMinutes, maxTokens, maxCostUSD, maxAgents, maxConcurrency}. */
  limits: string;
  status: WorkflowStatus;
  phase: string | null;
  /** JSON array of WorkflowPhase. */
  phases: string;
  progress: string | null;
  agents: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  result: string | null;
  error: string | null;
  owner_pid: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface WorkflowEvent {
  id: number;
  workflow_id: string;
  at: number;
  kind: 'phase' | 'phase_output' | 'progress' | 'log' | 'agent' | 'ask' | 'park' | 'resume' | 'end';
  text: string;
}

/**
 * One API call of a run's script: its place in the order the script made its calls (`seq`, from 1), what it asked
 * (method, a hash of its arguments, a short summary for messages) and, once answered, the answer (`ok`: the JSON
 * value; `error`: the message). `issued`: asked and not answered when the run parked (the call that parked).
 */
export interface WorkflowJournalEntry {
  workflow_id: string;
  seq: number;
  method: string;
  args_sha256: string;
  summary: string;
  status: 'issued' | 'ok' | 'error';
  payload: string | null;
}

export type NewWorkflow = Pick<WorkflowRow, 'id' | 'conversation_id' | 'run_id' | 'call_id' | 'name' | 'script' | 'args' | 'limits'>;
export type WorkflowPatch = Partial<Omit<WorkflowRow, 'id' | 'conversation_id' | 'created_at'>>;

export const workflowsModule = defineStoreModule({
  name: 'workflows',
  migrations: [
    {
      description: 'workflow runs and their event log',
      sql: `
      CREATE TABLE workflow_runs (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        task_id TEXT,
        name TEXT,
        script TEXT NOT NULL,
        args TEXT NOT NULL,
        limits TEXT NOT NULL,
        status TEXT NOT NULL,
        phase TEXT,
        phases TEXT NOT NULL DEFAULT '[]',
        progress TEXT,
        agents INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        result TEXT,
        error TEXT,
        owner_pid INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX workflow_runs_conversation ON workflow_runs(conversation_id, created_at);
      CREATE TABLE workflow_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        workflow_id TEXT NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL
      );
      CREATE INDEX workflow_events_run ON workflow_events(workflow_id, id);`,
    },
    {
      description: 'the journal of each workflow run (its calls and their answers), to replay a parked run',
      sql: `
      CREATE TABLE workflow_journal (
        workflow_id TEXT NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        method TEXT NOT NULL,
        args_sha256 TEXT NOT NULL,
        summary TEXT NOT NULL,
        status TEXT NOT NULL,
        payload TEXT,
        PRIMARY KEY (workflow_id, seq)
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    insert(row: NewWorkflow): WorkflowRow {
      const now = Date.now();
      sql.run(
        `INSERT INTO workflow_runs (id, conversation_id, run_id, call_id, name, script, args, limits, status, owner_pid, created_at, updated_at)
         VALUES (@id, @conversation_id, @run_id, @call_id, @name, @script, @args, @limits, 'running', @owner_pid, @now, @now)`,
        { ...row, owner_pid: process.pid, now },
      );
      return sql.one<WorkflowRow>('SELECT * FROM workflow_runs WHERE id = ?', row.id)!;
    },
    get: (id: string) => sql.one<WorkflowRow>('SELECT * FROM workflow_runs WHERE id = ?', id),
    byTask: (taskId: string) => sql.one<WorkflowRow>('SELECT * FROM workflow_runs WHERE task_id = ?', taskId),
    list: (limit = 100) => sql.all<WorkflowRow>('SELECT * FROM workflow_runs ORDER BY created_at DESC LIMIT ?', limit),
    forConversation: (conversationId: string) => sql.all<WorkflowRow>('SELECT * FROM workflow_runs WHERE conversation_id = ? ORDER BY created_at', conversationId),
    running: () => sql.all<WorkflowRow>("SELECT * FROM workflow_runs WHERE status = 'running'"),
    /** The run whose script made the call a child was started by (`<call id>#<seq>`), when it is a workflow's. */
    byChildCall: (runId: string, childCallId: string) => sql.one<WorkflowRow>("SELECT * FROM workflow_runs WHERE run_id = ? AND ? LIKE call_id || '#%'", runId, childCallId),
    update(id: string, patch: WorkflowPatch): void {
      const full = { ...sql.fields(patch, ['progress', 'result', 'error', 'phase', 'phases']), updated_at: Date.now() };
      sql.run(`UPDATE workflow_runs SET ${setClause(full)} WHERE id = @id`, { ...full, id });
    },
    /** Ends a run unless it already ended; false when it had. */
    finish(id: string, status: WorkflowStatus, patch: { result?: string | null; error?: string | null }): boolean {
      const now = Date.now();
      return (
        sql.run(
          `UPDATE workflow_runs SET status = @status, result = @result, error = @error, finished_at = @now, updated_at = @now WHERE id = @id AND status IN ('running', 'parked')`,
          { id, status, result: sql.text(patch.result ?? null), error: sql.text(patch.error ?? null), now },
        ).changes > 0
      );
    },
    event(workflowId: string, kind: WorkflowEvent['kind'], text: string): void {
      sql.run('INSERT INTO workflow_events (workflow_id, at, kind, text) VALUES (?, ?, ?, ?)', workflowId, Date.now(), kind, sql.text(text.slice(0, 4000)));
    },
    /** Marks a running run parked (false when it was not running); and a parked one running again, owned here. */
    park: (id: string) => sql.run("UPDATE workflow_runs SET status = 'parked', updated_at = ? WHERE id = ? AND status = 'running'", Date.now(), id).changes > 0,
    unpark: (id: string) => sql.run("UPDATE workflow_runs SET status = 'running', owner_pid = ?, updated_at = ? WHERE id = ? AND status = 'parked'", process.pid, Date.now(), id).changes > 0,
    journal: (workflowId: string) => sql.all<WorkflowJournalEntry>('SELECT * FROM workflow_journal WHERE workflow_id = ? ORDER BY seq', workflowId),
    /** A call as the script made it (before its answer). */
    issue(e: Pick<WorkflowJournalEntry, 'workflow_id' | 'seq' | 'method' | 'args_sha256' | 'summary'>): void {
      sql.run("INSERT OR IGNORE INTO workflow_journal (workflow_id, seq, method, args_sha256, summary, status) VALUES (@workflow_id, @seq, @method, @args_sha256, @summary, 'issued')", { ...e, summary: sql.text(e.summary) });
    },
    answer(workflowId: string, seq: number, status: 'ok' | 'error', payload: string | null): void {
      sql.run('UPDATE workflow_journal SET status = ?, payload = ? WHERE workflow_id = ? AND seq = ?', status, payload === null ? null : sql.text(payload), workflowId, seq);
    },
    events: (workflowId: string, limit = 500) => sql.all<WorkflowEvent>('SELECT * FROM (SELECT * FROM workflow_events WHERE workflow_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id', workflowId, limit),
  }),
});
