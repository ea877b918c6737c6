/**
 * Memory (records, lessons, their receipts) with full-text search over SQLite FTS5 (an external-content index kept in
 * step by triggers), and the family's settings (automatic extraction on or off).
 */
import { defineStoreModule, type Sql } from '../module';

export type MemoryScope = 'user' | 'workspace' | 'project';
export type MemoryStatus = 'proposed' | 'active' | 'rejected';

export interface MemoryRow {
  seq: number;
  id: string;
  kind: 'memory' | 'lesson';
  scope: MemoryScope;
  /** '' for user scope; the workspace folder or the project root for the others. */
  scope_key: string;
  topic: string;
  body: string;
  /** The person's words the record came from (Spec I), or null for lessons the agent drew itself. */
  quote: string | null;
  status: MemoryStatus;
  source: 'tool' | 'extraction' | 'lesson' | 'person';
  conversation_id: string | null;
  /** 1 when the person confirmed the record as it stands (accepted it, or edited it); 0 when the agent wrote it. */
  confirmed: number;
  created_at: number;
  updated_at: number;
}

export interface MemoryReceiptRow {
  id: string;
  memory_id: string;
  action: 'add' | 'update' | 'remove' | 'propose' | 'accept' | 'reject';
  actor: string;
  diff: string;
  conversation_id: string | null;
  created_at: number;
}

/** A workspace's scratchpad: the agent's durable drafts, shared by every conversation in that folder. */
export interface ScratchpadRow {
  workspace: string;
  text: string;
  /** 1 once a run that had read untrusted content wrote to it (until it is replaced or cleared by a clean run). */
  tainted: number;
  updated_at: number;
}

export interface ScopeRef {
  scope: MemoryScope;
  key: string;
}

export const memoryModule = defineStoreModule({
  name: 'memory',
  migrations: [
    {
      description: 'memory records, FTS5 index, receipts, settings',
      sql: `
      CREATE TABLE memories (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('memory', 'lesson')),
        scope TEXT NOT NULL CHECK (scope IN ('user', 'workspace', 'project')),
        scope_key TEXT NOT NULL,
        topic TEXT NOT NULL,
        body TEXT NOT NULL,
        quote TEXT,
        status TEXT NOT NULL CHECK (status IN ('proposed', 'active', 'rejected')),
        source TEXT NOT NULL,
        conversation_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX memories_scope ON memories (scope, scope_key, status);
      CREATE VIRTUAL TABLE memories_fts USING fts5(topic, body, content='memories', content_rowid='seq', tokenize='unicode61');
      CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, topic, body) VALUES (new.seq, new.topic, new.body);
      END;
      CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, topic, body) VALUES ('delete', old.seq, old.topic, old.body);
      END;
      CREATE TRIGGER memories_au AFTER UPDATE OF topic, body ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, topic, body) VALUES ('delete', old.seq, old.topic, old.body);
        INSERT INTO memories_fts (rowid, topic, body) VALUES (new.seq, new.topic, new.body);
      END;
      CREATE TABLE memory_receipts (
        id TEXT PRIMARY KEY,
        memory_id TEXT NOT NULL,
        action TEXT NOT NULL,
        actor TEXT NOT NULL,
        diff TEXT NOT NULL,
        conversation_id TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX memory_receipts_memory ON memory_receipts (memory_id, created_at);
      CREATE TABLE memory_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
    },
    {
      description: 'a generation counter every change to memories advances (recall reuses its result while it stands)',
      sql: `
      CREATE TABLE memory_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
      INSERT INTO memory_generation (id, n) VALUES (1, 0);
      CREATE TRIGGER memories_gen_ai AFTER INSERT ON memories BEGIN UPDATE memory_generation SET n = n + 1 WHERE id = 1; END;
      CREATE TRIGGER memories_gen_ad AFTER DELETE ON memories BEGIN UPDATE memory_generation SET n = n + 1 WHERE id = 1; END;
      CREATE TRIGGER memories_gen_au AFTER UPDATE ON memories BEGIN UPDATE memory_generation SET n = n + 1 WHERE id = 1; END;`,
    },
    {
      description: 'whether the person confirmed a record (recalling one the agent wrote taints the run)',
      sql: `ALTER TABLE memories ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0;
      UPDATE memories SET confirmed = 1 WHERE id IN (SELECT memory_id FROM memory_receipts WHERE action = 'accept');`,
    },
    {
      description:
        "the scratchpad kept per workspace (durable across conversations): each folder's pad starts as its conversations' per-conversation pads, oldest first (they stay in the conversations' state too)",
      sql: `
      CREATE TABLE scratchpads (
        workspace TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        tainted INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL
      );
      WITH pads AS (
        SELECT id, folder, title, created_at, updated_at, tainted, json_extract(state, '$.slots.scratchpad') AS text
        FROM conversations
        WHERE json_valid(state) AND json_type(state, '$.slots.scratchpad') = 'text' AND json_extract(state, '$.slots.scratchpad') <> ''
      ),
      counted AS (SELECT folder, count(*) AS n FROM pads GROUP BY folder)
      INSERT INTO scratchpads (workspace, text, tainted, updated_at)
      SELECT p.folder,
        group_concat(CASE WHEN c.n = 1 THEN p.text ELSE '[from the conversation "' || p.title || '"]' || char(10) || p.text END, char(10) || char(10) ORDER BY p.created_at, p.id),
        max(p.tainted), max(p.updated_at)
      FROM pads p JOIN counted c ON c.folder = p.folder
      GROUP BY p.folder;`,
    },
  ],
  queries: (sql: Sql) => {
    const scopeWhere = (scopes: readonly ScopeRef[]) => ({
      clause: scopes.length ? `(${scopes.map(() => '(m.scope = ? AND m.scope_key = ?)').join(' OR ')})` : '0',
      params: scopes.flatMap((s) => [s.scope, s.key]),
    });
    return {
      insert: (r: Omit<MemoryRow, 'seq'>) =>
        void sql.run(
          `INSERT INTO memories (id, kind, scope, scope_key, topic, body, quote, status, source, conversation_id, confirmed, created_at, updated_at)
           VALUES (@id, @kind, @scope, @scope_key, @topic, @body, @quote, @status, @source, @conversation_id, @confirmed, @created_at, @updated_at)`,
          r,
        ),
      update: (id: string, patch: Partial<Pick<MemoryRow, 'topic' | 'body' | 'quote' | 'status' | 'scope' | 'scope_key' | 'confirmed'>>) => {
        const keys = Object.keys(patch);
        if (!keys.length) return;
        sql.run(`UPDATE memories SET ${keys.map((k) => `${k} = @${k}`).join(', ')}, updated_at = @updated_at WHERE id = @id`, { ...patch, id, updated_at: Date.now() });
      },
      remove: (id: string) => sql.run('DELETE FROM memories WHERE id = ?', id).changes > 0,
      get: (id: string) => sql.one<MemoryRow>('SELECT * FROM memories WHERE id = ?', id),
      /** Records of a scope that count against its limit (active and proposed). */
      countInScope: (scope: MemoryScope, key: string) =>
        sql.one<{ n: number }>("SELECT count(*) AS n FROM memories WHERE scope = ? AND scope_key = ? AND status IN ('active', 'proposed')", scope, key)!.n,
      list: (filter: { kind?: MemoryRow['kind']; status?: MemoryStatus; scopes?: readonly ScopeRef[] } = {}) => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (filter.kind) {
          where.push('m.kind = ?');
          params.push(filter.kind);
        }
        if (filter.status) {
          where.push('m.status = ?');
          params.push(filter.status);
        }
        if (filter.scopes) {
          const s = scopeWhere(filter.scopes);
          where.push(s.clause);
          params.push(...s.params);
        }
        return sql.all<MemoryRow>(`SELECT m.* FROM memories m ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.updated_at DESC, m.seq DESC`, ...params);
      },
      /** Active records of these scopes matching an FTS5 query, best first (bm25). */
      search: (match: string, scopes: readonly ScopeRef[], limit: number, kind?: MemoryRow['kind']) => {
        const s = scopeWhere(scopes);
        return sql.all<MemoryRow>(
          `SELECT m.* FROM memories_fts f JOIN memories m ON m.seq = f.rowid
           WHERE memories_fts MATCH ? AND m.status = 'active' AND ${s.clause} ${kind ? 'AND m.kind = ?' : ''}
           ORDER BY bm25(memories_fts) LIMIT ?`,
          match,
          ...s.params,
          ...(kind ? [kind] : []),
          limit,
        );
      },
      /** Advances with every insert, update or delete of a record, from any process (triggers). */
      generation: () => sql.one<{ n: number }>('SELECT n FROM memory_generation WHERE id = 1')!.n,
      /** The same match with no scope or status filter: the raw FTS5 cost (the bench's baseline). */
      rawMatch: (match: string, limit: number) => sql.all<{ rowid: number }>('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts) LIMIT ?', match, limit),
      addReceipt: (r: MemoryReceiptRow) =>
        void sql.run(
          'INSERT INTO memory_receipts (id, memory_id, action, actor, diff, conversation_id, created_at) VALUES (@id, @memory_id, @action, @actor, @diff, @conversation_id, @created_at)',
          r,
        ),
      receipts: (memoryId: string) => sql.all<MemoryReceiptRow>('SELECT * FROM memory_receipts WHERE memory_id = ? ORDER BY created_at, rowid', memoryId),
      getSetting: (key: string) => sql.one<{ value: string }>('SELECT value FROM memory_settings WHERE key = ?', key)?.value ?? null,
      setSetting: (key: string, value: string) => void sql.run('INSERT INTO memory_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', key, value),
      scratchpad: (workspace: string) => sql.one<ScratchpadRow>('SELECT * FROM scratchpads WHERE workspace = ?', workspace),
      /** Replaces a workspace's scratchpad (an empty text removes the row: a cleared pad is no pad). */
      setScratchpad(workspace: string, text: string, tainted: boolean): void {
        if (!text) sql.run('DELETE FROM scratchpads WHERE workspace = ?', workspace);
        else
          sql.run(
            'INSERT INTO scratchpads (workspace, text, tainted, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(workspace) DO UPDATE SET text = excluded.text, tainted = excluded.tainted, updated_at = excluded.updated_at',
            workspace,
            sql.text(text),
            tainted ? 1 : 0,
            Date.now(),
          );
      },
      transaction: <T>(fn: () => T) => sql.transaction(fn),
    };
  },
});
