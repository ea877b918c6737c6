/** Runs of the agent loop, the messages of a conversation, and the tool calls of each step. */
import type { Policy, RiskTier } from '../../../../shared/tools';
import type { RunStatus } from '../../../../shared/events';
import { selfIdentity } from '../../processes/proc-info';
import { defineStoreModule, setClause, type Sql } from '../module';

export interface MessageRow {
  id: number;
  conversation_id: string;
  run_id: string | null;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  created_at: number;
}

export interface RunRow {
  id: string;
  conversation_id: string;
  status: RunStatus;
  policy: Policy;
  provider: string;
  model: string;
  base_url: string | null;
  step: number;
  input_tokens: number;
  output_tokens: number;
  /** Of input_tokens: read from / written to the provider's prompt cache. */
  cache_read_tokens: number;
  cache_write_tokens: number;
  tainted: number;
  error: string | null;
  owner_pid: number | null;
  /** The owner's process start time (proc-info.ts), so a later process that got the same pid is not taken for it. */
  owner_start: string | null;
  created_at: number;
  updated_at: number;
}

export type ToolCallStatus = 'pending' | 'awaiting_approval' | 'approved' | 'running' | 'done' | 'error' | 'denied' | 'interrupted';

export interface ToolCallRow {
  id: string;
  run_id: string;
  step: number;
  position: number;
  call_id: string;
  tool: string;
  args: string;
  args_sha256: string;
  risk: RiskTier | null;
  decision: string | null;
  reasons: string;
  status: ToolCallStatus;
  output: string | null;
  is_error: number;
  /** JSON of the path checks (runtime/decision/path-guard.ts) the call was decided on, or null. */
  paths: string | null;
  created_at: number;
  finished_at: number | null;
}

export type NewRun = Pick<RunRow, 'id' | 'conversation_id' | 'policy' | 'provider' | 'model' | 'base_url'>;
export type RunPatch = Partial<Omit<RunRow, 'id' | 'conversation_id' | 'created_at'>>;
export type NewToolCall = Omit<ToolCallRow, 'created_at' | 'finished_at' | 'output' | 'is_error' | 'paths'>;
export type ToolCallPatch = Partial<Pick<ToolCallRow, 'risk' | 'decision' | 'reasons' | 'status' | 'output' | 'is_error' | 'finished_at' | 'paths'>>;

/** SQL for the readable text of a message row (`alias.content`): a JSON string, or the text parts of an array. */
const MESSAGE_TEXT = (alias: string) => `CASE json_type(${alias}.content)
  WHEN 'text' THEN json_extract(${alias}.content, '$')
  WHEN 'array' THEN (SELECT group_concat(json_extract(value, '$.text'), ' ') FROM json_each(${alias}.content) WHERE json_extract(value, '$.type') = 'text')
  ELSE '' END`;

/** One full-text match: the message and a snippet with the matched words between \u0002 and \u0003. */
export interface MessageMatchRow {
  message_id: number;
  conversation_id: string;
  role: 'user' | 'assistant';
  snippet: string;
  created_at: number;
}

type CallKey = Readonly<Pick<ToolCallRow, 'call_id' | 'step' | 'tool' | 'args'>>;

/** Per connection, the call keys of the runs asked about lately (a run's steps ask again and again). */
const callKeys = new WeakMap<Sql, Map<string, CallKey[]>>();
const CALL_KEY_RUNS = 32;

/**
 * A run's call keys, in step and position order: the ones read before for this run and those of the steps after
 * the last of them (a run goes on a step at a time, so each step reads only the step before it). Inside a
 * transaction (rows that may yet be rolled back) the whole list is read and nothing is kept.
 */
function callKeysSince(sql: Sql, runId: string): CallKey[] {
  const query = 'SELECT call_id, step, tool, args FROM tool_calls WHERE run_id = ? AND step > ? ORDER BY step, position';
  if (sql.inTransaction) return sql.all<CallKey>(query, runId, -1);
  let perRun = callKeys.get(sql);
  if (!perRun) callKeys.set(sql, (perRun = new Map()));
  const kept = perRun.get(runId) ?? [];
  const after = kept.length ? kept[kept.length - 1]!.step : -1;
  const rows = [...kept, ...sql.all<CallKey>(query, runId, after).map((r) => Object.freeze(r))];
  perRun.delete(runId);
  perRun.set(runId, rows);
  if (perRun.size > CALL_KEY_RUNS) perRun.delete(perRun.keys().next().value!);
  return rows.slice();
}

export const runsModule = defineStoreModule({
  name: 'runs',
  migrations: [
    {
      description: 'messages, runs and tool calls',
      legacyUserVersion: 1,
      sql: `
      CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        run_id TEXT,
        role TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
        content TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX messages_conversation ON messages(conversation_id, id);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        policy TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        base_url TEXT,
        step INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        tainted INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        owner_pid INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX runs_conversation ON runs(conversation_id, created_at);
      CREATE INDEX runs_status ON runs(status);
      CREATE TABLE tool_calls (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        position INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL,
        args_sha256 TEXT NOT NULL,
        risk TEXT,
        decision TEXT,
        reasons TEXT NOT NULL DEFAULT '[]',
        status TEXT NOT NULL,
        output TEXT,
        is_error INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (run_id, call_id)
      );
      CREATE INDEX tool_calls_run ON tool_calls(run_id, step, position);`,
    },
    {
      description: 'the path checks a call was decided on (the tool is refused when a path resolves elsewhere by the time it runs)',
      legacyUserVersion: 3,
      sql: `ALTER TABLE tool_calls ADD COLUMN paths TEXT;`,
    },
    {
      description: "the owner's process start time, so run liveness survives pid reuse",
      sql: `ALTER TABLE runs ADD COLUMN owner_start TEXT;`,
    },
    {
      // Full-text search over what people read: user messages (a JSON string) and the text parts of assistant
      // messages (a JSON array of parts). Kept by triggers, so every writer (any process) keeps it in step.
      description: 'full-text search over message text (FTS5)',
      sql: `
      CREATE VIRTUAL TABLE messages_fts USING fts5(text, conversation_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN NEW.role IN ('user', 'assistant') AND json_valid(NEW.content) BEGIN
        INSERT INTO messages_fts (rowid, text, conversation_id) VALUES (NEW.id, ${MESSAGE_TEXT('NEW')}, NEW.conversation_id);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        DELETE FROM messages_fts WHERE rowid = OLD.id;
      END;
      INSERT INTO messages_fts (rowid, text, conversation_id)
        SELECT id, ${MESSAGE_TEXT('messages')}, conversation_id FROM messages WHERE role IN ('user', 'assistant') AND json_valid(content);`,
    },
    {
      // Most assistant messages of a working agent are tool calls only: indexing them added an empty document (its
      // content copy, size row and averages) to every step's commit.
      description: 'full-text search skips messages without text',
      sql: `
      DROP TRIGGER messages_fts_insert;
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
        WHEN NEW.role IN ('user', 'assistant') AND json_valid(NEW.content) AND coalesce(${MESSAGE_TEXT('NEW')}, '') != '' BEGIN
        INSERT INTO messages_fts (rowid, text, conversation_id) VALUES (NEW.id, ${MESSAGE_TEXT('NEW')}, NEW.conversation_id);
      END;
      DELETE FROM messages_fts WHERE coalesce(text, '') = '';`,
    },
    {
      description: 'prompt-cache tokens of a run (read and written), priced apart from the other input tokens',
      sql: `
      ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;`,
    },
  ],
  queries: (sql: Sql) => ({
    /** `match` is an FTS5 query (built by the caller from words, never raw input); newest first. */
    searchMessages(match: string, limit: number): MessageMatchRow[] {
      return sql.all<MessageMatchRow>(
        `SELECT m.id AS message_id, m.conversation_id, m.role, snippet(messages_fts, 0, char(2), char(3), '…', 12) AS snippet, m.created_at
           FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
          WHERE messages_fts MATCH ? ORDER BY m.id DESC LIMIT ?`,
        match,
        limit,
      );
    },
    // Messages
    addMessage(conversationId: string, runId: string | null, role: MessageRow['role'], content: string, now: number): number {
      const info = sql.run('INSERT INTO messages (conversation_id, run_id, role, content, created_at) VALUES (?,?,?,?,?)', conversationId, runId, role, content, now);
      return Number(info.lastInsertRowid);
    },
    listMessages: (conversationId: string) => sql.all<MessageRow>('SELECT * FROM messages WHERE conversation_id = ? ORDER BY id', conversationId),
    messagesAfter: (conversationId: string, afterId: number) =>
      sql.all<Pick<MessageRow, 'id' | 'role' | 'content'>>('SELECT id, role, content FROM messages WHERE conversation_id = ? AND id > ? ORDER BY id', conversationId, afterId),
    lastMessage: (conversationId: string) => sql.one<MessageRow>('SELECT * FROM messages WHERE conversation_id = ? ORDER BY id DESC LIMIT 1', conversationId),
    countMessages: (conversationId: string) => sql.one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE conversation_id = ?', conversationId)!.n,
    countMessagesAfter: (conversationId: string, afterId: number) =>
      sql.one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE conversation_id = ? AND id > ?', conversationId, afterId)!.n,
    lastMessageWithRole: (conversationId: string, role: MessageRow['role']) =>
      sql.one<MessageRow>('SELECT * FROM messages WHERE conversation_id = ? AND role = ? ORDER BY id DESC LIMIT 1', conversationId, role),

    // Runs
    createRun(row: NewRun): RunRow {
      const now = Date.now();
      const me = selfIdentity();
      const full: RunRow = {
        id: row.id,
        conversation_id: row.conversation_id,
        status: 'running',
        policy: row.policy,
        provider: row.provider,
        model: row.model,
        base_url: row.base_url,
        step: 0,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        tainted: 0,
        error: null,
        owner_pid: me.pid,
        owner_start: me.start,
        created_at: now,
        updated_at: now,
      };
      sql.run(
        `INSERT INTO runs (id,conversation_id,status,policy,provider,model,base_url,step,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,tainted,error,owner_pid,owner_start,created_at,updated_at)
         VALUES (@id,@conversation_id,@status,@policy,@provider,@model,@base_url,@step,@input_tokens,@output_tokens,@cache_read_tokens,@cache_write_tokens,@tainted,@error,@owner_pid,@owner_start,@created_at,@updated_at)`,
        full,
      );
      return full;
    },
    getRun: (id: string) => sql.one<RunRow>('SELECT * FROM runs WHERE id = ?', id),
    listRuns: (limit: number) => sql.all<RunRow>('SELECT * FROM runs ORDER BY created_at DESC LIMIT ?', limit),
    runsWithStatus: (status: RunStatus) => sql.all<RunRow>('SELECT * FROM runs WHERE status = ? ORDER BY created_at', status),
    runsForConversation: (conversationId: string) => sql.all<RunRow>('SELECT * FROM runs WHERE conversation_id = ? ORDER BY created_at', conversationId),
    latestRunForConversation: (conversationId: string) =>
      sql.one<RunRow>('SELECT * FROM runs WHERE conversation_id = ? ORDER BY created_at DESC LIMIT 1', conversationId),
    activeRunForConversation: (conversationId: string) =>
      sql.one<RunRow>("SELECT * FROM runs WHERE conversation_id = ? AND status IN ('running','parked') ORDER BY created_at DESC LIMIT 1", conversationId),
    updateRun(id: string, patch: RunPatch): void {
      if (Object.keys(patch).length === 0) return;
      // The owner's start time follows its pid: cleared with it, and this process's own when the pid is ours.
      const owned = 'owner_pid' in patch && !('owner_start' in patch) ? { ...patch, owner_start: patch.owner_pid === process.pid ? selfIdentity().start : null } : patch;
      sql.run(`UPDATE runs SET ${setClause(owned)}, updated_at = @now WHERE id = @id`, { ...owned, id, now: Date.now() });
    },
    claimRun(id: string, fromStatuses: readonly RunStatus[]): boolean {
      const me = selfIdentity();
      const placeholders = fromStatuses.map(() => '?').join(',');
      const info = sql.run(
        `UPDATE runs SET status = 'running', owner_pid = ?, owner_start = ?, updated_at = ? WHERE id = ? AND status IN (${placeholders})`,
        me.pid,
        me.start,
        Date.now(),
        id,
        ...fromStatuses,
      );
      return info.changes === 1;
    },

    // Tool calls
    insertToolCall(row: NewToolCall): void {
      sql.run(
        `INSERT INTO tool_calls (id,run_id,step,position,call_id,tool,args,args_sha256,risk,decision,reasons,status,created_at)
         VALUES (@id,@run_id,@step,@position,@call_id,@tool,@args,@args_sha256,@risk,@decision,@reasons,@status,@now)`,
        { ...row, now: Date.now() },
      );
    },
    updateToolCall(id: string, patch: ToolCallPatch): void {
      if (Object.keys(patch).length === 0) return;
      sql.run(`UPDATE tool_calls SET ${setClause(patch)} WHERE id = @id`, { ...patch, id });
    },
    getToolCall: (id: string) => sql.one<ToolCallRow>('SELECT * FROM tool_calls WHERE id = ?', id),
    toolCallsForStep: (runId: string, step: number) => sql.all<ToolCallRow>('SELECT * FROM tool_calls WHERE run_id = ? AND step = ? ORDER BY position', runId, step),
    toolCallsForRun: (runId: string) => sql.all<ToolCallRow>('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY step, position', runId),
    /**
     * What each step's new calls are checked against (ids in use, repeats): no outputs, which grow every step. Read
     * from where the last answer for this run ended (`callKeysSince`): these four columns never change once a step's
     * calls are written, and a step's calls are written together, in the step after every earlier one.
     */
    callKeysForRun: (runId: string) => callKeysSince(sql, runId),
    /** The finished, successful calls of a run without their outputs (which can be large): what held secrets are read from. */
    succeededCallArgs: (runId: string, tools: readonly string[]) =>
      tools.length === 0
        ? []
        : sql.all<Pick<ToolCallRow, 'tool' | 'args' | 'status' | 'is_error'>>(
            "SELECT tool, args, status, is_error FROM tool_calls WHERE run_id = ? AND status = 'done' AND is_error = 0 AND tool IN (SELECT value FROM json_each(?)) ORDER BY step, position",
            runId,
            JSON.stringify(tools),
          ),
    toolCallsForConversation: (conversationId: string) =>
      sql.all<ToolCallRow>('SELECT tc.* FROM tool_calls tc JOIN runs r ON r.id = tc.run_id WHERE r.conversation_id = ?', conversationId),
    toolCallOutput: (conversationId: string, runId: string, callId: string) =>
      sql.one<{ output: string | null; tool: string; status: ToolCallStatus; is_error: number }>(
        'SELECT tc.output AS output, tc.tool AS tool, tc.status AS status, tc.is_error AS is_error FROM tool_calls tc JOIN runs r ON r.id = tc.run_id WHERE r.conversation_id = ? AND tc.run_id = ? AND tc.call_id = ?',
        conversationId,
        runId,
        callId,
      ),
  }),
});
