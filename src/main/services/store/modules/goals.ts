/** Goals (a durable objective a conversation pursues in a loop of turns) and the log of their cycles. */
import { defineStoreModule, type Sql } from '../module';

/** `waiting`: a cycle asked the person a question; the loop resumes once they answer in the conversation. */
export type GoalStatus = 'active' | 'waiting' | 'complete' | 'blocked' | 'exhausted' | 'ended';

export interface GoalRow {
  id: string;
  conversation_id: string;
  objective: string;
  /** JSON string[]: observable completion criteria. */
  criteria: string;
  status: GoalStatus;
  /** JSON {turns?, tokens?, ms?, cost?}: the person's accepted limits. */
  budget: string;
  /** JSON {turns, tokens, ms, cost}: what the goal's cycles used so far. */
  used: string;
  consecutive_blocked: number;
  /** Why the goal stopped (complete summary, the budget that ran out, the block, end_loop's reason). */
  ended_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface GoalCycleRow {
  id: string;
  goal_id: string;
  n: number;
  run_id: string | null;
  /** What the model reported (continue, complete, blocked), or 'unreported' when the cycle ended without a report. */
  reported: string;
  summary: string;
  /** JSON [{callId, quote}] as accepted. */
  evidence: string;
  tokens: number;
  ms: number;
  created_at: number;
}

export const goalsModule = defineStoreModule({
  name: 'goals',
  migrations: [
    {
      description: 'goals and goal cycles',
      sql: `
      CREATE TABLE goals (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        objective TEXT NOT NULL,
        criteria TEXT NOT NULL,
        status TEXT NOT NULL,
        budget TEXT NOT NULL,
        used TEXT NOT NULL,
        consecutive_blocked INTEGER NOT NULL DEFAULT 0,
        ended_reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX goals_conversation ON goals (conversation_id, created_at);
      CREATE TABLE goal_cycles (
        id TEXT PRIMARY KEY,
        goal_id TEXT NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        run_id TEXT,
        reported TEXT NOT NULL,
        summary TEXT NOT NULL,
        evidence TEXT NOT NULL,
        tokens INTEGER NOT NULL DEFAULT 0,
        ms INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX goal_cycles_goal ON goal_cycles (goal_id, n);`,
    },
  ],
  queries: (sql: Sql) => ({
    insert: (r: GoalRow) =>
      void sql.run(
        `INSERT INTO goals (id, conversation_id, objective, criteria, status, budget, used, consecutive_blocked, ended_reason, created_at, updated_at)
         VALUES (@id, @conversation_id, @objective, @criteria, @status, @budget, @used, @consecutive_blocked, @ended_reason, @created_at, @updated_at)`,
        r,
      ),
    update: (id: string, patch: Partial<Pick<GoalRow, 'status' | 'budget' | 'used' | 'consecutive_blocked' | 'ended_reason'>>) => {
      const keys = Object.keys(patch);
      if (!keys.length) return;
      sql.run(`UPDATE goals SET ${keys.map((k) => `${k} = @${k}`).join(', ')}, updated_at = @updated_at WHERE id = @id`, { ...patch, id, updated_at: Date.now() });
    },
    get: (id: string) => sql.one<GoalRow>('SELECT * FROM goals WHERE id = ?', id),
    /** The conversation's newest goal (active or stopped), or undefined. */
    latestFor: (conversationId: string) => sql.oneShared<GoalRow>('SELECT * FROM goals WHERE conversation_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1', conversationId),
    active: () => sql.all<GoalRow>("SELECT * FROM goals WHERE status = 'active' ORDER BY created_at"),
    list: () => sql.all<GoalRow>('SELECT * FROM goals ORDER BY created_at DESC, rowid DESC'),
    addCycle: (r: GoalCycleRow) =>
      void sql.run(
        'INSERT INTO goal_cycles (id, goal_id, n, run_id, reported, summary, evidence, tokens, ms, created_at) VALUES (@id, @goal_id, @n, @run_id, @reported, @summary, @evidence, @tokens, @ms, @created_at)',
        r,
      ),
    updateCycle: (id: string, patch: Partial<Pick<GoalCycleRow, 'reported' | 'summary' | 'evidence' | 'tokens' | 'ms'>>) => {
      const keys = Object.keys(patch);
      if (keys.length) sql.run(`UPDATE goal_cycles SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`, { ...patch, id });
    },
    cycles: (goalId: string) => sql.all<GoalCycleRow>('SELECT * FROM goal_cycles WHERE goal_id = ? ORDER BY n', goalId),
    cycleForRun: (goalId: string, runId: string) => sql.one<GoalCycleRow>('SELECT * FROM goal_cycles WHERE goal_id = ? AND run_id = ?', goalId, runId),
    transaction: <T>(fn: () => T) => sql.transaction(fn),
  }),
});
