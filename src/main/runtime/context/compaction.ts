/**
 * Context that never silently loses the work. Before each model call the runtime estimates what the request carries;
 * at the threshold (a share of the context window) older messages are summarized by a side call to the same model
 * and replaced, in every later request, by one message: the person's own messages verbatim (their instructions are
 * never summarized away), the summary, then the pinned state read fresh each time (work state and plan, todos, open
 * background tasks, live subagents). The system instructions (project instructions, the plan, the goal) are rebuilt
 * for every request anyway, the last turns stay verbatim, and a compaction record in the store says what was dropped
 * and what was kept. Nothing is deleted: the transcript stays whole in the store; only the model's view is shortened,
 * and `retrieve_tool_result` with a `msg_N` id pages a dropped message back.
 */
import { preCompactHooks } from '../loop/hook-calls';
import { errorMessage } from '../../../shared/errors';
import { contextModule, type CompactionRow } from '../../services/store/modules/context';
import { subagentsModule } from '../../services/store/modules/subagents';
import type { ConversationRow, RunRow, Store } from '../../services/store/store';
import { historyView, type ViewedMessage } from './history-cache';
import { PersistentConversationState } from './conversation-state';
import type { RunOptions, RuntimeCore } from '../core';
import { streamModelStep, type StoredMessage } from '../loop/model-call';
import { ledgerSink } from '../loop/usage-meter';
import { withholdUntrusted } from '../decision/taint-scope';

/** Characters per token for estimates (requests are judged before they are sent, so no provider count exists). */
const CHARS_PER_TOKEN = 4;
/** Share of the threshold the verbatim tail may take. */
const KEEP_SHARE = 0.3;
/** The longest one pinned message of the person may be in the compacted context (the rest is paged back by id). */
const PINNED_MESSAGE_CHARS = 1500;
/** Share of the threshold the person's pinned messages may take together (the newest are kept whole first). */
const PINNED_SHARE = 0.25;
/** A pinned message keeps at least its start (where a directive usually is), however little room is left. */
const PINNED_MIN_CHARS = 200;
const SUMMARY_SYSTEM =
  'You compact an agent\'s conversation so it can continue its task. Write a faithful summary of the transcript you are given: the task and the person\'s instructions, decisions made, what was done (files changed, commands run, results found, with exact paths, names and numbers), what failed and why, and what remains. Do not invent anything. Plain text, at most 800 words.';

export interface ContextFigures {
  /** Estimated tokens of the next request's history (after compaction). */
  contextTokens: number;
  contextWindow: number;
  compactAtTokens: number;
  compactions: number;
}

export const estimateTokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

type Viewed = ViewedMessage;

/** The messages after the latest compaction (the ones the model sees verbatim), read incrementally (history-cache). */
function viewed(store: Store, conversationId: string, after: number): readonly Viewed[] {
  return historyView(store, conversationId, after).messages;
}

interface ModelView {
  messages: StoredMessage[];
  chars: number;
  /** The text of the last user message the model sees verbatim (null: none after the latest compaction). */
  lastUserText: string | null;
}

/** Per store and conversation: the last model view and the store's change stamp it was computed at. */
const modelViews = new WeakMap<Store, Map<string, { stamp: string; view: ModelView }>>();

/**
 * The model's view and its size in characters, from the running estimate (nothing re-read or re-serialised). Asked
 * twice in a step with nothing written in between (the compaction check, then the request), the second answer is
 * the first one's: the store's change stamp is all it reads.
 */
function modelView(store: Store, conversationId: string): ModelView {
  const view = keptView(store, conversationId);
  return { ...view, messages: view.messages.slice() };
}

/** The kept view itself (callers only read it). */
function keptView(store: Store, conversationId: string): ModelView {
  const stamp = store.changeStamp();
  let perStore = modelViews.get(store);
  if (!perStore) modelViews.set(store, (perStore = new Map()));
  const kept = perStore.get(conversationId);
  if (kept?.stamp === stamp) return kept.view;
  const view = computeModelView(store, conversationId);
  perStore.delete(conversationId);
  perStore.set(conversationId, { stamp, view });
  if (perStore.size > 16) perStore.delete(perStore.keys().next().value!);
  return view;
}

/** What the model's context holds, in tokens: the view's estimate plus the system prompt and tool set's share. */
const contextTokensOf = (view: ModelView) => estimateTokens(view.chars) + 1500;
/** Where compaction starts, in tokens. */
const compactAtTokensOf = (limits: RuntimeCore['limits']) => Math.floor(limits.contextWindow * limits.compactAt);

function computeModelView(store: Store, conversationId: string): ModelView {
  const record = store.module(contextModule).latest(conversationId);
  const view = historyView(store, conversationId, record?.upto_message_id ?? 0);
  const messages: StoredMessage[] = view.messages.map(({ role, content }) => ({ role, content }));
  let lastUserText: string | null = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      lastUserText = textPartsOf(messages[i]!.content);
      break;
    }
  }
  if (!record) return { messages, chars: view.chars, lastUserText };
  const summary = summaryMessage(store, conversationId, record);
  return { messages: [{ role: 'user', content: summary }, ...messages], chars: view.chars + summary.length, lastUserText };
}

/** The text parts of a message's content, joined. */
export function textPartsOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join(' ');
  return '';
}

/**
 * What the next request carries: after a compaction, its summary with the pinned state, then the kept turns; and the
 * last user text the model sees verbatim (recall's query), from the same view.
 */
export function requestView(store: Store, conversationId: string): { messages: StoredMessage[]; lastUserText: string | null } {
  const view = modelView(store, conversationId);
  return { messages: view.messages, lastUserText: view.lastUserText };
}

export function contextFigures(core: RuntimeCore, conversationId: string): ContextFigures {
  const { store, limits } = core;
  return {
    contextTokens: contextTokensOf(keptView(store, conversationId)),
    contextWindow: limits.contextWindow,
    compactAtTokens: compactAtTokensOf(limits),
    compactions: store.module(contextModule).count(conversationId),
  };
}

/** Compacts when the next request would reach the threshold; says whether it did. */
export async function maybeCompact(core: RuntimeCore, run: RunRow, conv: ConversationRow, options: RunOptions): Promise<boolean> {
  if (contextTokensOf(keptView(core.store, conv.id)) < compactAtTokensOf(core.limits)) return false;
  return (await compactConversation(core, conv.id, run.id, options, 'auto')).compacted;
}

export interface CompactionResult {
  compacted: boolean;
  message: string;
  record?: CompactionRow;
}

/** Summarizes the older part of the model's view of a conversation (summarize_context, or the threshold). */
export async function compactConversation(
  core: RuntimeCore,
  conversationId: string,
  runId: string | null,
  options: Pick<RunOptions, 'provider' | 'signal' | 'onEvent'>,
  /** `auto`: at the threshold; `tool`: summarize_context; `refused`: the provider refused the request as too long. */
  reason: 'auto' | 'tool' | 'refused',
  focus?: string,
): Promise<CompactionResult> {
  const { store, limits } = core;
  // What the PreCompact hooks print: instructions for the summary, beside the asked focus (hook-calls.ts).
  const hookInstructions = await preCompactHooks(core, conversationId, runId, reason === 'tool' ? 'manual' : 'auto', focus, options);
  const ctx = store.module(contextModule);
  const previous = ctx.latest(conversationId);
  const messages = viewed(store, conversationId, previous?.upto_message_id ?? 0);
  const before = contextFigures(core, conversationId).contextTokens;
  // At the threshold the tail may take a share of it; asked for (summarize_context) or refused as too long by the
  // provider (whose real window is smaller than the configured one), a share of what is there now.
  const keepTokens = reason === 'auto' ? Math.max(500, Math.floor(limits.contextWindow * limits.compactAt * KEEP_SHARE)) : Math.max(200, Math.floor(before * KEEP_SHARE));
  // The verbatim tail: the last messages within the budget (at least the last), never starting with tool results.
  let cut = messages.length - 1;
  let kept = estimateTokens(messages[cut]?.chars ?? 0);
  while (cut > 0 && kept + estimateTokens(messages[cut - 1]!.chars) <= keepTokens) kept += estimateTokens(messages[--cut]!.chars);
  while (cut > 0 && messages[cut]!.role === 'tool') cut--;
  if (cut <= 0) return { compacted: false, message: 'Nothing to compact: the history is only the last turns.' };
  const dropped = messages.slice(0, cut);
  const transcript = renderTranscript(previous?.summary ?? null, dropped, limits.contextWindow * 2, focus, hookInstructions);
  // The notice before the summary call (the transcript and the CLI show it while it runs).
  if (runId) core.emit(options, { type: 'context.compaction', phase: 'started', runId, conversationId, reason, tokensBefore: before, droppedMessages: dropped.length });
  let summary: string;
  try {
    summary = await summarize(core, options, transcript, { conversationId, runId });
    if (!summary.trim()) throw new Error('the model returned an empty summary');
  } catch (err) {
    // The compaction still happens (the context must shrink), with a mechanical summary that says why.
    summary = `(The summary model call failed: ${core.redactor.redact(errorMessage(err)).slice(0, 300)}. Mechanical outline of the dropped messages follows.)\n${outline(dropped)}`;
  }
  summary = core.redactor.redact(summary);
  const droppedList = dropped.map((m) => ({ id: m.id, role: m.role, chars: m.chars, tools: toolNames(m) }));
  const upto = dropped[dropped.length - 1]!.id;
  const tail = messages.slice(cut);
  const pinned = pinnedInstructions(store, conversationId, upto, Math.max(2000, Math.floor(compactAtTokensOf(limits) * CHARS_PER_TOKEN * PINNED_SHARE)));
  const keptRecord: Kept = {
    messages: tail.length,
    chars: tail.reduce((n, m) => n + m.chars, 0),
    instructions: pinned.list,
    instructionsText: pinned.text,
    state: pinnedStateNames(store, conversationId),
  };
  const id = ctx.insert({
    conversation_id: conversationId,
    run_id: runId,
    upto_message_id: upto,
    summary,
    dropped: JSON.stringify(droppedList),
    dropped_messages: dropped.length,
    tokens_before: before,
    tokens_after: 0,
    reason,
    kept: JSON.stringify(keptRecord),
  });
  const after = contextFigures(core, conversationId).contextTokens;
  ctx.setTokensAfter(id, after);
  const record = { ...ctx.latest(conversationId)!, tokens_after: after };
  if (runId) core.emit(options, { type: 'context.compaction', phase: 'done', runId, conversationId, reason, tokensBefore: before, droppedMessages: dropped.length, tokensAfter: after });
  return {
    compacted: true,
    record: { ...record, id },
    message: `Compacted: ${dropped.length} older messages (~${before - after} tokens) were summarized; ~${after} tokens remain of a ${limits.contextWindow}-token window. The person's own messages, the plan, todos, work state and open tasks stay pinned; the last turns are verbatim; retrieve_tool_result {"id":"msg_N"} reads a dropped message back.`,
  };
}

async function summarize(core: RuntimeCore, options: Pick<RunOptions, 'provider' | 'signal'>, transcript: string, where: { conversationId: string; runId: string | null }): Promise<string> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(), core.limits.idleTimeoutMs);
  try {
    let text = '';
    const stream = streamModelStep({
      model: core.model(options.provider),
      system: SUMMARY_SYSTEM,
      messages: [{ role: 'user', content: transcript }],
      tools: [],
      signal: controller.signal,
      redactor: core.redactor,
      onUsage: ledgerSink(core.store, { cause: 'compaction', ...where }),
    });
    for await (const part of stream) if (part.type === 'text') text += part.delta;
    return text;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The message that stands for the dropped history: the summary, then the pinned state as it is now. */
function summaryMessage(store: Store, conversationId: string, record: CompactionRow): string {
  const conv = store.getConversation(conversationId);
  const parts = [
    `[Deskhand compacted this conversation: ${record.dropped_messages} earlier messages were replaced by this summary (the full transcript stays in Deskhand's store; retrieve_tool_result {"id":"msg_N"} reads message N back). The pinned state below is current.]`,
  ];
  const pinned = keptOf(record)?.instructionsText;
  if (pinned) parts.push(`The person's own messages, verbatim (pinned: their instructions still hold unless they changed them later):\n${pinned}`);
  parts.push(`Summary of the earlier conversation:\n${record.summary}`);
  if (conv) {
    const state = new PersistentConversationState(conv.folder, conv.state);
    if (Object.keys(state.workState).length) parts.push(`Pinned work state (plan and notes, update_work_state):\n${JSON.stringify(state.workState, null, 1)}`);
    if (state.todos.length) {
      const mark = { done: '[x]', in_progress: '[~]', pending: '[ ]' } as const;
      parts.push(`Pinned todos:\n${state.todos.map((t) => `${mark[t.status]} ${t.id}: ${t.title}`).join('\n')}`);
    }
  }
  const tasks = store.tasks.listTasks(conversationId, { activeOnly: true, limit: 50 });
  if (tasks.length) parts.push(`Open background tasks:\n${tasks.map((t) => `${t.id} (${t.kind}) ${t.title}`).join('\n')}`);
  const children = store.module(subagentsModule).forParent(conversationId).filter((s) => s.status === 'running' || s.status === 'queued');
  if (children.length) parts.push(`Live subagents:\n${children.map((s) => `${s.id} (${s.type}, ${s.status}) ${s.description}`).join('\n')}`);
  return parts.join('\n\n');
}

/** What a compaction kept verbatim (its record's `kept`), or null for records from before it was kept. */
interface Kept {
  messages: number;
  chars: number;
  instructions: { id: number; chars: number; cut: boolean }[];
  instructionsText: string;
  state: string[];
}
function keptOf(record: CompactionRow): Kept | null {
  try {
    return record.kept ? (JSON.parse(record.kept) as Kept) : null;
  } catch {
    return null;
  }
}

/**
 * The person's own messages up to a compaction, verbatim and in order: what they asked for and how. Fixed once the
 * compaction ran (they are older than it), so the record keeps the text every later request carries. A message longer
 * than PINNED_MESSAGE_CHARS, or past the room (a share of the threshold, counted from the newest), keeps its start and
 * says how to read the rest (its id), so nothing the person said is lost or silently cut.
 */
function pinnedInstructions(store: Store, conversationId: string, upto: number, roomChars: number): { text: string; list: Kept['instructions'] } {
  const rows = store.module(contextModule).personMessages(conversationId, upto);
  const list: Kept['instructions'] = [];
  const lines: string[] = [];
  let room = roomChars;
  for (const row of rows.slice().reverse()) {
    const text = textPartsOf(JSON.parse(row.content) as unknown).trim();
    if (!text) continue;
    const limit = Math.max(PINNED_MIN_CHARS, Math.min(PINNED_MESSAGE_CHARS, room));
    const shown = text.length > limit ? `${text.slice(0, limit)} [… ${text.length - limit} more characters: retrieve_tool_result {"id":"msg_${row.id}"}]` : text;
    room -= Math.min(text.length, limit);
    lines.push(`- [msg_${row.id}] ${shown}`);
    list.push({ id: row.id, chars: text.length, cut: text.length > limit });
  }
  return { text: lines.reverse().join('\n'), list: list.reverse() };
}

/** The pinned state the compacted context carries now (names, for the record). */
function pinnedStateNames(store: Store, conversationId: string): string[] {
  const conv = store.getConversation(conversationId);
  const names: string[] = [];
  if (conv) {
    const state = new PersistentConversationState(conv.folder, conv.state);
    if (Object.keys(state.workState).length) names.push('work state');
    if (state.todos.length) names.push('todos');
  }
  if (store.tasks.listTasks(conversationId, { activeOnly: true, limit: 1 }).length) names.push('open background tasks');
  if (store.module(subagentsModule).forParent(conversationId).some((s) => s.status === 'running' || s.status === 'queued')) names.push('live subagents');
  return names;
}

/**
 * A dropped message, whole, for `retrieve_tool_result {"id":"msg_N"}`: only one of this conversation that a
 * compaction replaced (the rest the model sees verbatim anyway). Tool results and messages Deskhand wrote (a task's
 * wake-up may quote command output) come back as untrusted; the person's messages and the model's replies do not.
 */
export function droppedMessage(store: Store, conversationId: string, messageId: number): { text: string; untrusted: boolean } | null {
  const ctx = store.module(contextModule);
  const record = ctx.latest(conversationId);
  if (!record || messageId > record.upto_message_id) return null;
  const m = ctx.message(conversationId, messageId);
  if (!m) return null;
  const person = m.role === 'user' && ctx.personMessages(conversationId, messageId).some((p) => p.id === messageId);
  return { text: `${m.role.toUpperCase()}:\n${textOf({ role: m.role, content: JSON.parse(m.content) as unknown } as StoredMessage)}`, untrusted: m.role !== 'assistant' && !person };
}

/** A message as the summarizer reads it: untrusted content withheld (taint-scope.ts: the summary carries no source). */
function textOf(m: StoredMessage): string {
  return withholdUntrusted(rawTextOf(m));
}

function rawTextOf(m: StoredMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return JSON.stringify(m.content);
  return m.content
    .map((p: { type?: string; text?: string; toolName?: string; input?: unknown; output?: { value?: unknown } }) => {
      if (p.type === 'text') return p.text ?? '';
      if (p.type === 'tool-call') return `→ ${p.toolName}(${JSON.stringify(p.input).slice(0, 500)})`;
      if (p.type === 'tool-result') return `← ${p.toolName}: ${String(p.output?.value ?? '')}`;
      return '';
    })
    .join('\n');
}

function toolNames(m: StoredMessage): string[] {
  if (!Array.isArray(m.content)) return [];
  return (m.content as { type?: string; toolName?: string }[]).filter((p) => p.type === 'tool-call').map((p) => p.toolName ?? '');
}

function renderTranscript(previous: string | null, dropped: readonly Viewed[], maxChars: number, focus?: string, hookInstructions?: string | null): string {
  const perMessage = Math.max(400, Math.floor(maxChars / Math.max(1, dropped.length)));
  const lines = dropped.map((m) => {
    const text = textOf(m);
    return `${m.role.toUpperCase()}: ${text.length > perMessage ? `${text.slice(0, perMessage)} [… ${text.length - perMessage} characters]` : text}`;
  });
  let body = lines.join('\n\n');
  if (body.length > maxChars) body = body.slice(body.length - maxChars);
  return [
    focus ? `Keep in particular: ${focus}` : '',
    hookInstructions ? `Instructions for this summary from the PreCompact hooks:\n${hookInstructions}` : '',
    previous ? `Summary of what came before:\n${previous}` : '',
    `Transcript to summarize:\n${body}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

function outline(dropped: readonly Viewed[]): string {
  return dropped
    .map((m) => `- ${m.role}${toolNames(m).length ? ` (${toolNames(m).join(', ')})` : ''}: ${textOf(m).replace(/\s+/g, ' ').slice(0, 200)}`)
    .join('\n')
    .slice(0, 8000);
}
