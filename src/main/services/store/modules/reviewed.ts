/**
 * Untrusted tool results a person marked as reviewed (issue 46, taint by source): they read the result and vouch for
 * it, so its envelope no longer counts as an untrusted source in the model's view (runtime/decision/taint-scope.ts).
 * One row per call of a conversation: which call, who marked it (the surface: app, cli), when, and the sha256 of the
 * result as the transcript holds it (a result whose text is not the one reviewed counts as untrusted again).
 */
import { defineStoreModule, type Sql } from '../module';

export interface ReviewedRow {
  conversation_id: string;
  call_id: string;
  run_id: string;
  tool: string;
  sha256: string;
  reviewed_by: string;
  reviewed_at: number;
}

export const reviewedModule = defineStoreModule({
  name: 'reviewed',
  migrations: [
    {
      description: 'untrusted tool results a person marked as reviewed',
      sql: `
      CREATE TABLE reviewed_results (
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        reviewed_by TEXT NOT NULL,
        reviewed_at INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, call_id)
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    forConversation: (conversationId: string) => sql.all<ReviewedRow>('SELECT * FROM reviewed_results WHERE conversation_id = ? ORDER BY reviewed_at', conversationId),
    /** Whether the conversation has any reviewed result (one indexed read: what a step without one pays). */
    any: (conversationId: string) => sql.one<{ n: number }>('SELECT 1 AS n FROM reviewed_results WHERE conversation_id = ? LIMIT 1', conversationId) !== undefined,
    get: (conversationId: string, callId: string) => sql.one<ReviewedRow>('SELECT * FROM reviewed_results WHERE conversation_id = ? AND call_id = ?', conversationId, callId) ?? null,
    /** The finished call of a conversation with this transcript id (any of its runs), or null. */
    callOf: (conversationId: string, callId: string) =>
      sql.one<{ run_id: string; tool: string; status: string }>(
        'SELECT tc.run_id, tc.tool, tc.status FROM tool_calls tc JOIN runs r ON r.id = tc.run_id WHERE r.conversation_id = ? AND tc.call_id = ? ORDER BY tc.created_at DESC LIMIT 1',
        conversationId,
        callId,
      ) ?? null,
    /** Records a review (the first one stands: marking again changes nothing). Returns whether it was new. */
    mark(row: ReviewedRow): boolean {
      return sql.run('INSERT OR IGNORE INTO reviewed_results (conversation_id, call_id, run_id, tool, sha256, reviewed_by, reviewed_at) VALUES (?,?,?,?,?,?,?)', row.conversation_id, row.call_id, row.run_id, row.tool, row.sha256, row.reviewed_by, row.reviewed_at).changes > 0;
    },
  }),
});
