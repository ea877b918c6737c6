/**
 * The extensions family's tables: MCP servers configured by the person (CLI, Settings), each server's last known
 * health (written by whichever process connected it, read by `deskhand mcp list` and the health panel), project MCP
 * files a person approved (by path and content hash), agent profiles and which profile a conversation uses.
 */
import { defineStoreModule, type Sql } from '../module';

export interface McpServerRow {
  name: string;
  /** The server's configuration as JSON (services/mcp/config.ts `McpServerConfig`). */
  config: string;
  created_at: number;
  updated_at: number;
}

export interface McpHealthRow {
  name: string;
  status: 'connected' | 'connecting' | 'failed' | 'stopped';
  tool_count: number;
  last_error: string | null;
  stderr_tail: string | null;
  restarts: number;
  updated_at: number;
}

export interface McpTrustRow {
  path: string;
  sha256: string;
  approved_at: number;
}

export interface ProfileRow {
  name: string;
  /** services/mcp/profiles.ts `AgentProfile` as JSON. */
  config: string;
  updated_at: number;
}

export const extensionsModule = defineStoreModule({
  name: 'extensions',
  migrations: [
    {
      description: 'MCP servers, their health, approved project MCP files, agent profiles',
      sql: `
      CREATE TABLE mcp_servers (
        name TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE mcp_health (
        name TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        tool_count INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        stderr_tail TEXT,
        restarts INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE mcp_trust (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        approved_at INTEGER NOT NULL
      );
      CREATE TABLE agent_profiles (
        name TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE conversation_profiles (
        conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
        profile TEXT NOT NULL
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    servers: () => sql.all<McpServerRow>('SELECT * FROM mcp_servers ORDER BY name'),
    server: (name: string) => sql.one<McpServerRow>('SELECT * FROM mcp_servers WHERE name = ?', name),
    putServer(name: string, config: string): void {
      const now = Date.now();
      sql.run(
        'INSERT INTO mcp_servers (name, config, created_at, updated_at) VALUES (?,?,?,?) ON CONFLICT(name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at',
        name,
        config,
        now,
        now,
      );
    },
    removeServer(name: string): boolean {
      sql.run('DELETE FROM mcp_health WHERE name = ?', name);
      return sql.run('DELETE FROM mcp_servers WHERE name = ?', name).changes > 0;
    },
    health: () => sql.all<McpHealthRow>('SELECT * FROM mcp_health ORDER BY name'),
    putHealth(row: Omit<McpHealthRow, 'updated_at'>): void {
      sql.run(
        `INSERT INTO mcp_health (name, status, tool_count, last_error, stderr_tail, restarts, updated_at) VALUES (@name, @status, @tool_count, @last_error, @stderr_tail, @restarts, @updated_at)
         ON CONFLICT(name) DO UPDATE SET status = excluded.status, tool_count = excluded.tool_count, last_error = excluded.last_error, stderr_tail = excluded.stderr_tail, restarts = excluded.restarts, updated_at = excluded.updated_at`,
        { ...sql.fields(row, ['last_error', 'stderr_tail']), updated_at: Date.now() },
      );
    },
    trusted: (path: string) => sql.one<McpTrustRow>('SELECT * FROM mcp_trust WHERE path = ?', path),
    trust: (path: string, sha256: string) =>
      void sql.run('INSERT INTO mcp_trust (path, sha256, approved_at) VALUES (?,?,?) ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, approved_at = excluded.approved_at', path, sha256, Date.now()),
    profiles: () => sql.all<ProfileRow>('SELECT * FROM agent_profiles ORDER BY name'),
    profile: (name: string) => sql.one<ProfileRow>('SELECT * FROM agent_profiles WHERE name = ?', name),
    putProfile: (name: string, config: string) =>
      void sql.run('INSERT INTO agent_profiles (name, config, updated_at) VALUES (?,?,?) ON CONFLICT(name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at', name, config, Date.now()),
    removeProfile: (name: string) => sql.run('DELETE FROM agent_profiles WHERE name = ?', name).changes > 0,
    conversationProfile: (conversationId: string) => sql.oneShared<{ profile: string }>('SELECT profile FROM conversation_profiles WHERE conversation_id = ?', conversationId)?.profile ?? null,
    setConversationProfile: (conversationId: string, profile: string) =>
      void sql.run('INSERT INTO conversation_profiles (conversation_id, profile) VALUES (?,?) ON CONFLICT(conversation_id) DO UPDATE SET profile = excluded.profile', conversationId, profile),
  }),
});
