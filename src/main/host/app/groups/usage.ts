/** The Usage page's methods: the ledger's report, budgets, and a budget hold's Raise / Stop (a handler group). */
import type { HandlerGroup } from '../handler-groups';
import type { USAGE_METHOD_NAMES, BudgetHoldView, BudgetView } from '../../../../shared/contract/usage';
import { DeskhandError } from '../../../../shared/errors';
import { holdMessage } from '../../../runtime/loop/usage-budget';
import { conversationUsageOf, usageReportOf } from '../usage-projection';
import { type BudgetRow, type Records, type UsageHoldRow } from '../../../runtime/records';

const budgetView = (b: BudgetRow): BudgetView => ({ scope: b.scope, conversationId: b.scope === 'conversation' ? b.scope_id : null, usd: b.limit_usd, tokens: b.limit_tokens });
export const holdView = (h: UsageHoldRow): BudgetHoldView => ({
  id: h.id,
  runId: h.run_id,
  conversationId: h.conversation_id,
  scope: h.scope,
  unit: h.unit,
  spent: h.spent,
  limit: h.limit_value,
  message: holdMessage(h),
});

const budgets = (store: Records) => store.usage.budgets().map(budgetView);

export const usageGroup =
  (deps: { answerHold(holdId: string, value: unknown): Promise<boolean> }): HandlerGroup<(typeof USAGE_METHOD_NAMES)[number]> =>
  ({ runtime }) => ({
    async getUsage(p) {
      const store = runtime.records;
      return { report: usageReportOf(store, { since: p.since ?? null }), budgets: budgets(store), holds: store.usage.pendingHolds().map(holdView) };
    },
    async getConversationUsage(p) {
      const store = runtime.records;
      const holds = store.usage.pendingHolds().filter((h) => h.conversation_id === p.conversationId);
      return { total: conversationUsageOf(store, p.conversationId), holds: holds.map(holdView) };
    },
    async setBudget(p) {
      const store = runtime.records;
      const q = store.usage;
      if (p.scope === 'conversation' && !p.conversationId) throw new DeskhandError('usage', 'A conversation budget needs the conversation.');
      if (p.conversationId && !store.getConversation(p.conversationId)) throw new DeskhandError('not_found', 'That conversation does not exist (it may have been deleted).');
      const scopeId = p.scope === 'conversation' ? p.conversationId! : '';
      if (p.usd === null && p.tokens === null) q.removeBudget(p.scope, scopeId);
      else q.setBudget({ scope: p.scope, scope_id: scopeId, limit_usd: p.usd, limit_tokens: p.tokens });
      return { budgets: budgets(store) };
    },
    async answerBudgetHold(p) {
      return { resumed: await deps.answerHold(p.holdId, p.value) };
    },
  });
