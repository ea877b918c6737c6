/**
 * Input requests: everything a run asks a person (the `approvals` table keeps its name: approvals were the first
 * kind). Each is bound to a tool call, single use, and answered from any process.
 */
import type { RiskTier } from '../../../../shared/tools';
import { defineStoreModule, type Sql } from '../module';

export interface ApprovalRow {
  id: string;
  run_id: string;
  tool_call_id: string;
  tool: string;
  args_sha256: string;
  risk: RiskTier;
  reasons: string;
  description: string;
  preview: string | null;
  always_pattern: string | null;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  /** 'approval' (the default), 'secret', 'question', 'file_pick', 'app_grant', …: what is asked. */
  kind: string;
  /** JSON of what the person is shown: the request's schema, prompt and data; null for plain approvals. */
  request: string | null;
  /** JSON of the answer, already redacted by the caller; null until answered (and for plain approvals). */
  answer: string | null;
  always: number;
  reason: string | null;
  created_at: number;
  decided_at: number | null;
  /** The background task (a `question` task) this request belongs to; null when its tool call waits for it. */
  task_id: string | null;
}

/** A pending request with what the UI shows beside it (its run, conversation and tool call). */
export interface PendingApprovalContextRow extends ApprovalRow {
  conv_id: string;
  run_status: string;
  conv_title: string;
  conv_folder: string;
  call_id: string;
  call_args: string;
}

export type NewApproval = Omit<ApprovalRow, 'status' | 'always' | 'reason' | 'created_at' | 'decided_at' | 'kind' | 'request' | 'answer' | 'task_id'> & {
  kind?: string;
  request?: string | null;
  task_id?: string | null;
};

export const inputRequestsModule = defineStoreModule({
  name: 'input-requests',
  migrations: [
    {
      description: 'approvals',
      legacyUserVersion: 1,
      sql: `
      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL REFERENCES tool_calls(id) ON DELETE CASCADE,
        tool TEXT NOT NULL,
        args_sha256 TEXT NOT NULL,
        risk TEXT NOT NULL,
        reasons TEXT NOT NULL,
        description TEXT NOT NULL,
        preview TEXT,
        always_pattern TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending','approved','denied','expired')),
        always INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        created_at INTEGER NOT NULL,
        decided_at INTEGER
      );
      CREATE INDEX approvals_status ON approvals(status);`,
    },
    {
      description: 'input requests beside approvals (ask_user_secret parks like an approval)',
      legacyUserVersion: 3,
      sql: `ALTER TABLE approvals ADD COLUMN kind TEXT NOT NULL DEFAULT 'approval';`,
    },
    {
      description: 'generic input requests: what is asked (request) and what was answered (answer), both JSON',
      sql: `
      ALTER TABLE approvals ADD COLUMN request TEXT;
      ALTER TABLE approvals ADD COLUMN answer TEXT;
      CREATE INDEX approvals_tool_call ON approvals(tool_call_id, created_at);
      CREATE INDEX approvals_run ON approvals(run_id, created_at);`,
    },
    {
      description: 'requests of background tasks (ask_user_question with background): answered without their call or run',
      sql: `ALTER TABLE approvals ADD COLUMN task_id TEXT;`,
    },
  ],
  queries: (sql: Sql) => ({
    insert(row: NewApproval): ApprovalRow {
      const full: ApprovalRow = {
        id: row.id,
        run_id: row.run_id,
        tool_call_id: row.tool_call_id,
        tool: row.tool,
        args_sha256: row.args_sha256,
        risk: row.risk,
        reasons: row.reasons,
        description: row.description,
        preview: row.preview,
        always_pattern: row.always_pattern,
        status: 'pending',
        kind: row.kind ?? 'approval',
        request: row.request ?? null,
        answer: null,
        always: 0,
        reason: null,
        created_at: Date.now(),
        decided_at: null,
        task_id: row.task_id ?? null,
      };
      sql.run(
        `INSERT INTO approvals (id,run_id,tool_call_id,tool,args_sha256,risk,reasons,description,preview,always_pattern,kind,request,answer,status,always,reason,created_at,decided_at,task_id)
         VALUES (@id,@run_id,@tool_call_id,@tool,@args_sha256,@risk,@reasons,@description,@preview,@always_pattern,@kind,@request,@answer,@status,@always,@reason,@created_at,@decided_at,@task_id)`,
        full,
      );
      return full;
    },
    get: (id: string) => sql.one<ApprovalRow>('SELECT * FROM approvals WHERE id = ?', id),
    /** Pending requests: all of them, or what a run waits for (a background task's request keeps no run waiting). */
    pending: (runId?: string) =>
      runId
        ? sql.all<ApprovalRow>("SELECT * FROM approvals WHERE status = 'pending' AND run_id = ? AND task_id IS NULL ORDER BY created_at", runId)
        : sql.all<ApprovalRow>("SELECT * FROM approvals WHERE status = 'pending' ORDER BY created_at"),
    forRun: (runId: string) => sql.all<ApprovalRow>('SELECT * FROM approvals WHERE run_id = ? ORDER BY created_at', runId),
    latestForCall: (toolCallId: string) => sql.one<ApprovalRow>('SELECT * FROM approvals WHERE tool_call_id = ? ORDER BY created_at DESC LIMIT 1', toolCallId),
    forConversation: (conversationId: string) =>
      sql.all<ApprovalRow>('SELECT a.* FROM approvals a JOIN runs r ON r.id = a.run_id WHERE r.conversation_id = ? ORDER BY a.created_at', conversationId),
    pendingCountsByConversation: () =>
      sql.all<{ id: string; n: number }>(
        "SELECT r.conversation_id AS id, count(*) AS n FROM approvals a JOIN runs r ON r.id = a.run_id WHERE a.status = 'pending' GROUP BY r.conversation_id",
      ),
    pendingWithContext: () =>
      sql.all<PendingApprovalContextRow>(
        `SELECT a.*, r.conversation_id AS conv_id, r.status AS run_status, c.title AS conv_title, c.folder AS conv_folder,
                tc.call_id AS call_id, tc.args AS call_args
           FROM approvals a
           JOIN runs r ON r.id = a.run_id
           JOIN conversations c ON c.id = r.conversation_id
           JOIN tool_calls tc ON tc.id = a.tool_call_id
          WHERE a.status = 'pending'
          ORDER BY a.created_at`,
      ),
    decide: (id: string, status: 'approved' | 'denied', always: boolean, reason: string | null) =>
      sql.run("UPDATE approvals SET status = ?, always = ?, reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'", status, always ? 1 : 0, reason, Date.now(), id)
        .changes === 1,
    answer: (id: string, status: 'approved' | 'denied', answer: string | null, reason: string | null) =>
      sql.run("UPDATE approvals SET status = ?, answer = ?, reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'", status, answer, reason, Date.now(), id)
        .changes === 1,
    forTask: (taskId: string) => sql.all<ApprovalRow>('SELECT * FROM approvals WHERE task_id = ? ORDER BY created_at', taskId),
    expire: (id: string, reason: string) =>
      sql.run("UPDATE approvals SET status = 'expired', reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'", reason, Date.now(), id).changes === 1,
  }),
});
