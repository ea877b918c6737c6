/** Saved "always allow" rules: a tool and a pattern its calls must match. */
import { defineStoreModule, type Sql } from '../module';

export interface RuleRow {
  id: string;
  tool: string;
  pattern: string;
  created_at: number;
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
  ],
  queries: (sql: Sql) => ({
    add: (tool: string, pattern: string, id: string) => void sql.run('INSERT OR IGNORE INTO rules (id, tool, pattern, created_at) VALUES (?,?,?,?)', id, tool, pattern, Date.now()),
    has: (tool: string, pattern: string) => sql.one('SELECT 1 FROM rules WHERE tool = ? AND pattern = ?', tool, pattern) !== undefined,
    list: () => sql.all<RuleRow>('SELECT * FROM rules ORDER BY created_at'),
  }),
});
