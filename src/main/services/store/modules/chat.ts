/**
 * The chat family's rows beside the runs module's: what a tool card says after a reload (when the call started
 * executing, who or what cleared it and when), and the messages an edit or a regenerate replaced (a superseded
 * branch, moved out of `messages` so the model, search and the transcript only ever see the current branch).
 */
import { defineStoreModule, type Sql } from '../module';
import type { MessageRow } from './runs';

export interface CallNoteRow {
  tool_call_id: string;
  /** When the call began executing (after any approval wait); null until it did. */
  started_at: number | null;
  /** Who cleared it: 'person' (with `via`), 'rule', 'policy'. */
  cleared_by: string | null;
  /** Where a person answered ('the app', 'the web UI', 'the CLI'…), or the saved rule's pattern. */
  via: string | null;
  cleared_at: number | null;
}

export interface SupersededMessageRow extends MessageRow {
  /** One id per edit or regenerate: the messages it replaced share it. */
  branch_id: string;
  superseded_at: number;
}

export const chatModule = defineStoreModule({
  name: 'chat',
  migrations: [
    {
      description: 'call notes (execution start, who cleared the call) and superseded message branches',
      sql: `
      CREATE TABLE call_notes (
        tool_call_id TEXT PRIMARY KEY REFERENCES tool_calls(id) ON DELETE CASCADE,
        started_at INTEGER,
        cleared_by TEXT,
        via TEXT,
        cleared_at INTEGER
      );
      CREATE TABLE superseded_messages (
        id INTEGER PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        run_id TEXT,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        branch_id TEXT NOT NULL,
        superseded_at INTEGER NOT NULL
      );
      CREATE INDEX superseded_messages_conversation ON superseded_messages(conversation_id, id);`,
    },
    {
      description: 'conversation forks (a conversation made from another one up to a message)',
      sql: `CREATE TABLE conversation_forks (
        conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
        source_conversation_id TEXT NOT NULL,
        at_message_id INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    noteStarted(toolCallId: string, at: number): void {
      sql.run('INSERT INTO call_notes (tool_call_id, started_at) VALUES (?, ?) ON CONFLICT(tool_call_id) DO UPDATE SET started_at = excluded.started_at', toolCallId, at);
    },
    noteCleared(toolCallId: string, by: 'person' | 'rule' | 'policy', via: string | null, at: number): void {
      sql.run(
        `INSERT INTO call_notes (tool_call_id, cleared_by, via, cleared_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(tool_call_id) DO UPDATE SET cleared_by = excluded.cleared_by, via = excluded.via, cleared_at = excluded.cleared_at`,
        toolCallId,
        by,
        via,
        at,
      );
    },
    notesForConversation: (conversationId: string) =>
      sql.all<CallNoteRow>('SELECT n.* FROM call_notes n JOIN tool_calls tc ON tc.id = n.tool_call_id JOIN runs r ON r.id = tc.run_id WHERE r.conversation_id = ?', conversationId),
    /**
     * Moves the conversation's messages from `fromId` on into the superseded branch `branchId` (one transaction with
     * the caller's). Returns how many moved.
     */
    supersedeFrom(conversationId: string, fromId: number, branchId: string, now: number): number {
      sql.run(
        `INSERT INTO superseded_messages (id, conversation_id, run_id, role, content, created_at, branch_id, superseded_at)
         SELECT id, conversation_id, run_id, role, content, created_at, ?, ? FROM messages WHERE conversation_id = ? AND id >= ?`,
        branchId,
        now,
        conversationId,
        fromId,
      );
      return sql.run('DELETE FROM messages WHERE conversation_id = ? AND id >= ?', conversationId, fromId).changes;
    },
    /** The command tasks tool calls of a conversation started: how each call ended (kept in the background, stopped). */
    callTasks: (conversationId: string) =>
      sql.all<{ run_id: string; call_id: string; background: number; status: string }>(
        'SELECT run_id, call_id, background, status FROM background_tasks WHERE conversation_id = ? AND run_id IS NOT NULL AND call_id IS NOT NULL',
        conversationId,
      ),
    superseded: (conversationId: string) => sql.all<SupersededMessageRow>('SELECT * FROM superseded_messages WHERE conversation_id = ? ORDER BY id', conversationId),
    /**
     * Copies a conversation's history up to a message (inclusive) into another conversation (one transaction with
     * the caller's): the messages, and the runs and tool calls they belong to under new ids (a run or call that had
     * not ended is copied as interrupted; nothing is owned). Returns the new message id of each copied one.
     */
    copyHistory(sourceId: string, targetId: string, atId: number, newId: () => string): Map<number, number> {
      const messages = sql.all<MessageRow>('SELECT * FROM messages WHERE conversation_id = ? AND id <= ? ORDER BY id', sourceId, atId);
      const runs = new Map<string, string>();
      const columns = (table: string) => sql.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).map((c) => c.name);
      const runCols = columns('runs');
      const callCols = columns('tool_calls');
      const runValue: Record<string, string> = { id: '@new', conversation_id: '@conv', owner_pid: 'NULL', owner_start: 'NULL', status: "CASE WHEN status IN ('finished', 'failed', 'aborted', 'interrupted') THEN status ELSE 'interrupted' END" };
      const callValue: Record<string, string> = { id: "'tc_' || lower(hex(randomblob(12)))", run_id: '@new', status: "CASE WHEN status IN ('done', 'error', 'interrupted') THEN status ELSE 'interrupted' END" };
      for (const m of messages) {
        if (!m.run_id || runs.has(m.run_id)) continue;
        const fresh = `run_${newId()}`;
        runs.set(m.run_id, fresh);
        sql.run(`INSERT INTO runs (${runCols.join(', ')}) SELECT ${runCols.map((c) => runValue[c] ?? c).join(', ')} FROM runs WHERE id = @old`, { new: fresh, conv: targetId, old: m.run_id });
        sql.run(`INSERT INTO tool_calls (${callCols.join(', ')}) SELECT ${callCols.map((c) => callValue[c] ?? c).join(', ')} FROM tool_calls WHERE run_id = @old`, { new: fresh, old: m.run_id });
      }
      const ids = new Map<number, number>();
      for (const m of messages) {
        const r = sql.run('INSERT INTO messages (conversation_id, run_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)', targetId, m.run_id ? runs.get(m.run_id)! : null, m.role, m.content, m.created_at);
        ids.set(m.id, Number(r.lastInsertRowid));
      }
      sql.run('INSERT INTO conversation_forks (conversation_id, source_conversation_id, at_message_id, created_at) VALUES (?, ?, ?, ?)', targetId, sourceId, atId, Date.now());
      return ids;
    },
    /** Where a forked conversation came from, or undefined. */
    forkOf: (conversationId: string) => sql.one<{ source_conversation_id: string; at_message_id: number }>('SELECT source_conversation_id, at_message_id FROM conversation_forks WHERE conversation_id = ?', conversationId),
    getMessage: (conversationId: string, id: number) => sql.one<MessageRow>('SELECT * FROM messages WHERE conversation_id = ? AND id = ?', conversationId, id),
  }),
});
