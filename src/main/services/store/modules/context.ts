/** Context compactions: what each compaction dropped from the model's view of a conversation, and its summary. */
import { defineStoreModule, type Sql } from '../module';

export interface CompactionRow {
  id: number;
  conversation_id: string;
  run_id: string | null;
  /** Messages with an id up to this one are replaced by the summary in every later model request. */
  upto_message_id: number;
  summary: string;
  /** JSON: what was dropped ([{id, role, chars, tools}]), for the UI and `deskhand runs show`. */
  dropped: string;
  dropped_messages: number;
  tokens_before: number;
  tokens_after: number;
  /** 'auto' (the threshold) or 'tool' (summarize_context). */
  reason: string;
  created_at: number;
}

export type NewCompaction = Omit<CompactionRow, 'id' | 'created_at'>;

export const contextModule = defineStoreModule({
  name: 'context',
  migrations: [
    {
      description: 'compaction records',
      sql: `
      CREATE TABLE compactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL,
        run_id TEXT,
        upto_message_id INTEGER NOT NULL,
        summary TEXT NOT NULL,
        dropped TEXT NOT NULL,
        dropped_messages INTEGER NOT NULL,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        reason TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX compactions_conversation ON compactions(conversation_id, id);`,
    },
  ],
  queries: (sql: Sql) => ({
    insert(row: NewCompaction): number {
      return Number(
        sql.run(
          'INSERT INTO compactions (conversation_id, run_id, upto_message_id, summary, dropped, dropped_messages, tokens_before, tokens_after, reason, created_at) VALUES (@conversation_id,@run_id,@upto_message_id,@summary,@dropped,@dropped_messages,@tokens_before,@tokens_after,@reason,@now)',
          { ...row, now: Date.now() },
        ).lastInsertRowid,
      );
    },
    latest: (conversationId: string) => sql.one<CompactionRow>('SELECT * FROM compactions WHERE conversation_id = ? ORDER BY id DESC LIMIT 1', conversationId),
    list: (conversationId: string) => sql.all<CompactionRow>('SELECT * FROM compactions WHERE conversation_id = ? ORDER BY id', conversationId),
    count: (conversationId: string) => sql.one<{ n: number }>('SELECT count(*) AS n FROM compactions WHERE conversation_id = ?', conversationId)!.n,
  }),
});
