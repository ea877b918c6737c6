/**
 * Context compactions: what each compaction dropped from the model's view of a conversation, and its summary; which
 * messages are the person's own and which are what a lifecycle hook said.
 */
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
  /**
   * JSON: what every later request keeps verbatim ({messages, chars} of the kept tail, the person's `instructions`
   * pinned [{id, chars}], and the pinned `state` names); null for records from before it was kept.
   */
  kept: string | null;
  created_at: number;
}

/** What hooks said in a conversation (store/modules/context.ts `addHookMessage`). */
export interface HookMessageRow {
  id: number;
  conversation_id: string;
  run_id: string | null;
  /** The event whose hooks said it: Stop, SubagentStop, PreCompact. */
  event: string;
  /** The user-role message the model read (a Stop hook's reason); null for a note shown to the person only. */
  message_id: number | null;
  text: string;
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
    {
      description: "the person's own messages (their instructions, pinned verbatim into every compacted context)",
      sql: `
      CREATE TABLE person_messages (
        message_id INTEGER PRIMARY KEY,
        conversation_id TEXT NOT NULL
      );
      CREATE INDEX person_messages_conversation ON person_messages(conversation_id, message_id);
      ALTER TABLE compactions ADD COLUMN kept TEXT;`,
    },
    {
      description: "what lifecycle hooks said in the transcript: a Stop hook's reason the model read (its message), a firing's notes for the person",
      sql: `
      CREATE TABLE hook_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        run_id TEXT,
        event TEXT NOT NULL,
        message_id INTEGER,
        text TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX hook_messages_conversation ON hook_messages(conversation_id, id);`,
    },
  ],
  queries: (sql: Sql) => ({
    insert(row: NewCompaction): number {
      return Number(
        sql.run(
          'INSERT INTO compactions (conversation_id, run_id, upto_message_id, summary, dropped, dropped_messages, tokens_before, tokens_after, reason, kept, created_at) VALUES (@conversation_id,@run_id,@upto_message_id,@summary,@dropped,@dropped_messages,@tokens_before,@tokens_after,@reason,@kept,@now)',
          { ...row, now: Date.now() },
        ).lastInsertRowid,
      );
    },
    setTokensAfter: (id: number, tokens: number) => void sql.run('UPDATE compactions SET tokens_after = ? WHERE id = ?', tokens, id),
    latest: (conversationId: string) => sql.one<CompactionRow>('SELECT * FROM compactions WHERE conversation_id = ? ORDER BY id DESC LIMIT 1', conversationId),
    list: (conversationId: string) => sql.all<CompactionRow>('SELECT * FROM compactions WHERE conversation_id = ? ORDER BY id', conversationId),
    /** Marks a user message as the person's own (not one Deskhand wrote: a goal cycle, a task's wake-up, a hook's). */
    markPerson: (conversationId: string, messageId: number) => void sql.run('INSERT OR IGNORE INTO person_messages (message_id, conversation_id) VALUES (?, ?)', messageId, conversationId),
    /**
     * Records what hooks of `event` said: with `messageId`, that user-role message is theirs (the model read it; shown as
     * the hook's, never as the person's); without, a note for the person only (the model never reads it).
     */
    addHookMessage: (row: { conversationId: string; runId: string | null; event: string; messageId: number | null; text: string }) =>
      void sql.run('INSERT INTO hook_messages (conversation_id, run_id, event, message_id, text, created_at) VALUES (?, ?, ?, ?, ?, ?)', row.conversationId, row.runId, row.event, row.messageId, row.text, Date.now()),
    /** The user-role messages that are a hook's (a Stop hook's reason), not the person's. */
    hookMessageIds: (conversationId: string) =>
      new Set(sql.all<{ message_id: number }>('SELECT message_id FROM hook_messages WHERE conversation_id = ? AND message_id IS NOT NULL', conversationId).map((r) => r.message_id)),
    hookMessages: (conversationId: string) => sql.all<HookMessageRow>('SELECT * FROM hook_messages WHERE conversation_id = ? ORDER BY id', conversationId),
    /** The person's messages up to a message id, oldest first. */
    personMessages: (conversationId: string, uptoMessageId: number) =>
      sql.all<{ id: number; content: string }>(
        'SELECT m.id, m.content FROM person_messages p JOIN messages m ON m.id = p.message_id WHERE p.conversation_id = ? AND p.message_id <= ? ORDER BY m.id',
        conversationId,
        uptoMessageId,
      ),
    /** One stored message of a conversation (a dropped one, paged back). */
    message: (conversationId: string, messageId: number) => sql.one<{ id: number; role: 'system' | 'user' | 'assistant' | 'tool'; content: string }>('SELECT id, role, content FROM messages WHERE conversation_id = ? AND id = ?', conversationId, messageId),
    count: (conversationId: string) => sql.one<{ n: number }>('SELECT count(*) AS n FROM compactions WHERE conversation_id = ?', conversationId)!.n,
  }),
});
