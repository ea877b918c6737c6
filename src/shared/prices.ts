/**
 * The price table: US dollars per million input and output tokens, by model name. The one place prices live (see
 * docs/chat.md); a model not listed here is shown with its tokens only, never with a guessed cost. A name matches an
 * entry when it is the entry or starts with it followed by `-` (dated snapshots: `claude-sonnet-4-5-20250929`).
 * Checked against the providers' public price pages in 2025; edit here when they change.
 */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input tokens read from the provider's prompt cache. */
  cacheReadPerMTok: number;
  /** Input tokens written to the prompt cache (Anthropic's five-minute cache: 1.25 × input; OpenAI: the input price). */
  cacheWritePerMTok: number;
}

/** Anthropic: a cache read costs a tenth of the input price, a (five-minute) cache write a quarter more. */
const anthropic = (input: number, output: number): Price => ({ inputPerMTok: input, outputPerMTok: output, cacheReadPerMTok: input / 10, cacheWritePerMTok: input * 1.25 });
/** OpenAI: cached input at its listed price; writing the cache costs nothing extra. */
const openai = (input: number, cached: number, output: number): Price => ({ inputPerMTok: input, outputPerMTok: output, cacheReadPerMTok: cached, cacheWritePerMTok: input });

export const PRICES: Readonly<Record<string, Price>> = {
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-4.1': openai(2, 0.5, 8),
  'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4o': openai(2.5, 1.25, 10),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  'o3': openai(2, 0.5, 8),
  'o4-mini': openai(1.1, 0.275, 4.4),
};

/**
 * The table in force: the maintained one with the person's overrides on top (an override names a model or a prefix,
 * as the table does; `deskhand usage prices set`, the Usage page).
 */
export function priceTable(overrides: readonly { model: string; input_per_mtok: number; output_per_mtok: number; cache_read_per_mtok: number; cache_write_per_mtok: number }[]): Readonly<Record<string, Price>> {
  if (overrides.length === 0) return PRICES;
  const table: Record<string, Price> = { ...PRICES };
  for (const o of overrides) table[o.model] = { inputPerMTok: o.input_per_mtok, outputPerMTok: o.output_per_mtok, cacheReadPerMTok: o.cache_read_per_mtok, cacheWritePerMTok: o.cache_write_per_mtok };
  return table;
}

/** The price of a model, or null when the table does not know it. The longest matching entry wins. */
export function priceOf(model: string, table: Readonly<Record<string, Price>> = PRICES): Price | null {
  let best: string | null = null;
  for (const name of Object.keys(table)) {
    if ((model === name || model.startsWith(`${name}-`)) && (best === null || name.length > best.length)) best = name;
  }
  return best === null ? null : table[best]!;
}

/** Tokens as runs count them: every input token, and which of them the prompt cache served or took. */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number | undefined;
  cacheWriteTokens?: number | undefined;
}

/**
 * Dollars for these tokens on this model, or null when its price is unknown. Cached input is priced as cached: a read
 * at the cache-read price, a write at the cache-write price, the rest of the input at the input price.
 */
export function costOf(model: string, tokens: TokenCounts, table: Readonly<Record<string, Price>> = PRICES): number | null {
  const p = priceOf(model, table);
  if (!p) return null;
  const read = tokens.cacheReadTokens ?? 0;
  const write = tokens.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, tokens.inputTokens - read - write);
  return (uncached * p.inputPerMTok + read * p.cacheReadPerMTok + write * p.cacheWritePerMTok + tokens.outputTokens * p.outputPerMTok) / 1_000_000;
}

/** A run row's token counts, as costOf takes them. */
export function runTokens(r: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number }): TokenCounts {
  return { inputTokens: r.input_tokens, outputTokens: r.output_tokens, cacheReadTokens: r.cache_read_tokens, cacheWriteTokens: r.cache_write_tokens };
}

/** "$0.0123", "<$0.0001", or null. */
export function formatCost(usd: number | null): string | null {
  if (usd === null) return null;
  if (usd > 0 && usd < 0.0001) return '<$0.0001';
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * "1,234 in (1,000 cached, 200 to cache) · 56 out · $0.0123" (tokens only when the price is unknown): of the input,
 * what the prompt cache served and what was written to it, each priced as such in the cost.
 */
export function formatUsage(u: { inputTokens: number; outputTokens: number; cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined; costUsd: number | null }): string {
  const cost = formatCost(u.costUsd);
  const parts = [
    ...(u.cacheReadTokens ? [`${u.cacheReadTokens.toLocaleString('en-US')} cached`] : []),
    ...(u.cacheWriteTokens ? [`${u.cacheWriteTokens.toLocaleString('en-US')} to cache`] : []),
  ];
  const cached = parts.length ? ` (${parts.join(', ')})` : '';
  return `${u.inputTokens.toLocaleString('en-US')} in${cached} · ${u.outputTokens.toLocaleString('en-US')} out${cost ? ` · ${cost}` : ''}`;
}
