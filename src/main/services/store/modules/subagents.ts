/**
 * Subagents: each child conversation linked to its parent (type, ceiling, limits, status, result, spend), the
 * steering messages waiting for a child's next model call, and the blackboard a parent and its children share.
 */
import { defineStoreModule, setClause, type Sql } from '../module';

/** parked: a foreground child whose run parked on a person's answer (its parent's call parked with it; not an orphan). */
export type SubagentStatus = 'queued' | 'running' | 'parked' | 'finished' | 'failed' | 'cancelled' | 'timed_out';
export const SUBAGENT_TERMINAL: readonly SubagentStatus[] = ['finished', 'failed', 'cancelled', 'timed_out'];

export interface SubagentRow {
  id: string;
  parent_conversation_id: string;
  parent_run_id: string | null;
  parent_call_id: string | null;
  /** The conversation at the top of the tree: the blackboard's scope. */
  root_conversation_id: string;
  /** The child's own conversation (its transcript). */
  conversation_id: string;
  /** The background task (kind `subagent`) when started with `background`, else null. */
  task_id: string | null;
  type: string;
  description: string;
  prompt: string;
  status: SubagentStatus;
  background: number;
  policy: string;
  /** JSON: the tool names this child may see (its parent's turn set narrowed by the type's profile). */
  tools: string;
  result_schema: string | null;
  /** JSON: {maxMinutes, maxTokens, maxCostUSD}. */
  limits: string;
  result: string | null;
  error: string | null;
  tainted: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  attempts: number;
  /** 1 once wait_subagents (or the foreground call) returned the result to the parent. */
  reported: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** The process running (or queueing) this child: pid and start time, so a crash is told from a live owner. */
  owner_pid: number | null;
  owner_start: string | null;
}

export type NewSubagent = Omit<
  SubagentRow,
  'status' | 'result' | 'error' | 'tainted' | 'input_tokens' | 'output_tokens' | 'cost_usd' | 'attempts' | 'reported' | 'created_at' | 'started_at' | 'finished_at' | 'owner_pid' | 'owner_start'
> &
  Partial<Pick<SubagentRow, 'owner_pid' | 'owner_start'>>;
export type SubagentPatch = Partial<Omit<SubagentRow, 'id' | 'parent_conversation_id' | 'conversation_id' | 'created_at'>>;

export interface BlackboardPost {
  id: number;
  board: string;
  author: string;
  topic: string;
  body: string;
  untrusted: number;
  created_at: number;
}

/** Who steers a child: its parent agent (a tool, a workflow, the tower) or the person (the UI's tree, the CLI). */
export type SteeringSender = 'parent' | 'person';

export interface SteeringRow {
  id: number;
  subagent_id: string;
  message: string;
  sender: SteeringSender;
  delivered_at: number | null;
  created_at: number;
}

/** Columns that hold text from outside (a child's answer, a model-written brief): stored redacted (Sql.text). */
const OUTSIDE_TEXT = ['result', 'error', 'prompt', 'description'] as const;

export const subagentsModule = defineStoreModule({
  name: 'subagents',
  migrations: [
    {
      description: 'subagents, their steering messages and the shared blackboard',
      sql: `
      CREATE TABLE subagents (
        id TEXT PRIMARY KEY,
        parent_conversation_id TEXT NOT NULL,
        parent_run_id TEXT,
        parent_call_id TEXT,
        root_conversation_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL UNIQUE,
        task_id TEXT,
        type TEXT NOT NULL,
        description TEXT NOT NULL,
        prompt TEXT NOT NULL,
        status TEXT NOT NULL,
        background INTEGER NOT NULL,
        policy TEXT NOT NULL,
        tools TEXT NOT NULL,
        result_schema TEXT,
        limits TEXT NOT NULL,
        result TEXT,
        error TEXT,
        tainted INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        reported INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER
      );
      CREATE INDEX subagents_parent ON subagents(parent_conversation_id, created_at);
      CREATE TABLE subagent_steering (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subagent_id TEXT NOT NULL,
        message TEXT NOT NULL,
        delivered_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE blackboard_posts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        board TEXT NOT NULL,
        author TEXT NOT NULL,
        topic TEXT NOT NULL,
        body TEXT NOT NULL,
        untrusted INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX blackboard_board ON blackboard_posts(board, id);`,
    },
    {
      description: 'the process that owns a queued or running child (crash recovery)',
      sql: `
      ALTER TABLE subagents ADD COLUMN owner_pid INTEGER;
      ALTER TABLE subagents ADD COLUMN owner_start TEXT;
      CREATE INDEX subagents_open ON subagents(status) WHERE status IN ('queued', 'running');`,
    },
    {
      description: 'who sent a steering message: the parent agent or the person',
      sql: `ALTER TABLE subagent_steering ADD COLUMN sender TEXT NOT NULL DEFAULT 'parent';`,
    },
    {
      // Every step of a child asks whether a message waits for it: without this it read the whole table (every
      // message ever sent); the index holds only the undelivered ones.
      description: 'steering messages waiting for delivery, by child',
      sql: `CREATE INDEX subagent_steering_waiting ON subagent_steering(subagent_id, id) WHERE delivered_at IS NULL;`,
    },
    {
      // A map call finds its children (and a rejoined one its earlier children) by the call that made them: without
      // this it read every subagent row ever made.
      description: 'subagents by the call that made them',
      sql: `CREATE INDEX subagents_call ON subagents(parent_run_id, parent_call_id);`,
    },
  ],
  queries: (sql: Sql) => ({
    insert(row: NewSubagent): SubagentRow {
      const full: SubagentRow = {
        owner_pid: null,
        owner_start: null,
        ...row,
        status: 'queued',
        result: null,
        error: null,
        tainted: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0,
        attempts: 0,
        reported: 0,
        created_at: Date.now(),
        started_at: null,
        finished_at: null,
      };
      const cols = Object.keys(full);
      sql.run(`INSERT INTO subagents (${cols.join(',')}) VALUES (${cols.map((c) => `@${c}`).join(',')})`, sql.fields(full, OUTSIDE_TEXT));
      return full;
    },
    get: (id: string) => sql.oneShared<SubagentRow>('SELECT * FROM subagents WHERE id = ?', id),
    byTask: (taskId: string) => sql.one<SubagentRow>('SELECT * FROM subagents WHERE task_id = ?', taskId),
    byConversation: (conversationId: string) => sql.oneShared<SubagentRow>('SELECT * FROM subagents WHERE conversation_id = ?', conversationId),
    /** The children one parent call started (a map's in item order): found again when that call runs again. */
    forCall: (parentRunId: string, parentCallId: string) => sql.all<SubagentRow>('SELECT * FROM subagents WHERE parent_run_id = ? AND parent_call_id = ? ORDER BY rowid', parentRunId, parentCallId),
    forParent: (parentConversationId: string) => sql.all<SubagentRow>('SELECT * FROM subagents WHERE parent_conversation_id = ? ORDER BY created_at, id', parentConversationId),
    /** Every descendant of a conversation (children, their children…), oldest first, up to `limit`. */
    tree: (conversationId: string, limit: number) =>
      sql.all<SubagentRow>(
        `WITH RECURSIVE t(cid, depth) AS (SELECT ?, 0 UNION ALL SELECT s.conversation_id, t.depth + 1 FROM subagents s JOIN t ON s.parent_conversation_id = t.cid WHERE t.depth < 8)
         SELECT s.* FROM subagents s JOIN t ON s.parent_conversation_id = t.cid ORDER BY s.created_at, s.id LIMIT ?`,
        conversationId,
        limit,
      ),
    /** Children not ended yet (queued or running), of one parent or of all. */
    open: (parentConversationId: string | null) =>
      sql.all<SubagentRow>(
        "SELECT * FROM subagents WHERE status IN ('queued', 'running') AND (@parent IS NULL OR parent_conversation_id = @parent) ORDER BY created_at",
        { parent: parentConversationId },
      ),
    /** Which conversations are children, and whose (the sidebar leaves them out). */
    links: () => sql.all<Pick<SubagentRow, 'id' | 'conversation_id' | 'parent_conversation_id'>>('SELECT id, conversation_id, parent_conversation_id FROM subagents'),
    list: (limit: number) => sql.all<SubagentRow>('SELECT * FROM subagents ORDER BY created_at DESC LIMIT ?', limit),
    withStatus: (statuses: readonly SubagentStatus[]) =>
      sql.all<SubagentRow>(`SELECT * FROM subagents WHERE status IN (${statuses.map((s) => `'${s}'`).join(',')}) ORDER BY created_at`),
    update(id: string, patch: SubagentPatch): void {
      if (Object.keys(patch).length === 0) return;
      sql.run(`UPDATE subagents SET ${setClause(patch)} WHERE id = @id`, { ...sql.fields(patch, OUTSIDE_TEXT), id });
    },
    /** Ends a child unless it already ended; false when it had. */
    finish(id: string, status: SubagentStatus, patch: SubagentPatch): boolean {
      const done = SUBAGENT_TERMINAL.map((s) => `'${s}'`).join(',');
      const p = { ...sql.fields(patch, OUTSIDE_TEXT), status, finished_at: Date.now() };
      return sql.run(`UPDATE subagents SET ${setClause(p)} WHERE id = @id AND status NOT IN (${done})`, { ...p, id }).changes > 0;
    },
    steer: (subagentId: string, message: string, sender: SteeringSender = 'parent') =>
      Number(sql.run('INSERT INTO subagent_steering (subagent_id, message, sender, created_at) VALUES (?,?,?,?)', subagentId, sql.text(message), sender, Date.now()).lastInsertRowid),
    /** Takes the undelivered steering messages of a child (marks them delivered). */
    takeSteering(subagentId: string): SteeringRow[] {
      // Most steps have none waiting: a plain read says so without taking the write lock (a message sent just after
      // it is taken by the next step, as one sent a moment later would be).
      if (!sql.one('SELECT 1 AS n FROM subagent_steering WHERE subagent_id = ? AND delivered_at IS NULL LIMIT 1', subagentId)) return [];
      return sql.transaction(() => {
        const rows = sql.all<SteeringRow>('SELECT * FROM subagent_steering WHERE subagent_id = ? AND delivered_at IS NULL ORDER BY id', subagentId);
        if (rows.length) sql.run('UPDATE subagent_steering SET delivered_at = ? WHERE subagent_id = ? AND delivered_at IS NULL', Date.now(), subagentId);
        return rows;
      });
    },
    post(board: string, author: string, topic: string, body: string, untrusted: boolean): number {
      return Number(
        sql.run('INSERT INTO blackboard_posts (board, author, topic, body, untrusted, created_at) VALUES (?,?,?,?,?,?)', board, author, sql.text(topic), sql.text(body), untrusted ? 1 : 0, Date.now())
          .lastInsertRowid,
      );
    },
    read(board: string, opts: { topic?: string; afterId?: number; limit: number }): BlackboardPost[] {
      const topic = opts.topic ?? null;
      return sql.all<BlackboardPost>(
        'SELECT * FROM blackboard_posts WHERE board = @board AND id > @after AND (@topic IS NULL OR topic = @topic) ORDER BY id LIMIT @limit',
        { board, after: opts.afterId ?? 0, topic, limit: opts.limit },
      );
    },
  }),
});
