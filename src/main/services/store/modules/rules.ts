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
}

export interface NewRule {
  id: string;
  tool: string;
  pattern: string;
  scope: RuleScope;
  scope_value: string | null;
  source: string | null;
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
  ],
  queries: (sql: Sql) => ({
    /** Adds a rule; an identical rule (tool, pattern, scope) already saved is returned instead. */
    add: (r: NewRule): RuleRow => {
      sql.run(
        'INSERT OR IGNORE INTO rules (id, tool, pattern, scope, scope_value, source, created_at) VALUES (@id, @tool, @pattern, @scope, @scope_value, @source, @created_at)',
        { ...r, created_at: Date.now() },
      );
      return sql.one<RuleRow>("SELECT * FROM rules WHERE tool = ? AND pattern = ? AND scope = ? AND IFNULL(scope_value, '') = IFNULL(?, '')", r.tool, r.pattern, r.scope, r.scope_value)!;
    },
    has: (tool: string, pattern: string) => sql.one('SELECT 1 FROM rules WHERE tool = ? AND pattern = ?', tool, pattern) !== undefined,
    get: (id: string) => sql.one<RuleRow>('SELECT * FROM rules WHERE id = ?', id),
    list: () => sql.all<RuleRow>('SELECT * FROM rules ORDER BY created_at'),
    /** The rules that apply to one conversation: its own, its folder's, and those saved for everywhere. */
    forConversation: (conversationId: string, folder: string) =>
      sql.all<RuleRow>(
        "SELECT * FROM rules WHERE scope = 'everywhere' OR (scope = 'conversation' AND scope_value = ?) OR (scope = 'workspace' AND scope_value = ?)",
        conversationId,
        folder,
      ),
    remove: (id: string) => sql.run('DELETE FROM rules WHERE id = ?', id).changes > 0,
    noteMatch: (ids: readonly string[], at: number) => {
      for (const id of ids) sql.run('UPDATE rules SET match_count = match_count + 1, last_matched_at = ? WHERE id = ?', at, id);
    },
  }),
});
