/**
 * The tool list of each MCP server as the person last saw it (issue 43, M3): a hash of its tools' names, descriptions
 * and schemas. A run whose request carries tools of a server whose list differs from it is tainted (the server may
 * have changed what it tells the model since the person looked).
 */
import { defineStoreModule, type Sql } from '../module';

export interface McpSeenRow {
  name: string;
  sha256: string;
  seen_at: number;
}

export const mcpSeenModule = defineStoreModule({
  name: 'mcp-seen',
  migrations: [
    {
      description: 'MCP tool lists as the person last saw them',
      sql: `
      CREATE TABLE mcp_seen_tools (
        name TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        seen_at INTEGER NOT NULL
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    seen: (name: string) => sql.one<McpSeenRow>('SELECT * FROM mcp_seen_tools WHERE name = ?', name),
    /** Records the list the person saw (replacing the one before). */
    see(name: string, sha256: string): void {
      sql.run('INSERT INTO mcp_seen_tools (name, sha256, seen_at) VALUES (?,?,?) ON CONFLICT(name) DO UPDATE SET sha256 = excluded.sha256, seen_at = excluded.seen_at', name, sha256, Date.now());
    },
    /** Records a first list only (a server's first connection after the person added it). */
    seeFirst(name: string, sha256: string): void {
      sql.run('INSERT OR IGNORE INTO mcp_seen_tools (name, sha256, seen_at) VALUES (?,?,?)', name, sha256, Date.now());
    },
    forget: (name: string) => sql.run('DELETE FROM mcp_seen_tools WHERE name = ?', name),
  }),
});
