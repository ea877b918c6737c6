/**
 * The usage ledger: one row per model call (tokens as the provider reported them, what caused the call, the turn and
 * conversation it counts toward), the person's price overrides, budgets, and the holds a budget put on runs.
 * Costs are not stored: they are computed when read, from the price table in force (src/shared/prices.ts plus the
 * overrides here), so a corrected price corrects the history and an unknown model stays "unknown".
 */
import { defineStoreModule, type Sql } from '../module';

export interface UsageCallRow {
  id: number;
  at: number;
  /** What the call was for: turn, subagent, compaction, memory, media, connection-test. */
  cause: string;
  /** The conversation (and run) the call was made in; a subagent's own conversation for its calls. */
  conversation_id: string | null;
  run_id: string | null;
  /** Where it counts: the person's conversation and turn (a subagent's calls count toward its root's). */
  root_conversation_id: string | null;
  root_run_id: string | null;
  /** The tool call in the root conversation that caused it (the `spawn_subagent` call), when one did. */
  tool_call_id: string | null;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

export type NewUsageCall = Omit<UsageCallRow, 'id'>;

/** Sums per (day, root conversation, provider, model, cause): every view (by day, conversation, model, cause) folds these. */
export interface UsageGroupRow {
  day: string;
  root_conversation_id: string | null;
  provider: string;
  model: string;
  cause: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

export interface PriceOverrideRow {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cache_read_per_mtok: number;
  cache_write_per_mtok: number;
  updated_at: number;
}

/** `conversation` (scope_id: the conversation) or `day` (scope_id: '', every day). */
export type BudgetScope = 'conversation' | 'day';
/**
 * What a hold was reached on: a budget of this table, a goal's own (scope_id: the goal; kept in the goals table) or a
 * peer's daily budget (scope_id: the peer's name; kept in the peers table).
 */
export type HoldScope = BudgetScope | 'goal' | 'peer';

export interface BudgetRow {
  scope: BudgetScope;
  scope_id: string;
  limit_usd: number | null;
  limit_tokens: number | null;
  updated_at: number;
}

export interface UsageHoldRow {
  id: string;
  run_id: string;
  conversation_id: string;
  scope: HoldScope;
  scope_id: string;
  /** What was spent and the limit when the run stopped, in the budget's unit (dollars or tokens). */
  spent: number;
  limit_value: number;
  unit: 'usd' | 'tokens';
  status: 'pending' | 'raised' | 'stopped';
  created_at: number;
  answered_at: number | null;
}

const SUMS = `count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens,
  sum(cache_write_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens`;

export const usageModule = defineStoreModule({
  name: 'usage',
  migrations: [
    {
      description: 'usage ledger: model calls, price overrides, budgets, budget holds',
      sql: `
      CREATE TABLE usage_calls (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        cause TEXT NOT NULL,
        conversation_id TEXT,
        run_id TEXT,
        root_conversation_id TEXT,
        root_run_id TEXT,
        tool_call_id TEXT,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL
      );
      CREATE INDEX usage_calls_at ON usage_calls(at);
      CREATE INDEX usage_calls_root_conversation ON usage_calls(root_conversation_id, at);
      CREATE INDEX usage_calls_root_run ON usage_calls(root_run_id);
      CREATE TABLE usage_prices (
        model TEXT PRIMARY KEY,
        input_per_mtok REAL NOT NULL,
        output_per_mtok REAL NOT NULL,
        cache_read_per_mtok REAL NOT NULL,
        cache_write_per_mtok REAL NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE usage_budgets (
        scope TEXT NOT NULL CHECK (scope IN ('conversation', 'day')),
        scope_id TEXT NOT NULL,
        limit_usd REAL,
        limit_tokens INTEGER,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (scope, scope_id)
      );
      CREATE TABLE usage_holds (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        scope_id TEXT NOT NULL,
        spent REAL NOT NULL,
        limit_value REAL NOT NULL,
        unit TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'raised', 'stopped')),
        created_at INTEGER NOT NULL,
        answered_at INTEGER
      );
      CREATE INDEX usage_holds_run ON usage_holds(run_id, status);`,
    },
  ],
  queries: (sql: Sql) => ({
    record: (row: NewUsageCall) =>
      void sql.run(
        `INSERT INTO usage_calls (at, cause, conversation_id, run_id, root_conversation_id, root_run_id, tool_call_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens)
         VALUES (@at, @cause, @conversation_id, @run_id, @root_conversation_id, @root_run_id, @tool_call_id, @provider, @model, @input_tokens, @output_tokens, @cache_read_tokens, @cache_write_tokens, @reasoning_tokens)`,
        row,
      ),
    /** Groups since `since` (ms; 0: everything), optionally only a root conversation's or a root run's. */
    groups: (filter: { since?: number; rootConversationId?: string; rootRunId?: string } = {}) =>
      sql.all<UsageGroupRow>(
        `SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch', 'localtime') AS day, root_conversation_id, provider, model, cause, ${SUMS}
         FROM usage_calls WHERE at >= @since AND (@conv IS NULL OR root_conversation_id = @conv) AND (@run IS NULL OR root_run_id = @run)
         GROUP BY day, root_conversation_id, provider, model, cause ORDER BY day, root_conversation_id, model, cause`,
        { since: filter.since ?? 0, conv: filter.rootConversationId ?? null, run: filter.rootRunId ?? null },
      ),
    /** Per-model sums of one root run's calls, by run (for the turn usage lines). */
    forRuns: (runIds: readonly string[]) =>
      runIds.length === 0
        ? []
        : sql.all<UsageGroupRow & { root_run_id: string }>(
            `SELECT root_run_id, '' AS day, root_conversation_id, provider, model, cause, ${SUMS} FROM usage_calls
             WHERE root_run_id IN (SELECT value FROM json_each(?)) GROUP BY root_run_id, provider, model, cause`,
            JSON.stringify(runIds),
          ),
    /** The newest call counted toward a root conversation (the estimate of the next one). */
    /** The newest calls of the person's work (turns and their subagents), a root conversation's first when given. */
    recentCalls: (limit: number, rootConversationId: string | null = null) =>
      sql.all<UsageCallRow>(
        `SELECT * FROM usage_calls WHERE cause IN ('turn', 'subagent') AND (@conv IS NULL OR root_conversation_id = @conv) ORDER BY id DESC LIMIT @limit`,
        { conv: rootConversationId, limit },
      ),
    lastCall: (rootConversationId: string) => sql.one<UsageCallRow>('SELECT * FROM usage_calls WHERE root_conversation_id = ? ORDER BY id DESC LIMIT 1', rootConversationId),
    calls: (filter: { rootRunId: string }) => sql.all<UsageCallRow>('SELECT * FROM usage_calls WHERE root_run_id = ? ORDER BY id', filter.rootRunId),
    prices: () => sql.all<PriceOverrideRow>('SELECT * FROM usage_prices ORDER BY model'),
    setPrice: (row: Omit<PriceOverrideRow, 'updated_at'>) =>
      void sql.run(
        `INSERT INTO usage_prices (model, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok, updated_at)
         VALUES (@model, @input_per_mtok, @output_per_mtok, @cache_read_per_mtok, @cache_write_per_mtok, @now)
         ON CONFLICT (model) DO UPDATE SET input_per_mtok = excluded.input_per_mtok, output_per_mtok = excluded.output_per_mtok,
           cache_read_per_mtok = excluded.cache_read_per_mtok, cache_write_per_mtok = excluded.cache_write_per_mtok, updated_at = excluded.updated_at`,
        { ...row, now: Date.now() },
      ),
    removePrice: (model: string) => sql.run('DELETE FROM usage_prices WHERE model = ?', model).changes > 0,
    budgets: () => sql.all<BudgetRow>('SELECT * FROM usage_budgets ORDER BY scope, scope_id'),
    budget: (scope: BudgetScope, scopeId: string) => sql.one<BudgetRow>('SELECT * FROM usage_budgets WHERE scope = ? AND scope_id = ?', scope, scopeId),
    setBudget: (row: Omit<BudgetRow, 'updated_at'>) =>
      void sql.run(
        `INSERT INTO usage_budgets (scope, scope_id, limit_usd, limit_tokens, updated_at) VALUES (@scope, @scope_id, @limit_usd, @limit_tokens, @now)
         ON CONFLICT (scope, scope_id) DO UPDATE SET limit_usd = excluded.limit_usd, limit_tokens = excluded.limit_tokens, updated_at = excluded.updated_at`,
        { ...row, now: Date.now() },
      ),
    removeBudget: (scope: BudgetScope, scopeId: string) => sql.run('DELETE FROM usage_budgets WHERE scope = ? AND scope_id = ?', scope, scopeId).changes > 0,
    addHold: (row: Omit<UsageHoldRow, 'created_at' | 'answered_at' | 'status'>) =>
      void sql.run(
        `INSERT INTO usage_holds (id, run_id, conversation_id, scope, scope_id, spent, limit_value, unit, status, created_at)
         VALUES (@id, @run_id, @conversation_id, @scope, @scope_id, @spent, @limit_value, @unit, 'pending', @now)`,
        { ...row, now: Date.now() },
      ),
    hold: (id: string) => sql.one<UsageHoldRow>('SELECT * FROM usage_holds WHERE id = ?', id),
    // A run's own holds by its index (every run's end asks); all pending ones for the lists.
    pendingHolds: (runId?: string) =>
      runId === undefined
        ? sql.all<UsageHoldRow>("SELECT * FROM usage_holds WHERE status = 'pending' ORDER BY created_at")
        : sql.all<UsageHoldRow>("SELECT * FROM usage_holds WHERE run_id = ? AND status = 'pending' ORDER BY created_at", runId),
    /** Answers a pending hold; false when it was answered already (by another process). */
    answerHold: (id: string, status: 'raised' | 'stopped') => sql.run("UPDATE usage_holds SET status = ?, answered_at = ? WHERE id = ? AND status = 'pending'", status, Date.now(), id).changes > 0,
  }),
});
