/**
 * One model call on the provider's language-model interface (the AI SDK's `doStream`). The runtime owns the loop, so
 * it talks to the provider directly: the history it stores is already well-formed, and re-validating the whole
 * conversation on every step (what `streamText` does) costs more than the rest of the loop together on long runs.
 */
import type { LanguageModel } from 'ai';
import { DeskhandError } from '../../../shared/errors';
import type { ModelToolSpec } from '../registry';
import { imageModeOf, placeToolImages } from '../context/prompt-images';
import type { Redactor } from '../context/redaction';
import { redactRequest } from '../context/wire-redaction';
import { callIdWireOf, wireHistory } from './call-ids';
import { replayReasoning, thinkingOptionsOf, type ThinkingSetting } from './reasoning';
import type { UsageSink } from './usage-meter';

type V3Model = Extract<LanguageModel, { specificationVersion: 'v3' }>;
type CallOptions = Parameters<V3Model['doStream']>[0];
type Prompt = CallOptions['prompt'];
type StreamPart = Awaited<ReturnType<V3Model['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

/** A stored message: the AI SDK's ModelMessage shape, as the store keeps it. */
export interface StoredMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
}

export type StepPart =
  | { type: 'text'; delta: string }
  /** Reasoning as it streams (`delta`), and each block's end with what replaying it needs (Anthropic's signature). */
  | { type: 'reasoning'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string; providerOptions: Record<string, Record<string, unknown>> | null }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: 'finish'; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; reasoningTokens: number };

export async function* streamModelStep(args: {
  model: LanguageModel;
  /**
   * The system prompt; given as parts, the first is the stable one (the same every step and turn: it carries the
   * cache mark) and the rest follow it as system messages of their own (project instructions and per-turn context, so
   * an AGENTS.md edit or a new recall block leaves the stable part's cache entry whole).
   */
  system: string | readonly string[];
  messages: StoredMessage[];
  tools: ModelToolSpec[];
  signal: AbortSignal;
  /**
   * The run's redactor: the whole request (system text, context blocks, messages, tool definitions) goes through it
   * just before it is sent (wire-redaction.ts). Required: no request leaves unredacted.
   */
  redactor: Redactor;
  /** Names the conversation to providers that route requests to their prompt cache by a key (OpenAI's `prompt_cache_key`). */
  cacheKey?: string;
  /** The person's thinking setting for this provider (reasoning.ts); absent: the provider's default. */
  thinking?: ThinkingSetting | null;
  /**
   * Where the call's usage goes when the provider reports it (the usage ledger, usage-meter.ts). Required: every model
   * call is counted, inside runs or not (compaction, memory extraction, a connection test).
   */
  onUsage: UsageSink;
}): AsyncGenerator<StepPart> {
  const model = args.model;
  if (typeof model === 'string' || model.specificationVersion !== 'v3') {
    throw new DeskhandError('internal', 'This model provider does not implement the v3 language-model interface.');
  }
  const cache = cacheBreakpointsOf(model.provider);
  // The one redactor at the wire, before the cache marks (which are provider options, not text).
  const wire = redactRequest(args.redactor, {
    prompt: toPrompt(args.system, placeToolImages(wireHistory(replayReasoning(args.messages, model.provider), callIdWireOf(model.provider)), imageModeOf(model.provider))),
    tools: args.tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.inputSchema })),
  });
  const tools = (model.provider === 'openai.responses' ? wire.tools.map((t) => ({ ...t, strict: false })) : wire.tools) as {
    type: 'function';
    name: string;
    description: string;
    inputSchema: ModelToolSpec['inputSchema'];
  }[];
  const prompt = [...wire.prompt];
  if (cache) {
    // The prefix a provider can reuse between steps: the tool set (the same every step of a run), the system prompt,
    // and the history up to the newest message (the next step's request repeats it and adds to it).
    const last = tools.length - 1;
    if (last >= 0) tools[last] = { ...tools[last]!, providerOptions: cache } as never;
    prompt[0] = { ...prompt[0]!, providerOptions: cache } as never;
    if (prompt.length > 1) prompt[prompt.length - 1] = { ...prompt[prompt.length - 1]!, providerOptions: cache } as never;
  }
  const providerOptions = mergeOptions(args.cacheKey ? cacheKeyOptionsOf(model.provider, args.cacheKey) : null, responsesOptionsOf(model.provider), thinkingOptionsOf(model.provider, args.thinking));
  const { stream } = await model.doStream({
    prompt,
    tools,
    toolChoice: { type: 'auto' },
    abortSignal: args.signal,
    ...(providerOptions ? { providerOptions: providerOptions as CallOptions['providerOptions'] } : {}),
  });
  const reasoningMeta = new Map<string, Record<string, Record<string, unknown>>>();
  for await (const part of stream as unknown as AsyncIterable<StreamPart>) {
    switch (part.type) {
      case 'text-delta':
        if (part.delta) yield { type: 'text', delta: part.delta };
        break;
      case 'reasoning-start': {
        // A redacted_thinking block arrives whole in its start: kept for the replay, shown as nothing.
        const meta = part.providerMetadata as Record<string, Record<string, unknown>> | undefined;
        if (meta?.anthropic?.redactedData !== undefined) reasoningMeta.set(part.id, meta);
        break;
      }
      case 'reasoning-delta': {
        const meta = part.providerMetadata as Record<string, Record<string, unknown>> | undefined;
        if (meta) reasoningMeta.set(part.id, { ...reasoningMeta.get(part.id), ...meta });
        if (part.delta) yield { type: 'reasoning', id: part.id, delta: part.delta };
        break;
      }
      case 'reasoning-end': {
        const meta = { ...reasoningMeta.get(part.id), ...(part.providerMetadata as Record<string, Record<string, unknown>> | undefined) };
        yield { type: 'reasoning-end', id: part.id, providerOptions: Object.keys(meta).length ? meta : null };
        break;
      }
      case 'tool-call':
        yield { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
        break;
      case 'finish': {
        const finish = {
          type: 'finish' as const,
          inputTokens: part.usage.inputTokens.total ?? 0,
          outputTokens: part.usage.outputTokens.total ?? 0,
          cacheReadTokens: part.usage.inputTokens.cacheRead ?? 0,
          cacheWriteTokens: part.usage.inputTokens.cacheWrite ?? 0,
          reasoningTokens: part.usage.outputTokens.reasoning ?? 0,
        };
        const { type: _type, ...tokens } = finish;
        args.onUsage({ provider: providerNameOf(model.provider), model: model.modelId, ...tokens });
        yield finish;
        break;
      }
      case 'error':
        throw part.error;
      default:
        break;
    }
  }
}

/** The provider as people name it: `anthropic.messages` → `anthropic`, `openai.chat` → `openai`. */
function providerNameOf(id: string): string {
  return id.split('.')[0] || id;
}

/**
 * Prompt-cache breakpoints, for the providers that take them: Anthropic caches a request's prefix only up to the
 * blocks marked `cache_control` (at most four). OpenAI caches prefixes by itself (and reports the cached tokens);
 * OpenAI-compatible servers get no marks.
 */
function cacheBreakpointsOf(providerId: string): { anthropic: { cacheControl: { type: 'ephemeral' } } } | null {
  return providerId.startsWith('anthropic') ? { anthropic: { cacheControl: { type: 'ephemeral' } } } : null;
}

/**
 * OpenAI routes a request to a cache server by its prefix and `prompt_cache_key`: one key per conversation keeps a
 * conversation's requests together (Codex sends its session id). Only OpenAI's own wire takes it (`@ai-sdk/openai`'s
 * `promptCacheKey`, chat and Responses); OpenAI-compatible servers and Anthropic get nothing.
 */
function cacheKeyOptionsOf(providerId: string, key: string): { openai: { promptCacheKey: string } } | null {
  return providerId === 'openai.chat' || providerId === 'openai.responses' ? { openai: { promptCacheKey: key } } : null;
}

/**
 * The Responses API as Deskhand uses it: nothing stored at OpenAI (`store: false`: the conversation lives here), so a
 * reasoning model's reasoning items come back encrypted (`@ai-sdk/openai` adds `include: ["reasoning.encrypted_content"]`
 * for the models it knows as reasoning models when store is off) and are replayed from the stored message
 * (reasoning.ts); reasoning summaries are asked for, to be shown as thinking. A function tool is strict unless it says
 * otherwise on this wire, and Deskhand's schemas have optional parameters: the tools go with `strict: false` (above).
 */
function responsesOptionsOf(providerId: string): Record<string, Record<string, unknown>> | null {
  return providerId === 'openai.responses' ? { openai: { store: false, reasoningSummary: 'auto' } } : null;
}

/** Provider options of several sources, one object per provider key. */
function mergeOptions(...sources: (Record<string, Record<string, unknown>> | null)[]): Record<string, Record<string, unknown>> | undefined {
  if (sources.every((s) => !s)) return undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const source of sources) for (const [key, value] of Object.entries(source ?? {})) out[key] = { ...out[key], ...value };
  return out;
}

/** Stored ModelMessages → the provider prompt (user text becomes a text part; the rest maps one to one). */
function toPrompt(system: string | readonly string[], messages: StoredMessage[]): Prompt {
  const parts = typeof system === 'string' ? [system] : system.filter((s, i) => i === 0 || s !== '');
  const prompt: Prompt = parts.map((content) => ({ role: 'system' as const, content }));
  for (const m of messages) {
    if (m.role === 'user') {
      prompt.push({ role: 'user', content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as never) });
    } else if (m.role === 'assistant' || m.role === 'tool') {
      prompt.push(promptMessageOf(m.role, m.content));
    }
  }
  return prompt;
}

/**
 * The prompt message for a stored message's content: the same frozen object for the same (shared, frozen) content
 * from step to step (history-cache.ts), so the wire redactor, which keeps its results per frozen object, finds each
 * earlier message whole instead of walking into it again on every step.
 */
const promptMessages = new WeakMap<object, Prompt[number]>();
function promptMessageOf(role: 'assistant' | 'tool', content: unknown): Prompt[number] {
  if (content === null || typeof content !== 'object' || !Object.isFrozen(content)) return { role, content: content as never };
  const kept = promptMessages.get(content);
  if (kept?.role === role) return kept;
  const message = Object.freeze({ role, content: content as never }) as Prompt[number];
  promptMessages.set(content, message);
  return message;
}
