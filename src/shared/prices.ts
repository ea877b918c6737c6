/**
 * The price table: US dollars per million input and output tokens, by model name. The one place prices live (see
 * docs/chat.md); a model not listed here is shown with its tokens only, never with a guessed cost. A name matches an
 * entry when it is the entry or starts with it followed by `-` (dated snapshots: `claude-sonnet-4-5-20250929`).
 * Checked against the providers' public price pages in 2025; edit here when they change.
 */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

export const PRICES: Readonly<Record<string, Price>> = {
  'claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-opus-4': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-3-7-sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'o3': { inputPerMTok: 2, outputPerMTok: 8 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
};

/** The price of a model, or null when the table does not know it. The longest matching entry wins. */
export function priceOf(model: string, table: Readonly<Record<string, Price>> = PRICES): Price | null {
  let best: string | null = null;
  for (const name of Object.keys(table)) {
    if ((model === name || model.startsWith(`${name}-`)) && (best === null || name.length > best.length)) best = name;
  }
  return best === null ? null : table[best]!;
}

/** Dollars for these tokens on this model, or null when its price is unknown. */
export function costOf(model: string, inputTokens: number, outputTokens: number): number | null {
  const p = priceOf(model);
  return p ? (inputTokens * p.inputPerMTok + outputTokens * p.outputPerMTok) / 1_000_000 : null;
}

/** "$0.0123", "<$0.0001", or null. */
export function formatCost(usd: number | null): string | null {
  if (usd === null) return null;
  if (usd > 0 && usd < 0.0001) return '<$0.0001';
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** "1,234 in · 56 out · $0.0123" (tokens only when the price is unknown). */
export function formatUsage(u: { inputTokens: number; outputTokens: number; costUsd: number | null }): string {
  const cost = formatCost(u.costUsd);
  return `${u.inputTokens.toLocaleString('en-US')} in · ${u.outputTokens.toLocaleString('en-US')} out${cost ? ` · ${cost}` : ''}`;
}
