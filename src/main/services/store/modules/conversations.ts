/** Conversations: title, folder, policy, sandbox mode, persistent state and taint. */
import type { Policy } from '../../../../shared/tools';
import type { SandboxMode } from '../../../../shared/sandbox';
import { defineStoreModule, setClause, type Sql } from '../module';

export interface ConversationRow {
  id: string;
  title: string;
  folder: string;
  policy: Policy;
  state: string;
  /** How this conversation's commands run (see src/shared/sandbox.ts). */
  sandbox: SandboxMode;
  /** 1 once any run of the conversation read untrusted content: later runs, resumes and subagents start tainted. */
  tainted: number;
  /**
   * The one untrusted source everything the conversation read came from (`peer alice`: only that peer's answers), or
   * null: not tainted, or tainted by more than one source, or by one that does not say (the engine then treats it as
   * any taint). Only ask_peer's per-conversation grant of that same peer reads it (approval-engine.ts, taint).
   */
  taint_only: string | null;
  created_at: number;
  updated_at: number;
}

export type NewConversation = Omit<ConversationRow, 'created_at' | 'updated_at' | 'state' | 'sandbox' | 'tainted' | 'taint_only'> & { state?: string; sandbox?: SandboxMode };
export type ConversationPatch = Partial<Pick<ConversationRow, 'title' | 'policy' | 'state' | 'folder' | 'sandbox' | 'tainted' | 'taint_only'>>;

export const conversationsModule = defineStoreModule({
  name: 'conversations',
  migrations: [
    {
      description: 'conversations',
      legacyUserVersion: 1,
      sql: `
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        folder TEXT NOT NULL,
        policy TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );`,
    },
    {
      description: "each conversation's sandbox mode",
      legacyUserVersion: 2,
      sql: `ALTER TABLE conversations ADD COLUMN sandbox TEXT NOT NULL DEFAULT 'workspace-write';`,
    },
    {
      description: 'taint kept per conversation (survives new runs, resumes, subagents and summaries)',
      legacyUserVersion: 3,
      sql: `ALTER TABLE conversations ADD COLUMN tainted INTEGER NOT NULL DEFAULT 0;`,
    },
    {
      description: 'the one untrusted source a tainted conversation read (a peer grant may clear that peer only)',
      sql: `ALTER TABLE conversations ADD COLUMN taint_only TEXT;`,
    },
  ],
  queries: (sql: Sql) => ({
    create(row: NewConversation): ConversationRow {
      const now = Date.now();
      const full: ConversationRow = { state: '{}', ...row, sandbox: row.sandbox ?? 'workspace-write', tainted: 0, taint_only: null, created_at: now, updated_at: now };
      sql.run(
        'INSERT INTO conversations (id,title,folder,policy,state,sandbox,created_at,updated_at) VALUES (@id,@title,@folder,@policy,@state,@sandbox,@created_at,@updated_at)',
        { id: full.id, title: full.title, folder: full.folder, policy: full.policy, state: full.state, sandbox: full.sandbox, created_at: now, updated_at: now },
      );
      return full;
    },
    get: (id: string) => sql.oneShared<ConversationRow>('SELECT * FROM conversations WHERE id = ?', id),
    list: () => sql.all<ConversationRow>('SELECT * FROM conversations ORDER BY updated_at DESC'),
    update(id: string, patch: ConversationPatch): void {
      if (Object.keys(patch).length === 0) return;
      sql.run(`UPDATE conversations SET ${setClause(patch)}, updated_at = @now WHERE id = @id`, { ...patch, id, now: Date.now() });
    },
    touch: (id: string, now: number) => void sql.run('UPDATE conversations SET updated_at = ? WHERE id = ?', now, id),
    delete: (id: string) => void sql.run('DELETE FROM conversations WHERE id = ?', id),
  }),
});
