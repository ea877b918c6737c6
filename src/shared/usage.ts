/**
 * The usage ledger as people read it: sums of tokens and cost by day, conversation, model, provider and kind of work
 * (a turn's own calls, subagents, compaction, memory extraction, the media companion, connection tests). One fold for
 * the CLI (`deskhand usage`), the app's Usage page and `runs show`, so the three agree. A cost is null ("unknown")
 * as soon as any of its calls used a model the price table does not know: never a partial sum shown as the whole.
 */
import { z } from 'zod';
import { costOf, type Price } from './prices';

export const USAGE_CAUSES = ['turn', 'subagent', 'compaction', 'memory', 'media', 'connection-test'] as const;
export type UsageCause = (typeof USAGE_CAUSES)[number];

export const usageTotalsSchema = z.strictObject({
  calls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  reasoningTokens: z.number(),
  /** Dollars, or null when a model among these calls has no price. */
  costUsd: z.number().nullable(),
  /** The models without a price (why costUsd is null). */
  unpricedModels: z.array(z.string()),
});
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

export const usageEntrySchema = usageTotalsSchema.extend({
  key: z.string(),
  /** For a conversation: its title, when it still exists. */
  label: z.string().optional(),
  /** Share of all tokens (input + output) in this view, 0–1. */
  share: z.number(),
});
export type UsageEntry = z.infer<typeof usageEntrySchema>;

export const usageReportSchema = z.strictObject({
  since: z.string().nullable(),
  total: usageTotalsSchema,
  byDay: z.array(usageEntrySchema),
  byConversation: z.array(usageEntrySchema),
  byModel: z.array(usageEntrySchema),
  byProvider: z.array(usageEntrySchema),
  byCause: z.array(usageEntrySchema),
});
export type UsageReport = z.infer<typeof usageReportSchema>;

/** One group of ledger rows (the store's sums per day, conversation, provider, model and cause). */
export interface UsageGroup {
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

const empty = (): UsageTotals => ({ calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: 0, unpricedModels: [] });

function add(t: UsageTotals, g: UsageGroup, table: Readonly<Record<string, Price>>): void {
  t.calls += g.calls;
  t.inputTokens += g.input_tokens;
  t.outputTokens += g.output_tokens;
  t.cacheReadTokens += g.cache_read_tokens;
  t.cacheWriteTokens += g.cache_write_tokens;
  t.reasoningTokens += g.reasoning_tokens;
  if (g.input_tokens + g.output_tokens === 0) return;
  const c = costOf(g.model, { inputTokens: g.input_tokens, outputTokens: g.output_tokens, cacheReadTokens: g.cache_read_tokens, cacheWriteTokens: g.cache_write_tokens }, table);
  if (c === null) {
    if (!t.unpricedModels.includes(g.model)) t.unpricedModels.push(g.model);
    t.costUsd = null;
  } else if (t.costUsd !== null) t.costUsd += c;
}

/** The sum of some groups. */
export function usageTotals(groups: readonly UsageGroup[], table: Readonly<Record<string, Price>>): UsageTotals {
  const t = empty();
  for (const g of groups) add(t, g, table);
  return t;
}

/** Every view of the ledger over these groups. `labels`: conversation titles by id. */
export function usageReport(groups: readonly UsageGroup[], table: Readonly<Record<string, Price>>, opts: { since?: string | null; labels?: ReadonlyMap<string, string> } = {}): UsageReport {
  const total = usageTotals(groups, table);
  const all = total.inputTokens + total.outputTokens;
  const view = (keyOf: (g: UsageGroup) => string, label?: (key: string) => string | undefined): UsageEntry[] => {
    const by = new Map<string, UsageTotals>();
    for (const g of groups) {
      const key = keyOf(g);
      let t = by.get(key);
      if (!t) by.set(key, (t = empty()));
      add(t, g, table);
    }
    return [...by].map(([key, t]) => {
      const name = label?.(key);
      return { key, ...(name !== undefined ? { label: name } : {}), ...t, share: all === 0 ? 0 : (t.inputTokens + t.outputTokens) / all };
    });
  };
  const byTokens = (a: UsageEntry, b: UsageEntry) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens);
  return {
    since: opts.since ?? null,
    total,
    byDay: view((g) => g.day),
    byConversation: view((g) => g.root_conversation_id ?? '(none)', (k) => opts.labels?.get(k)).sort(byTokens),
    byModel: view((g) => g.model).sort(byTokens),
    byProvider: view((g) => g.provider).sort(byTokens),
    byCause: view((g) => g.cause).sort(byTokens),
  };
}

/** "$0.0123", "<$0.0001", or "unknown (no price for m1, m2)". */
export function formatTotalCost(t: Pick<UsageTotals, 'costUsd' | 'unpricedModels'>): string {
  if (t.costUsd === null) return `unknown (no price for ${t.unpricedModels.join(', ')})`;
  if (t.costUsd > 0 && t.costUsd < 0.0001) return '<$0.0001';
  return `$${t.costUsd < 1 ? t.costUsd.toFixed(4) : t.costUsd.toFixed(2)}`;
}

/** Words for a cause, for the Usage page and the CLI. */
export const CAUSE_LABELS: Readonly<Record<string, string>> = {
  turn: 'Conversation turns',
  subagent: 'Subagents',
  compaction: 'Compaction',
  memory: 'Memory extraction',
  media: 'Media companion',
  'connection-test': 'Connection tests',
};
