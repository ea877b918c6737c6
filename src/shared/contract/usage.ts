/** The contract's usage methods (the Usage page, budgets, a budget hold's Raise / Stop). Pure. */
import { z } from 'zod';
import { usageReportSchema, usageTotalsSchema } from '../usage';

export const budgetViewSchema = z.strictObject({
  scope: z.enum(['conversation', 'day']),
  conversationId: z.string().nullable(),
  usd: z.number().nullable(),
  tokens: z.number().nullable(),
});
export type BudgetView = z.infer<typeof budgetViewSchema>;

export const budgetHoldViewSchema = z.strictObject({
  id: z.string(),
  runId: z.string(),
  conversationId: z.string(),
  /** `goal`: the conversation's goal budget; `peer`: the daily budget of the peer whose conversation it is. */
  scope: z.enum(['conversation', 'day', 'goal', 'peer']),
  unit: z.enum(['usd', 'tokens']),
  spent: z.number(),
  limit: z.number(),
  /** "Budget reached: N spent of M (…) — raise it, or stop." */
  message: z.string(),
});
export type BudgetHoldView = z.infer<typeof budgetHoldViewSchema>;

const day = z.string().regex(/^(\d{4}-\d{2}-\d{2}|\d{1,4}d)$/, 'a day as YYYY-MM-DD, or a number of days such as 7d');

export const usageMethods = {
  /** The ledger's report (since a day, else everything), the budgets and the holds waiting for a person. */
  getUsage: {
    params: z.strictObject({ since: day.optional() }),
    result: z.strictObject({ report: usageReportSchema, budgets: z.array(budgetViewSchema), holds: z.array(budgetHoldViewSchema) }),
  },
  /** One conversation's total (its turns and what they caused), for the conversation header. */
  getConversationUsage: { params: z.strictObject({ conversationId: z.string().max(100) }), result: z.strictObject({ total: usageTotalsSchema, holds: z.array(budgetHoldViewSchema) }) },
  /** Sets (or, with both limits null, removes) a conversation's or the daily budget. */
  setBudget: {
    params: z.strictObject({ scope: z.enum(['conversation', 'day']), conversationId: z.string().max(100).optional(), usd: z.number().positive().nullable(), tokens: z.number().int().positive().nullable() }),
    result: z.strictObject({ budgets: z.array(budgetViewSchema) }),
  },
  /** Raises the budget a hold stopped at (the run continues here), or stops the run. */
  answerBudgetHold: {
    params: z.strictObject({ holdId: z.string().regex(/^hold_[0-9a-f-]{36}$/, 'not a budget hold id'), value: z.union([z.strictObject({ usd: z.number().positive() }), z.strictObject({ tokens: z.number().int().positive() }), z.strictObject({ stop: z.literal(true) })]) }),
    result: z.strictObject({ resumed: z.boolean() }),
  },
} as const;

export const USAGE_METHOD_NAMES = ['getUsage', 'getConversationUsage', 'setBudget', 'answerBudgetHold'] as const;
