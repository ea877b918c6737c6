/**
 * Saved "always allow" rules: a tool, a pattern its calls must match (shared/rules.ts), and where the rule applies —
 * one conversation, every conversation in a workspace folder, or everywhere — with where it came from and how often
 * it has matched.
 */
import type { RuleScope } from '../../../../shared/rules';
import { defineStoreModule, type Sql } from '../module';

export interface RuleRow {
  id: string;
  tool: string;
  pattern: string;
  scope: RuleScope;
  /** The conversation id (scope conversation) or folder (scope workspace); null for everywhere. */
  scope_value: string | null;
  /** Where the rule came from, in words ("approval apr_… in “Fix the build”"). */
  source: string | null;
  match_count: number;
  last_matched_at: number | null;
  created_at: number;
  /** A grant for one task: the run it lasts for (applies only to that run); null for the others. */
  run_id: string | null;
  /** When the grant ends (ms); null: until revoked. An expired rule matches nothing and is listed as expired. */
  expires_at: number | null;
}

export interface NewRule {
  id: string;
  tool: string;
  pattern: string;
  scope: RuleScope;
  scope_value: string | null;
  source: string | null;
  run_id?: string | null;
  expires_at?: number | null;
}

export const rulesModule = defineStoreModule({
  name: 'rules',
  migrations: [
    {
      description: 'rules',
      legacyUserVersion: 1,
      sql: `
      CREATE TABLE rules (
        id TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        pattern TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (tool, pattern)
      );`,
    },
    {
      // Rules get a scope (older rules applied everywhere, and keep doing so), a source and match counts. The table
      // is rebuilt because its UNIQUE (tool, pattern) must now include the scope.
      description: 'rule scopes, sources and match counts',
      sql: `
      CREATE TABLE rules_scoped (
        id TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        pattern TEXT NOT NULL,
        scope TEXT NOT NULL DEFAULT 'everywhere' CHECK (scope IN ('conversation', 'workspace', 'everywhere')),
        scope_value TEXT,
        source TEXT,
        match_count INTEGER NOT NULL DEFAULT 0,
        last_matched_at INTEGER,
        created_at INTEGER NOT NULL
      );
      INSERT INTO rules_scoped (id, tool, pattern, scope, scope_value, source, created_at)
        SELECT id, tool, pattern, 'everywhere', NULL, 'saved before rules had scopes', created_at FROM rules;
      DROP TABLE rules;
      ALTER TABLE rules_scoped RENAME TO rules;
      CREATE UNIQUE INDEX rules_unique ON rules (tool, pattern, scope, IFNULL(scope_value, ''));
      CREATE INDEX rules_scope ON rules (scope, scope_value);
      CREATE TRIGGER rules_follow_conversation AFTER DELETE ON conversations BEGIN
        DELETE FROM rules WHERE scope = 'conversation' AND scope_value = OLD.id;
      END;`,
    },
    {
      // Grants get a lifetime (an hour, today, until revoked) and may last one task (a run) only (issue 46).
      description: 'rule lifetimes and task grants',
      sql: `
      ALTER TABLE rules ADD COLUMN run_id TEXT;
      ALTER TABLE rules ADD COLUMN expires_at INTEGER;
      DROP INDEX rules_unique;
      CREATE UNIQUE INDEX rules_unique ON rules (tool, pattern, scope, IFNULL(scope_value, ''), IFNULL(run_id, ''));`,
    },
  ],
  queries: (sql: Sql) => ({
    /** Adds a rule; an identical rule (tool, pattern, scope) already saved is returned instead. */
    add: (r: NewRule): RuleRow => {
      const row = { ...r, run_id: r.run_id ?? null, expires_at: r.expires_at ?? null, created_at: Date.now() };
      // Saving again what is already saved renews it: the later of the two ends (null, until revoked, outlasts any).
      sql.run(
        `INSERT INTO rules (id, tool, pattern, scope, scope_value, source, created_at, run_id, expires_at) VALUES (@id, @tool, @pattern, @scope, @scope_value, @source, @created_at, @run_id, @expires_at)
         ON CONFLICT DO UPDATE SET expires_at = CASE WHEN rules.expires_at IS NULL OR excluded.expires_at IS NULL THEN NULL ELSE MAX(rules.expires_at, excluded.expires_at) END`,
        row,
      );
      return sql.one<RuleRow>(
        "SELECT * FROM rules WHERE tool = ? AND pattern = ? AND scope = ? AND IFNULL(scope_value, '') = IFNULL(?, '') AND IFNULL(run_id, '') = IFNULL(?, '')",
        r.tool,
        r.pattern,
        r.scope,
        r.scope_value,
        row.run_id,
      )!;
    },
    has: (tool: string, pattern: string) => sql.one('SELECT 1 FROM rules WHERE tool = ? AND pattern = ?', tool, pattern) !== undefined,
    get: (id: string) => sql.one<RuleRow>('SELECT * FROM rules WHERE id = ?', id),
    list: () => sql.all<RuleRow>('SELECT * FROM rules ORDER BY created_at'),
    /**
     * The rules that apply to one conversation now: its own, its folder's, and those saved for everywhere; not expired,
     * and a task's grant only within its run (`runId`). Read from the store at every step, so a revoke or an expiry
     * takes effect at the next call in every process.
     */
    forConversation: (conversationId: string, folder: string, runId: string | null = null, now = Date.now()) =>
      sql.all<RuleRow>(
        "SELECT * FROM rules WHERE (scope = 'everywhere' OR (scope = 'conversation' AND scope_value = ?) OR (scope = 'workspace' AND scope_value = ?)) AND (expires_at IS NULL OR expires_at > ?) AND (run_id IS NULL OR run_id = ?)",
        conversationId,
        folder,
        now,
        runId ?? '',
      ),
    remove: (id: string) => sql.run('DELETE FROM rules WHERE id = ?', id).changes > 0,
    noteMatch: (ids: readonly string[], at: number) => {
      for (const id of ids) sql.run('UPDATE rules SET match_count = match_count + 1, last_matched_at = ? WHERE id = ?', at, id);
    },
  }),
});
