/**
 * Reasoning models (issue 48 item 2): the thinking setting as each provider takes it, and which stored reasoning a
 * request replays. A stored assistant message keeps its reasoning parts first, as the provider streamed them
 * (`{type: 'reasoning', text, providerOptions}`: Anthropic's signature or redacted data ride in providerOptions), and
 * each wire gets what its API requires:
 *
 * - Anthropic: thinking blocks with their signature and redacted_thinking blocks, unchanged ("when thinking is on, the
 *   last assistant turn with tool_use must start with its thinking block"; a changed block fails its signature).
 *   Reasoning without Anthropic's metadata (from another provider) is dropped: the API takes no unsigned thinking.
 * - OpenAI-compatible servers (DeepSeek, Qwen…): `reasoning_content` goes back on assistant messages that made tool
 *   calls (DeepSeek: "for turns that do perform tool calls, the reasoning_content must be fully passed back to the
 *   API in all subsequent requests", else 400) and is dropped from the others (the API ignores it there).
 * - OpenAI Chat Completions: no reasoning is replayed (the wire has no field for it).
 * - OpenAI Responses (`store: false`): each reasoning item OpenAI sent, by its id with its `encrypted_content` and
 *   summary, before the output it led to ("pass back all reasoning items … between the last user message and the
 *   function call output"; without `encrypted_content` an unstored item is "not found"). Only items of OpenAI's, with
 *   encrypted content, go back: reasoning from another provider (or an item without it) is dropped.
 */

/** off, an effort level, or a thinking budget in tokens (Anthropic's `budget_tokens`, at least 1024). */
export type ThinkingSetting = 'off' | 'low' | 'medium' | 'high' | 'max' | number;

export const THINKING_EFFORTS = ['low', 'medium', 'high', 'max'] as const;

/** Parses `off`, `low|medium|high|max` or a budget in tokens; anything else is an error that says what is taken. */
export function parseThinking(text: string): ThinkingSetting {
  const t = text.trim().toLowerCase();
  if (t === 'off' || (THINKING_EFFORTS as readonly string[]).includes(t)) return t as ThinkingSetting;
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    if (n < 1024) throw new Error(`a thinking budget is at least 1024 tokens (Anthropic's minimum); got ${n}`);
    return n;
  }
  throw new Error(`thinking is off, low, medium, high, max or a budget in tokens (at least 1024); got "${text}"`);
}

/** The provider options a thinking setting becomes on this provider's wire (none when it takes no setting). */
export function thinkingOptionsOf(providerId: string, setting: ThinkingSetting | null | undefined): Record<string, Record<string, unknown>> | null {
  if (setting === undefined || setting === null) return null;
  if (providerId.startsWith('anthropic')) {
    if (setting === 'off') return { anthropic: { thinking: { type: 'disabled' } } };
    if (typeof setting === 'number') return { anthropic: { thinking: { type: 'enabled', budgetTokens: setting } } };
    return { anthropic: { thinking: { type: 'adaptive' }, effort: setting } };
  }
  if (providerId === 'openai.chat' || providerId === 'openai.responses') {
    if (typeof setting === 'number') return { openai: { reasoningEffort: 'high' } };
    return { openai: { reasoningEffort: setting === 'off' ? 'none' : setting === 'max' ? 'xhigh' : setting } };
  }
  // OpenAI-compatible servers: `reasoning_effort` (DeepSeek maps low/medium/high/max itself; off is `none`).
  if (typeof setting === 'number') return null;
  return { openaiCompatible: { reasoningEffort: setting === 'off' ? 'none' : setting } };
}

interface Part {
  type?: string;
  text?: string;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** The stored messages with only the reasoning this provider's wire takes back (see the module comment). */
export function replayReasoning<M extends { role: string; content: unknown }>(messages: readonly M[], providerId: string): M[] {
  const anthropic = providerId.startsWith('anthropic');
  const responses = providerId === 'openai.responses';
  const openai = providerId === 'openai.chat' || responses;
  return messages.map((m) => {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) return m;
    const parts = m.content as Part[];
    if (!parts.some((p) => p?.type === 'reasoning')) return m;
    const hasCalls = parts.some((p) => p?.type === 'tool-call');
    // A Responses reasoning item streams one part per summary part; the item's encrypted content rides on its last.
    const encrypted = new Set(parts.flatMap((p) => (p?.type === 'reasoning' && typeof p.providerOptions?.openai?.reasoningEncryptedContent === 'string' ? [p.providerOptions.openai.itemId] : [])));
    const content = parts.flatMap((p): Part[] => {
      if (p?.type !== 'reasoning') return [p];
      const meta = p.providerOptions?.anthropic;
      if (anthropic) return meta && (typeof meta.signature === 'string' || typeof meta.redactedData === 'string') ? [p] : [];
      if (responses) {
        const itemId = p.providerOptions?.openai?.itemId;
        return typeof itemId === 'string' && encrypted.has(itemId) ? [{ type: 'reasoning', text: p.text ?? '', providerOptions: { openai: p.providerOptions!.openai! } }] : [];
      }
      if (openai || !hasCalls || meta?.redactedData !== undefined || !p.text) return [];
      return [{ type: 'reasoning', text: p.text }];
    });
    return { ...m, content };
  });
}
