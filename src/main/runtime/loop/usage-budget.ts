/**
 * Budgets that pause instead of ending the work. Before each model call of a run (compaction's included), the
 * conversation's budget (its root conversation's, for a subagent), its active goal's token and cost budgets (spent
 * since the goal was accepted), the daily budget and — in a peer's conversation — that peer's daily budget are compared with what the ledger says was spent plus an estimate
 * of the next call (the conversation's last call, or nothing before the first):
 * when it would cross, the run parks with a budget hold, "budget reached: N spent of M — raise it, or stop". A person
 * answers it from the app or the CLI (`deskhand runs answer HOLD_ID --value '{"usd": 5}'`, or `{"stop": true}`), and
 * a raised run continues from exactly where it stood (nothing of its step was asked yet).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import { costOf, priceTable } from '../../../shared/prices';
import { usageTotals } from '../../../shared/usage';
import type { RunRow, Store } from '../../services/store/store';
import { subagentsModule } from '../../services/store/modules/subagents';
import { goalsModule } from '../../services/store/modules/goals';
import { peersModule } from '../../services/store/modules/peers';
import { usageModule, type HoldScope, type UsageGroupRow, type UsageHoldRow } from '../../services/store/modules/usage';
import type { Records } from '../records';

export interface BudgetReached {
  scope: HoldScope;
  scopeId: string;
  unit: 'usd' | 'tokens';
  spent: number;
  limit: number;
}

export const budgetAnswerSchema = z.union([
  z.strictObject({ usd: z.number().positive() }),
  z.strictObject({ tokens: z.number().int().positive() }),
  z.strictObject({ stop: z.literal(true) }),
]);
export type BudgetAnswer = z.infer<typeof budgetAnswerSchema>;
export const BUDGET_ANSWER_EXAMPLE = '{"usd": 5} (the new limit), {"tokens": 200000}, or {"stop": true}';

/** The conversation a budget is kept for: a subagent's root. */
export function budgetConversationOf(store: Store, conversationId: string): string {
  const child = store.module(subagentsModule).byConversation(conversationId);
  return child?.root_conversation_id ?? conversationId;
}

const localMidnight = (now: number) => {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
};

interface Limit {
  scope: HoldScope;
  scope_id: string;
  limit_usd: number | null;
  limit_tokens: number | null;
}

/** The token and cost budgets of the conversation's active goal (its turn and time budgets end it between cycles). */
function goalLimit(store: Store, conversationId: string): { row: Limit; since: number } | null {
  const goal = store.module(goalsModule).latestFor(conversationId);
  if (goal?.status !== 'active') return null;
  const budget = JSON.parse(goal.budget) as { tokens?: number; cost?: number };
  if (budget.tokens === undefined && budget.cost === undefined) return null;
  return { row: { scope: 'goal', scope_id: goal.id, limit_usd: budget.cost ?? null, limit_tokens: budget.tokens ?? null }, since: goal.created_at };
}

/** The first budget the next model call of this run would cross, or null. */
export function budgetReached(store: Store, run: RunRow, now = Date.now()): BudgetReached | null {
  const usage = store.module(usageModule);
  const budgets: { row: Limit; filter: { rootConversationId?: string; since?: number } }[] = [];
  const root = budgetConversationOf(store, run.conversation_id);
  const conv = usage.budget('conversation', root);
  if (conv) budgets.push({ row: conv, filter: { rootConversationId: root } });
  const goal = goalLimit(store, root);
  if (goal) budgets.push({ row: goal.row, filter: { rootConversationId: root, since: goal.since } });
  const day = usage.budget('day', '');
  if (day) budgets.push({ row: day, filter: { since: localMidnight(now) } });
  const peer = store.module(peersModule).conversationOf(root);
  if (budgets.length === 0 && !peer) return null;
  const table = priceTable(usage.prices());
  const last = usage.lastCall(root);
  const nextTokens = last ? last.input_tokens + last.output_tokens : 0;
  const nextCost = last ? (costOf(last.model, { inputTokens: last.input_tokens, outputTokens: last.output_tokens, cacheReadTokens: last.cache_read_tokens, cacheWriteTokens: last.cache_write_tokens }, table) ?? 0) : 0;
  // A peer's daily budget (UTC day): what its finished turns used today, plus this turn's calls so far.
  if (peer) {
    const row = store.module(peersModule).get(peer.peer);
    if (row) {
      const today = store.module(peersModule).usage(peer.peer, new Date(now).toISOString().slice(0, 10));
      const turn = usage.groups({ rootRunId: run.id });
      const tokens = today.tokens + turn.reduce((n, g) => n + g.input_tokens + g.output_tokens, 0);
      if (tokens + nextTokens > row.tokens_per_day) return { scope: 'peer', scopeId: row.name, unit: 'tokens', spent: tokens, limit: row.tokens_per_day };
      if (row.cost_per_day !== null) {
        const cost = today.cost_usd + knownCost(turn, table);
        if (cost + nextCost > row.cost_per_day) return { scope: 'peer', scopeId: row.name, unit: 'usd', spent: cost, limit: row.cost_per_day };
      }
    }
  }
  for (const { row, filter } of budgets) {
    const spent = usageTotals(usage.groups(filter), table);
    if (row.limit_tokens !== null) {
      const tokens = spent.inputTokens + spent.outputTokens;
      if (tokens + nextTokens > row.limit_tokens) return { scope: row.scope, scopeId: row.scope_id, unit: 'tokens', spent: tokens, limit: row.limit_tokens };
    }
    // Calls of models without a price count for nothing here (their tokens are judged by a token budget).
    if (row.limit_usd !== null) {
      const cost = spent.costUsd ?? knownCost(usage.groups(filter), table);
      if (cost + nextCost > row.limit_usd) return { scope: row.scope, scopeId: row.scope_id, unit: 'usd', spent: cost, limit: row.limit_usd };
    }
  }
  return null;
}

function knownCost(groups: readonly UsageGroupRow[], table: ReturnType<typeof priceTable>): number {
  let sum = 0;
  for (const g of groups) sum += costOf(g.model, { inputTokens: g.input_tokens, outputTokens: g.output_tokens, cacheReadTokens: g.cache_read_tokens, cacheWriteTokens: g.cache_write_tokens }, table) ?? 0;
  return sum;
}

/** A run that ended has no hold left open (stopped, or replaced by a new message). */
export function closeHolds(store: Store, runId: string): void {
  const usage = store.module(usageModule);
  for (const h of usage.pendingHolds(runId)) usage.answerHold(h.id, 'stopped');
}

/** Records a hold for a run the budget stops; returns it. */
export function openHold(store: Store, run: RunRow, reached: BudgetReached): UsageHoldRow {
  const id = `hold_${randomUUID()}`;
  store.module(usageModule).addHold({ id, run_id: run.id, conversation_id: run.conversation_id, scope: reached.scope, scope_id: reached.scopeId, spent: reached.spent, limit_value: reached.limit, unit: reached.unit });
  return store.module(usageModule).hold(id)!;
}

const amount = (unit: 'usd' | 'tokens', n: number) => (unit === 'usd' ? `$${n.toFixed(4)}` : `${Math.round(n).toLocaleString('en-US')} tokens`);

/** "Budget reached: $0.0310 spent of $0.0300 (this conversation's budget) — raise it, or stop." */
export function holdMessage(h: Pick<UsageHoldRow, 'scope' | 'scope_id' | 'unit' | 'spent' | 'limit_value'>): string {
  const which = h.scope === 'day' ? "today's budget" : h.scope === 'goal' ? "this goal's budget" : h.scope === 'peer' ? `peer ${h.scope_id}'s daily budget` : "this conversation's budget";
  return `Budget reached: ${amount(h.unit, h.spent)} spent of ${amount(h.unit, h.limit_value)} (${which}) — raise it, or stop.`;
}

/** Raises a goal's token or cost budget (the goals table keeps it; `cost` is in dollars). */
function raiseGoal(store: Records, goalId: string, unit: 'usd' | 'tokens', limit: number): void {
  const goals = store.goals;
  const goal = goals.get(goalId);
  if (!goal) throw new DeskhandError('not_found', `The goal ${goalId} of this hold no longer exists; answer {"stop": true}.`);
  const budget = JSON.parse(goal.budget) as Record<string, number>;
  goals.update(goalId, { budget: JSON.stringify({ ...budget, [unit === 'usd' ? 'cost' : 'tokens']: limit }) });
}

/**
 * Applies a person's answer to a hold: a raise sets the budget to the new limit (which must let the next call through
 * in the hold's unit), a stop leaves it. Returns the hold; the caller resumes or stops the run.
 */
export function answerHold(store: Records, holdId: string, value: unknown): { hold: UsageHoldRow; answer: BudgetAnswer } {
  const usage = store.usage;
  const hold = usage.hold(holdId);
  if (!hold) throw new DeskhandError('not_found', `No budget hold ${holdId}. See \`deskhand runs list\`.`);
  if (hold.status !== 'pending') throw new DeskhandError('conflict', `Budget hold ${holdId} was answered already (${hold.status}).`);
  const parsed = budgetAnswerSchema.safeParse(value);
  if (!parsed.success) throw new DeskhandError('usage', `That is not an answer to a budget hold. Expected JSON like ${BUDGET_ANSWER_EXAMPLE}.`);
  const answer = parsed.data;
  if (!('stop' in answer)) {
    const limit = 'usd' in answer ? answer.usd : answer.tokens;
    const unit = 'usd' in answer ? 'usd' : 'tokens';
    if (unit === hold.unit && limit <= hold.spent) {
      throw new DeskhandError('usage', `${amount(hold.unit, limit)} is not above what was spent (${amount(hold.unit, hold.spent)}); give a higher limit, or {"stop": true}.`);
    }
    if (hold.scope === 'goal') raiseGoal(store, hold.scope_id, unit, limit);
    else if (hold.scope === 'peer') {
      if (!store.peers.update(hold.scope_id, unit === 'usd' ? { cost_per_day: limit } : { tokens_per_day: Math.round(limit) })) {
        throw new DeskhandError('not_found', `Peer ${hold.scope_id} of this hold no longer exists; answer {"stop": true}.`);
      }
    } else {
      const current = usage.budget(hold.scope, hold.scope_id);
      usage.setBudget({
        scope: hold.scope,
        scope_id: hold.scope_id,
        limit_usd: unit === 'usd' ? limit : (current?.limit_usd ?? null),
        limit_tokens: unit === 'tokens' ? limit : (current?.limit_tokens ?? null),
      });
    }
  }
  if (!usage.answerHold(holdId, 'stop' in answer ? 'stopped' : 'raised')) throw new DeskhandError('conflict', `Budget hold ${holdId} was answered already.`);
  return { hold: usage.hold(holdId)!, answer };
}
