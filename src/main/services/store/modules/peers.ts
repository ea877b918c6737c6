/**
 * Peers (services/peers): other people's agents over Agent2Agent — name, endpoint, disclosure tier, allow list, daily
 * budget, on/off — and their daily use. Tokens are never here: they are in the OS keyring.
 */
import { defineStoreModule, type Sql } from '../module';

export interface PeerRow {
  name: string;
  endpoint: string | null;
  tier: string;
  allow: string;
  turns_per_day: number;
  tokens_per_day: number;
  /** Dollars per UTC day; null: no cost limit. */
  cost_per_day: number | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export interface PeerUsageRow {
  peer: string;
  day: string;
  turns: number;
  tokens: number;
  cost_usd: number;
}

export interface PeerConversationRow {
  conversation_id: string;
  peer: string;
  context_id: string;
  created_at: number;
}

export const peersModule = defineStoreModule({
  name: 'peers',
  migrations: [
    {
      description: 'peers, their daily use and their conversations',
      sql: `
      CREATE TABLE peers (
        name TEXT PRIMARY KEY,
        endpoint TEXT,
        tier TEXT NOT NULL CHECK (tier IN ('public', 'internal', 'private')),
        allow TEXT NOT NULL DEFAULT '[]',
        turns_per_day INTEGER NOT NULL,
        tokens_per_day INTEGER NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE peer_usage (
        peer TEXT NOT NULL REFERENCES peers(name) ON DELETE CASCADE,
        day TEXT NOT NULL,
        turns INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (peer, day)
      );
      CREATE TABLE peer_conversations (
        conversation_id TEXT PRIMARY KEY,
        peer TEXT NOT NULL,
        context_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (peer, context_id)
      );`,
    },
    {
      description: "a peer's cost budget per day and its day's cost",
      sql: `
      ALTER TABLE peers ADD COLUMN cost_per_day REAL;
      ALTER TABLE peer_usage ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;`,
    },
  ],
  queries: (sql: Sql) => ({
    list: () => sql.all<PeerRow>('SELECT * FROM peers ORDER BY name'),
    get: (name: string) => sql.one<PeerRow>('SELECT * FROM peers WHERE name = ?', name) ?? null,
    insert(row: Omit<PeerRow, 'created_at' | 'updated_at'>): void {
      const now = Date.now();
      sql.run(
        'INSERT INTO peers (name, endpoint, tier, allow, turns_per_day, tokens_per_day, cost_per_day, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        row.name,
        row.endpoint,
        row.tier,
        row.allow,
        row.turns_per_day,
        row.tokens_per_day,
        row.cost_per_day,
        row.enabled,
        now,
        now,
      );
    },
    update(name: string, patch: Partial<Pick<PeerRow, 'endpoint' | 'tier' | 'allow' | 'turns_per_day' | 'tokens_per_day' | 'cost_per_day' | 'enabled'>>): boolean {
      const cols = Object.keys(patch) as (keyof typeof patch)[];
      if (!cols.length) return false;
      const set = cols.map((c) => `${c} = ?`).join(', ');
      return sql.run(`UPDATE peers SET ${set}, updated_at = ? WHERE name = ?`, ...cols.map((c) => patch[c] ?? null), Date.now(), name).changes > 0;
    },
    remove: (name: string) => sql.run('DELETE FROM peers WHERE name = ?', name).changes > 0,
    usage: (peer: string, day: string) => sql.one<PeerUsageRow>('SELECT * FROM peer_usage WHERE peer = ? AND day = ?', peer, day) ?? { peer, day, turns: 0, tokens: 0, cost_usd: 0 },
    addUsage(peer: string, day: string, turns: number, tokens: number, costUsd = 0): void {
      sql.run(
        'INSERT INTO peer_usage (peer, day, turns, tokens, cost_usd) VALUES (?, ?, ?, ?, ?) ON CONFLICT (peer, day) DO UPDATE SET turns = turns + excluded.turns, tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd',
        peer,
        day,
        turns,
        tokens,
        costUsd,
      );
    },
    conversationOf: (conversationId: string) => sql.oneShared<PeerConversationRow>('SELECT * FROM peer_conversations WHERE conversation_id = ?', conversationId) ?? null,
    conversationByContext: (peer: string, contextId: string) => sql.one<PeerConversationRow>('SELECT * FROM peer_conversations WHERE peer = ? AND context_id = ?', peer, contextId) ?? null,
    linkConversation(conversationId: string, peer: string, contextId: string): void {
      sql.run('INSERT OR IGNORE INTO peer_conversations (conversation_id, peer, context_id, created_at) VALUES (?, ?, ?, ?)', conversationId, peer, contextId, Date.now());
    },
  }),
});
