/**
 * One model step of a run: stream text and tool calls from the provider, then persist the assistant message and the
 * calls in one transaction. Retries retryable provider failures with backoff; a silent stream is abandoned.
 */
import { randomUUID } from 'node:crypto';
import type { Usage } from '../../shared/events';
import { DeskhandError, errorMessage } from '../../shared/errors';
import type { ConversationRow, RunRow, ToolCallRow } from '../services/store/store';
import { describeProviderError } from '../services/providers/providers';
import { canonicalJson, sha256 } from './approval-engine';
import { sanitizeText } from './call-security';
import { PersistentConversationState } from './conversation-state';
import type { RunOptions, RuntimeCore } from './core';
import { streamModelStep } from './model-call';
import type { ModelToolSpec } from './registry';
import { basePromptSections } from './prompt/index';
import type { Policy } from '../../shared/tools';
import { enabledFamiliesOf } from './tool-families';
import { requestView, textPartsOf } from './compaction';
import { positionalCallId } from './call-ids';

/** For text whose redaction happens later (in a stream redactor). */
export const NO_REDACTION = { redact: (text: string) => text };

export async function runModelStep(core: RuntimeCore, run: RunRow, conv: ConversationRow, tools: ModelToolSpec[], options: RunOptions): Promise<'tools' | 'done' | 'aborted'> {
  const { store, redactor, limits } = core;
  const { messages, lastUserText } = requestView(core.store, conv.id);
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
    const calls: { toolCallId: string; toolName: string; input: unknown; invalidError?: string }[] = [];
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
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
      const stream = streamModelStep({
        model: core.model(options.provider),
        system: withAddendum(systemPromptParts(core, conv, lastUserText, options.provider?.provider, () => taintRun(core, run.id, conv.id)), limits.systemAddendum?.(conv.id)),
        messages,
        tools,
        signal: stepController.signal,
        cacheKey: promptCacheKey(conv.id),
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
        } else if (part.type === 'tool-call') {
          calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, ...parseToolInput(core, part.input) });
        } else {
          usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens, cacheReadTokens: part.cacheReadTokens, cacheWriteTokens: part.cacheWriteTokens };
        }
      }
      if (stepController.signal.aborted) throw new DeskhandError('aborted', 'aborted');
      pushPending();
      deltas.flush();
    } catch (err) {
      pushPending();
      deltas.flush();
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) return 'aborted';
      const failure = timedOut
        ? { error: new DeskhandError('provider_timeout', `The model API sent nothing for ${Math.round(limits.idleTimeoutMs / 1000)} s.`), retryable: true, retryAfterMs: null }
        : describeProviderError(err, options.provider);
      if (!failure.retryable || attempt >= limits.maxRetries) throw failure.error;
      const delay = Math.min(failure.retryAfterMs ?? limits.retryBaseMs * 2 ** attempt, 60_000);
      core.emit(options, { type: 'run.retry', runId: run.id, attempt: attempt + 1, delayMs: delay, reason: failure.error.message });
      await sleep(delay, options.signal);
      if (options.signal?.aborted) return 'aborted';
      continue;
    }
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', onAbort);

    const step = run.step + 1;
    const assistantParts: unknown[] = [];
    // Whitespace alone is no reply worth keeping (and Anthropic refuses it on every later request).
    if (text.trim()) assistantParts.push({ type: 'text', text: sanitizeText(text, redactor) });
    // A call's key is the provider's id while it is new to the conversation; one the provider used before (it numbers
    // per reply, or restarted) gets a key from where this call stands (call-ids.ts). Within one reply a repeated id
    // stays an error: the model could not tell which result answers which of its calls.
    const usedIds = usedCallIds(store.toolCallsForRun(run.id), messages);
    const inThisReply = new Set<string>();
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
      const args = refused ? JSON.stringify({ __refused: refused }) : c.invalidError !== undefined ? JSON.stringify({ __invalid: c.invalidError, raw: c.input }) : canonicalJson(input);
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
    return rows.length ? 'tools' : 'done';
  }
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

/** The prompt, then what the conversation's agent profile adds (kept after the base rules, never replacing them). */
function withAddendum(parts: [string, string], extra: string | null | undefined): [string, string] {
  return extra ? [parts[0], parts[1] ? `${parts[1]}\n\n${extra}` : extra] : parts;
}

/** OpenAI's prompt-cache routing key: one per conversation (a hash, so the provider learns no Deskhand id). */
export function promptCacheKey(conversationId: string): string {
  return `deskhand-${sha256(conversationId).slice(0, 32)}`;
}

/**
 * The system prompt of a request. `lastUserText` is the last user message the request carries verbatim (recall's
 * query); when compaction dropped it from the view, the store's last user message is used.
 */
export function systemPrompt(core: RuntimeCore, conv: ConversationRow, lastUserText?: string | null, provider?: string, onUntrusted?: () => void): string {
  return systemPromptParts(core, conv, lastUserText, provider, onUntrusted).filter(Boolean).join('\n\n');
}

/**
 * The system prompt in two parts: the stable base (the same every step of a conversation; prompt caching marks it),
 * then what an edit or a turn can change — project instructions (AGENTS.md / CLAUDE.md) and the blocks families add
 * per turn (recall, scratchpad, plan, goal). An instructions edit or a new recall block then costs only what follows
 * the base in the provider's cache, not the base (nor the tools before it).
 */
export function systemPromptParts(core: RuntimeCore, conv: ConversationRow, lastUserText?: string | null, provider?: string, onUntrusted?: () => void): [string, string] {
  const state = new PersistentConversationState(conv.folder, conv.state);
  return [
    basePrompt(core, conv, state, provider).join('\n\n'),
    [...instructionsBlock(core, state, onUntrusted), ...contextBlocks(core, conv, state, lastUserText, onUntrusted)].join('\n\n'),
  ];
}

/** AGENTS.md / CLAUDE.md from the personal file and the workspace root down to the current directory (project-instructions.ts). */
function instructionsBlock(core: RuntimeCore, state: PersistentConversationState, onUntrusted?: () => void): string[] {
  const block = core.instructions.block(state.cwd, state.workspaceRoots, onUntrusted);
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

/** What families add (recall, scratchpad, pinned plan, goal); a source that throws adds nothing. */
function contextBlocks(core: RuntimeCore, conv: ConversationRow, state: PersistentConversationState, viewed?: string | null, onUntrusted?: () => void): string[] {
  if (!core.contextSources.length) return [];
  let lastUserText = viewed ?? '';
  if (viewed === undefined || viewed === null) {
    const last = core.store.lastMessageWithRole(conv.id, 'user');
    lastUserText = last ? textPartsOf(JSON.parse(last.content) as unknown) : '';
  }
  const blocks: string[] = [];
  for (const source of core.contextSources) {
    try {
      const block = source({ conversationId: conv.id, folder: conv.folder, slots: state.slots, lastUserText });
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
