/**
 * One model step of a run: stream text and tool calls from the provider, then persist the assistant message and the
 * calls in one transaction. Retries retryable provider failures with backoff; a silent stream is abandoned.
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import type { Usage } from '../../../shared/events';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { ConversationRow, RunRow, ToolCallRow } from '../../services/store/store';
import { describeProviderError, type ProviderConfig, type ProviderFailure } from '../../services/providers/providers';
import { canonicalJson, sha256 } from '../decision/approval-engine';
import { sanitizeText } from '../decision/call-security';
import { PersistentConversationState } from '../context/conversation-state';
import type { ContextDisclosure, RunOptions, RuntimeCore } from '../core';
import { peerContextCheck } from '../decision/peer-ceiling';
import { streamModelStep } from './model-call';
import type { ModelToolSpec } from '../registry';
import { basePromptSections } from '../prompt';
import type { Policy } from '../../../shared/tools';
import { enabledFamiliesOf } from '../prompt/tool-families';
import { compactConversation, requestView, textPartsOf } from '../context/compaction';
import { positionalCallId } from './call-ids';
import { ledgerSink, recordUsage, type CallUsage } from './usage-meter';

/** For text whose redaction happens later (in a stream redactor). */
export const NO_REDACTION = { redact: (text: string) => text };

export async function runModelStep(core: RuntimeCore, run: RunRow, conv: ConversationRow, tools: ModelToolSpec[], options: RunOptions): Promise<'tools' | 'done' | 'aborted' | { repeating: string }> {
  const { store, redactor, limits } = core;
  let { messages, lastUserText } = requestView(core.store, conv.id);
  const who = { cause: 'turn', conversationId: conv.id, runId: run.id } as const;
  // A context-length refusal compacts the conversation once per step, then the step is asked again.
  let compacted = false;
  for (let attempt = 0; ; attempt++) {
    const stepController = new AbortController();
    const onAbort = () => stepController.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    let idle: NodeJS.Timeout | undefined;
    // Re-armed on every part the stream yields (one timer per attempt, refreshed: not a new timer per token).
    const arm = () => {
      if (idle) idle.refresh();
      else {
        idle = setTimeout(() => {
          timedOut = true;
          stepController.abort();
        }, limits.idleTimeoutMs);
      }
    };
    let text = '';
    // Reasoning blocks by the stream's id, in the order they started: replayed as the provider requires (reasoning.ts).
    const reasoning = new Map<string, { text: string; providerOptions: Record<string, Record<string, unknown>> | null }>();
    // Thinking is shown as it streams, redacted like text (its own stream: a secret split across deltas is caught whole).
    const thinking = redactor.stream((_key, delta) => core.emit(options, { type: 'thinking', runId: run.id, delta, step: run.step + 1 }));
    const calls: { toolCallId: string; toolName: string; input: unknown; invalidError?: string }[] = [];
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let reported: CallUsage | null = null;
    // Deltas are held back just enough that a secret split across deltas is redacted whole.
    const deltas = redactor.stream((_key, delta) => core.emit(options, { type: 'text', runId: run.id, delta, step: run.step + 1 }));
    // The first delta of a turn of the event loop goes to the stream redactor at once, as it comes (a paced token, one
    // per network read, is released exactly as before); the others that arrive in the same turn (hundreds per read in
    // a burst) are joined and pushed as one piece when that turn has run its promise jobs (setImmediate). The redactor
    // then scans, and the runtime emits, about twice per read instead of once per token.
    let pending = '';
    let pendingTimer: NodeJS.Immediate | undefined;
    const pushPending = () => {
      if (pendingTimer) clearImmediate(pendingTimer);
      pendingTimer = undefined;
      if (!pending) return;
      const piece = pending;
      pending = '';
      deltas.push('text', sanitizeText(piece, NO_REDACTION));
    };
    try {
      arm();
      // A tool definition the person has not seen as it is now (an MCP server's changed list) is untrusted content.
      if (tools.some((t) => t.untrustedDefinition?.())) taintRun(core, run.id, conv.id);
      const stream = streamModelStep({
        model: core.model(options.provider),
        system: withAddendum(systemPromptParts(core, conv, lastUserText, options.provider?.provider, () => taintRun(core, run.id, conv.id)), profileAddendum(core, conv.id)),
        messages,
        tools,
        signal: stepController.signal,
        redactor,
        cacheKey: promptCacheKey(conv.id),
        thinking: options.provider?.thinking ?? null,
        // Kept until the step is written (one commit for both); an attempt that fails after its usage came records it alone.
        onUsage: (u) => (reported = u),
      });
      for await (const part of stream) {
        arm();
        if (part.type === 'text') {
          text += part.delta;
          if (pendingTimer) pending += part.delta;
          else {
            deltas.push('text', sanitizeText(part.delta, NO_REDACTION));
            pendingTimer = setImmediate(pushPending);
          }
        } else if (part.type === 'reasoning') {
          let block = reasoning.get(part.id);
          if (!block) reasoning.set(part.id, (block = { text: '', providerOptions: null }));
          block.text += part.delta;
          thinking.push('thinking', sanitizeText(part.delta, NO_REDACTION));
        } else if (part.type === 'reasoning-end') {
          const block = reasoning.get(part.id) ?? { text: '', providerOptions: null };
          block.providerOptions = part.providerOptions;
          reasoning.set(part.id, block);
        } else if (part.type === 'tool-call') {
          calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, ...parseToolInput(core, part.input) });
        } else if (part.type === 'finish') {
          usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens, cacheReadTokens: part.cacheReadTokens, cacheWriteTokens: part.cacheWriteTokens };
        }
      }
      if (stepController.signal.aborted) throw new DeskhandError('aborted', 'aborted');
      pushPending();
      deltas.flush();
      thinking.flush();
    } catch (err) {
      if (reported) ledgerSink(store, who)(reported);
      pushPending();
      deltas.flush();
      thinking.flush();
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) return 'aborted';
      const failure: ProviderFailure = timedOut
        ? { error: new DeskhandError('provider_timeout', `The model API sent nothing for ${Math.round(limits.idleTimeoutMs / 1000)} s.`), retryable: true, retryAfterMs: null }
        : describeProviderError(err, options.provider);
      // Every retry restarts the step: what this attempt streamed is discarded (a `run.retry` says so to whoever
      // showed it), and no tool call of it was recorded, so nothing is doubled.
      if (failure.kind === 'context_length' && !compacted) {
        compacted = true;
        const result = await compactConversation(core, conv.id, run.id, options, 'refused');
        if (!result.compacted || options.signal?.aborted) throw failure.error;
        ({ messages, lastUserText } = requestView(core.store, conv.id));
        core.emit(options, { type: 'run.retry', runId: run.id, attempt: attempt + 1, delayMs: 0, reason: `${failure.error.message} ${result.message} Asking again.` });
        continue;
      }
      const fallback = failure.kind === 'overloaded' ? fallbackOf(options.provider) : null;
      if (fallback) {
        // Overloaded, and the person named a fallback model: the rest of the run uses it, and the run says so.
        options.provider = fallback;
        store.updateRun(run.id, { model: fallback.model });
        core.emit(options, { type: 'run.retry', runId: run.id, attempt: attempt + 1, delayMs: 0, reason: `${failure.error.message} Switching to the fallback model ${fallback.model}.` });
        continue;
      }
      if (!failure.retryable || attempt >= limits.maxRetries) throw failure.error;
      const delayMs = retryDelay(failure, attempt, limits);
      core.emit(options, { type: 'run.retry', runId: run.id, attempt: attempt + 1, delayMs, reason: failure.error.message });
      await sleep(delayMs, options.signal);
      if (options.signal?.aborted) return 'aborted';
      continue;
    }
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', onAbort);
    // The reply's last text went out as events just now; whoever sends them on in a batch per turn of the event loop
    // (the web host's EventBatcher, a setImmediate) does so before the step is written, not after: the write redacts
    // and stores the whole reply (tens of ms for a long one), which the last words on screen need not wait for.
    if (text || reasoning.size) await new Promise<void>((resolve) => setImmediate(resolve));

    const step = run.step + 1;
    const assistantParts: unknown[] = [];
    // Reasoning first, as the provider sent it: Anthropic requires a tool-use turn to start with its thinking block.
    // Its text is stored as the model wrote it (a signature covers it), redacted only when it holds a secret.
    for (const block of reasoning.values()) {
      if (!block.text && !block.providerOptions) continue;
      assistantParts.push({ type: 'reasoning', text: sanitizeText(block.text, redactor), ...(block.providerOptions ? { providerOptions: block.providerOptions } : {}) });
    }
    // Whitespace alone is no reply worth keeping (and Anthropic refuses it on every later request).
    if (text.trim()) assistantParts.push({ type: 'text', text: sanitizeText(text, redactor) });
    // A call's key is the provider's id while it is new to the conversation; one the provider used before (it numbers
    // per reply, or restarted) gets a key from where this call stands (call-ids.ts). Within one reply a repeated id
    // stays an error: the model could not tell which result answers which of its calls.
    const earlier = store.callKeysForRun(run.id);
    const usedIds = usedCallIds(earlier, messages);
    const inThisReply = new Set<string>();
    const repeats = new RepeatGuard(earlier, core.registry);
    let repeating: string | null = null;
    const rows: Omit<ToolCallRow, 'created_at' | 'finished_at' | 'output' | 'is_error' | 'paths'>[] = calls.map((c, position) => {
      let callId = c.toolCallId;
      let refused: string | null = null;
      if (inThisReply.has(c.toolCallId)) {
        refused = `Two calls in this reply had the tool-call id ${c.toolCallId.slice(0, 80)}, so this second ${c.toolName.slice(0, 80)} call was not run. Call it again; each tool call needs an id of its own.`;
      }
      inThisReply.add(c.toolCallId);
      if (usedIds.has(callId)) callId = positionalCallId(c.toolCallId, run.id, step, position);
      usedIds.add(callId);
      const input = !refused && c.input && typeof c.input === 'object' && !Array.isArray(c.input) ? c.input : {};
      assistantParts.push({ type: 'tool-call', toolCallId: callId, toolName: c.toolName, input });
      let args = refused ? JSON.stringify({ __refused: refused }) : c.invalidError !== undefined ? JSON.stringify({ __invalid: c.invalidError, raw: c.input }) : canonicalJson(input);
      // The same call again and again (the model is stuck): from the REPEAT_REFUSE_AT-th in a row it is not run and
      // the model is told what to do instead; at REPEAT_STOP_AT the run stops (run-loop.ts, once the step is settled).
      const repeat = refused || c.invalidError !== undefined ? null : repeats.next(step, c.toolName, args);
      if (repeat) {
        args = JSON.stringify({ __refused: repeat.message, __repeated: args });
        if (repeat.stop) repeating ??= repeat.stop;
      }
      return {
        id: `tc_${randomUUID()}`,
        run_id: run.id,
        step,
        position,
        call_id: callId,
        tool: c.toolName,
        args,
        args_sha256: sha256(args),
        risk: null,
        decision: null,
        reasons: '[]',
        status: 'pending',
      };
    });
    // Without an fsync (it survives a SIGKILL): the calls it records have not acted yet, and before any call acts on
    // the world the pipeline syncs the store (CallPipeline.execute); a final step is synced by the run's end.
    store.transactionWithoutFsync(() => {
      if (reported) recordUsage(store, who, reported);
      if (assistantParts.length) store.addMessage(conv.id, run.id, 'assistant', assistantParts);
      for (const row of rows) store.insertToolCall(row);
      store.updateRun(run.id, {
        step,
        input_tokens: run.input_tokens + usage.inputTokens,
        output_tokens: run.output_tokens + usage.outputTokens,
        cache_read_tokens: run.cache_read_tokens + (usage.cacheReadTokens ?? 0),
        cache_write_tokens: run.cache_write_tokens + (usage.cacheWriteTokens ?? 0),
      });
    });
    core.emit(options, { type: 'usage', runId: run.id, step, usage });
    if (repeating) return { repeating };
    return rows.length ? 'tools' : 'done';
  }
}

/** The same call (tool and arguments) this many times in a row: that call is not run, and the model is told why. */
export const REPEAT_REFUSE_AT = 3;
/** This many in a row: the run stops (the model did not act on the refusals). */
export const REPEAT_STOP_AT = 5;

/**
 * Counts, for each call (tool and arguments), how many steps in a row up to this one made it: a step that does not
 * make it resets its count; the same call twice in one step (in parallel) counts once. Tools that declare
 * `repeats: 'expected'` (waiting, polling) are never counted.
 */
class RepeatGuard {
  /** The calls of the step before the current one, with their counts. */
  private previous = new Map<string, number>();
  private current = new Map<string, number>();
  private step = -1;

  constructor(
    earlier: readonly Pick<ToolCallRow, 'step' | 'tool' | 'args'>[],
    private readonly registry: RuntimeCore['registry'],
  ) {
    for (const row of earlier) this.count(row.step, row.tool, identityOf(row.args));
  }

  next(step: number, tool: string, args: string): { message: string; stop: string | null } | null {
    const streak = this.count(step, tool, args);
    if (streak < REPEAT_REFUSE_AT) return null;
    const name = tool.slice(0, 80);
    const nth = ordinal(streak);
    if (streak >= REPEAT_STOP_AT) {
      return {
        message: `Not run, and the run stops here: this is the ${nth} call in a row of ${name} with the same arguments. Tell the person what you were trying to do and what keeps failing.`,
        stop: `Stopped: the model called ${name} with the same arguments ${streak} times in a row. Send a message to continue (say what to do differently).`,
      };
    }
    return {
      message: `Not run: this is the ${nth} call in a row of ${name} with the same arguments, and its result would be the one you already have. Use that result, change the arguments, try another way, or tell the person what is blocking you. At ${REPEAT_STOP_AT} identical calls in a row the run stops.`,
      stop: null,
    };
  }

  private count(step: number, tool: string, args: string): number {
    if (step !== this.step) {
      this.previous = step === this.step + 1 ? this.current : new Map();
      this.current = new Map();
      this.step = step;
    }
    if (this.registry.lookup(tool)?.repeats === 'expected') return 0;
    const key = `${tool}\u0000${args}`;
    let streak = this.current.get(key);
    if (streak === undefined) this.current.set(key, (streak = (this.previous.get(key) ?? 0) + 1));
    return streak;
  }
}

/** The arguments a stored call was made with (a call the guard refused keeps them under `__repeated`). */
function identityOf(args: string): string {
  if (!args.startsWith('{"__')) return args;
  try {
    const parsed = JSON.parse(args) as { __repeated?: unknown };
    return typeof parsed.__repeated === 'string' ? parsed.__repeated : args;
  } catch {
    return args;
  }
}

const ordinal = (n: number) => `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

/**
 * How long to wait before asking again: what the provider asked for (`retry-after-ms`, `retry-after`) when it did,
 * else exponential backoff from `retryBaseMs` with jitter (half the span fixed, half random, so clients that failed
 * together do not retry together); never longer than `maxRetryDelayMs`.
 */
function retryDelay(failure: ProviderFailure, attempt: number, limits: RuntimeCore['limits']): number {
  const span = limits.retryBaseMs * 2 ** attempt;
  const delay = failure.retryAfterMs ?? Math.round(span / 2 + (Math.random() * span) / 2);
  return Math.max(0, Math.min(delay, limits.maxRetryDelayMs));
}

/** The run's provider with its fallback model, when one is named and not in use already. */
function fallbackOf(provider: ProviderConfig): ProviderConfig | null {
  const model = provider.fallbackModel?.trim();
  if (!model || model === provider.model) return null;
  return { ...provider, model, fallbackModel: null };
}

/**
 * Tool input arrives as the model's JSON text. Redaction runs on the text (placeholders contain no JSON
 * metacharacters, so valid JSON stays valid); input that is not a JSON object is kept raw for an error result.
 */
function parseToolInput(core: RuntimeCore, text: string): { input: unknown; invalidError?: string } {
  // Nesting is bounded before anything parses or walks the value (every later step — validation, canonical JSON,
  // the store — would recurse through it). The raw text is not kept: a short prefix says what it was.
  const depth = jsonDepth(text, MAX_ARGUMENT_DEPTH);
  if (depth > MAX_ARGUMENT_DEPTH) return { input: core.redactor.redact(text.slice(0, 200)), invalidError: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep; send a flatter JSON object` };
  const redacted = core.redactor.redact(text.trim() === '' ? '{}' : text);
  let value: unknown;
  try {
    value = JSON.parse(redacted);
  } catch (err) {
    return { input: redacted, invalidError: errorMessage(err) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { input: redacted, invalidError: 'the arguments must be a JSON object' };
  }
  return { input: value };
}

/** Deeper tool arguments are refused with a tool error: no tool's parameters nest anywhere near this. */
export const MAX_ARGUMENT_DEPTH = 64;

/** How deep brackets nest in JSON text (outside strings), counted up to just past `limit`. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/** Tool-call ids already answered or asked in this run and in the history sent with the request. */
function usedCallIds(rows: readonly Pick<ToolCallRow, 'call_id'>[], messages: readonly unknown[]): Set<string> {
  const ids = new Set(rows.map((r) => r.call_id));
  for (const m of messages) {
    const content = (m as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const part of content as { type?: unknown; toolCallId?: unknown }[]) if (part?.type === 'tool-call' && typeof part.toolCallId === 'string') ids.add(part.toolCallId);
  }
  return ids;
}

/**
 * What the conversation's agent profile adds, kept after the base rules (never replacing them) in the stable part:
 * a profile's instructions change no more often than the base prompt does.
 */
function withAddendum(parts: [string, string], extra: string | null | undefined): [string, string] {
  return extra ? [`${parts[0]}\n\n${extra}`, parts[1]] : parts;
}

/** OpenAI's prompt-cache routing key: one per conversation (a hash, so the provider learns no Deskhand id). */
export function promptCacheKey(conversationId: string): string {
  // Asked on every step of a run: the last conversation's key is kept (a hash per step was a measurable share of it).
  if (lastCacheKey?.conversationId !== conversationId) lastCacheKey = { conversationId, key: `deskhand-${sha256(conversationId).slice(0, 32)}` };
  return lastCacheKey.key;
}
let lastCacheKey: { conversationId: string; key: string } | null = null;

/**
 * What the runtime's own blocks disclose (families declare theirs on their ContextSource): ceilings judge them all
 * alike (peer-ceiling.ts `peerContextCheck`).
 */
export const RUNTIME_CONTEXT: Readonly<Record<'environment' | 'projectInstructions' | 'personalInstructions' | 'profile', ContextDisclosure>> = {
  /** Folder and current directory: where the person's home is, when they lie under it. */
  environment: { tier: 'public', reveals: ['home-path'] },
  projectInstructions: { tier: 'internal', reveals: [] },
  /** `<data dir>/AGENTS.md`: the person's own instructions for every conversation. */
  personalInstructions: { tier: 'private', reveals: ['personal'] },
  /** An agent profile's instructions (the conversation's addendum). */
  profile: { tier: 'private', reveals: ['personal'] },
};

/** The addendum of the conversation's agent profile, unless a ceiling holds it back. */
export function profileAddendum(core: RuntimeCore, conversationId: string): string | null {
  const ceiling = core.contextCeilingOf(conversationId);
  if (ceiling && peerContextCheck(RUNTIME_CONTEXT.profile, ceiling)) return null;
  return core.limits.systemAddendum?.(conversationId) ?? null;
}

/**
 * The system prompt of a request. `lastUserText` is the last user message the request carries verbatim (recall's
 * query); when compaction dropped it from the view, the store's last user message is used. Every block is judged by
 * the conversation's context ceiling (a peer's, its own or inherited): what it declares it reveals above the ceiling
 * is left out, and under a ceiling that refuses the home path, the person's home reads `~` everywhere in the text.
 */
export function systemPrompt(core: RuntimeCore, conv: ConversationRow, lastUserText?: string | null, provider?: string, onUntrusted?: () => void, addendum?: string | null): string {
  return withAddendum(systemPromptParts(core, conv, lastUserText, provider, onUntrusted), addendum).filter(Boolean).join('\n\n');
}

/**
 * The system prompt in two parts: the stable base (the same every step of a conversation; prompt caching marks it),
 * then what an edit or a turn can change — project instructions (AGENTS.md / CLAUDE.md) and the blocks families add
 * per turn (recall, scratchpad, plan, goal). An instructions edit or a new recall block then costs only what follows
 * the base in the provider's cache, not the base (nor the tools before it).
 */
export function systemPromptParts(core: RuntimeCore, conv: ConversationRow, lastUserText?: string | null, provider?: string, onUntrusted?: () => void): [string, string] {
  const state = new PersistentConversationState(conv.folder, conv.state);
  const ceiling = core.contextCeilingOf(conv.id);
  const allowed = (d: ContextDisclosure) => !ceiling || peerContextCheck(d, ceiling) === null;
  const parts: [string, string] = [
    basePrompt(core, conv, state, provider).join('\n\n'),
    [...instructionsBlock(core, state, allowed, onUntrusted), ...contextBlocks(core, conv, state, allowed, lastUserText, onUntrusted)].join('\n\n'),
  ];
  if (allowed(RUNTIME_CONTEXT.environment)) return parts;
  const home = homedir();
  return [withoutHome(parts[0], home), withoutHome(parts[1], home)];
}

/** `text` with every mention of the home folder written `~` (a peer's conversation never learns where it is). */
export function withoutHome(text: string, home: string): string {
  const h = home.replace(/\/+$/, '');
  if (!h) return text;
  // The home itself, not a longer name that starts with it (`/home/bob2` is not under `/home/bob`).
  return text.replace(new RegExp(`${h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`, 'g'), '~');
}

/** AGENTS.md / CLAUDE.md from the personal file and the workspace root down to the current directory (project-instructions.ts). */
function instructionsBlock(core: RuntimeCore, state: PersistentConversationState, allowed: (d: ContextDisclosure) => boolean, onUntrusted?: () => void): string[] {
  if (!allowed(RUNTIME_CONTEXT.projectInstructions) && !allowed(RUNTIME_CONTEXT.personalInstructions)) return [];
  const block = core.instructions.block(state.cwd, state.workspaceRoots, onUntrusted, {
    personal: allowed(RUNTIME_CONTEXT.personalInstructions),
    project: allowed(RUNTIME_CONTEXT.projectInstructions),
  });
  return block ? [block] : [];
}

/** A context block carried untrusted content into the run: the run and its conversation are tainted from now on. */
function taintRun(core: RuntimeCore, runId: string, conversationId: string): void {
  const { store } = core;
  if (store.getRun(runId)?.tainted !== 1) store.updateRun(runId, { tainted: 1 });
  // A context block's source is not one a grant names: any one source the conversation had is no longer the only one.
  const conv = store.getConversation(conversationId);
  if (conv && (conv.tainted !== 1 || conv.taint_only !== null)) store.updateConversation(conversationId, { tainted: 1, taint_only: null });
}

/**
 * What families add (recall, scratchpad, pinned plan, goal); a source that throws adds nothing. A source whose
 * declared disclosure is above the conversation's ceiling is not even asked (recall does not search for a peer).
 */
function contextBlocks(core: RuntimeCore, conv: ConversationRow, state: PersistentConversationState, allowed: (d: ContextDisclosure) => boolean, viewed?: string | null, onUntrusted?: () => void): string[] {
  const sources = core.contextSources.filter((source) => allowed(source.discloses));
  if (!sources.length) return [];
  let lastUserText = viewed ?? '';
  if (viewed === undefined || viewed === null) {
    const last = core.store.lastMessageWithRole(conv.id, 'user');
    lastUserText = last ? textPartsOf(JSON.parse(last.content) as unknown) : '';
  }
  const blocks: string[] = [];
  for (const source of sources) {
    try {
      const block = source.block({ conversationId: conv.id, folder: conv.folder, slots: state.slots, lastUserText });
      if (typeof block === 'string' && block) blocks.push(block);
      else if (block && typeof block === 'object') {
        blocks.push(block.text);
        onUntrusted?.();
      }
    } catch {
      // context is optional; a failing source never stops a turn
    }
  }
  return blocks;
}

/** The sections of prompt/ (stable first), for this conversation's folder, policy, sandbox and families. */
function basePrompt(core: RuntimeCore, conv: ConversationRow, state: PersistentConversationState, provider?: string): string[] {
  const catalog = core.registry.catalogText({ conversationId: conv.id, policy: conv.policy as Policy, revealed: [], slots: state.slots, enabled: enabledFamiliesOf(state.slots) });
  return basePromptSections({ folder: conv.folder, cwd: state.cwd, policy: conv.policy as Policy, sandbox: conv.sandbox ?? 'workspace-write', ...(provider ? { provider } : {}), catalog });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
