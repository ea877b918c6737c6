/**
 * The usage ledger as the CLI, the app's Usage page and `runs show` read it: the store's sums folded by the one shared
 * fold (src/shared/usage.ts), priced with the maintained table and the person's overrides.
 */
import { priceTable, type Price } from '../../../shared/prices';
import { usageReport, usageTotals, type UsageReport, type UsageTotals } from '../../../shared/usage';
import { DeskhandError } from '../../../shared/errors';
import { type Records } from '../../runtime/records';

export function pricesOf(store: Records): Readonly<Record<string, Price>> {
  return priceTable(store.usage.prices());
}

/** The report since a day (local midnight of `since`, YYYY-MM-DD), or over everything. */
export function usageReportOf(store: Records, opts: { since?: string | null } = {}): UsageReport {
  const since = opts.since ? sinceMs(opts.since) : 0;
  const groups = store.usage.groups({ since });
  const labels = new Map<string, string>();
  for (const id of new Set(groups.map((g) => g.root_conversation_id))) {
    if (!id) continue;
    const conv = store.getConversation(id);
    if (conv) labels.set(id, conv.title);
  }
  return usageReport(groups, pricesOf(store), { since: opts.since ?? null, labels });
}

/** One turn's totals: its own calls and everything it caused (subagents at any depth, compaction, memory, media). */
export function turnUsageOf(store: Records, runId: string): UsageTotals & { byCause: Record<string, UsageTotals> } {
  const groups = store.usage.groups({ rootRunId: runId });
  const table = pricesOf(store);
  const byCause: Record<string, UsageTotals> = {};
  for (const cause of new Set(groups.map((g) => g.cause))) byCause[cause] = usageTotals(groups.filter((g) => g.cause === cause), table);
  return { ...usageTotals(groups, table), byCause };
}

/** A conversation's totals (its turns and what they caused). */
export function conversationUsageOf(store: Records, conversationId: string): UsageTotals {
  return usageTotals(store.usage.groups({ rootConversationId: conversationId }), pricesOf(store));
}

/** "2026-12-01" → that day's local midnight in ms; "7d" → local midnight six days ago (the last 7 days with today). */
export function sinceMs(day: string): number {
  const rel = /^(\d{1,4})d$/.exec(day);
  if (rel) {
    const d = new Date();
    return new Date(d.getFullYear(), d.getMonth(), d.getDate() - Math.max(0, Number(rel[1]) - 1)).getTime();
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const at = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime() : NaN;
  if (!m || Number.isNaN(at) || new Date(at).getDate() !== Number(m[3])) {
    throw new DeskhandError('usage', `"${day}" is not a day; give it as YYYY-MM-DD (e.g. --since ${new Date().toISOString().slice(0, 10)}) or as a number of days (--since 7d).`);
  }
  return at;
}
