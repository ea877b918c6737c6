/**
 * Read-side projections of the store for the UI: what a person sees (user text, assistant text, tool calls with their
 * arguments, results and status, errors), never raw rows. Few queries per call, so a 10,000-message conversation
 * projects in milliseconds.
 */
import { OUTPUT_PREVIEW_CHARS, type ConversationSummary, type MessageItem, type PendingApproval, type TodoView, type ToolItemStatus } from '../../../shared/contract';
import { displayTime } from '../../services/scheduler/when';
import { parseSteering } from '../../services/subagents/index';
import type { RiskTier } from '../../../shared/tools';
import { fallbackTitle, unknownToolTitle } from '../../../shared/tool-presentation';
import type { ToolRegistry } from '../../runtime/registry';
import { PersistentConversationState } from '../../runtime/context/conversation-state';
import { parseWakeMessage } from '../assembly/wake-message';
import { parseReviewMessage } from '../assembly/review-message';
import { attachmentOf } from '../../runtime/context/user-content';
import { attachmentsOf, chatExtras, withNotes, withTurnUsage } from './chat-projections';
import { type ApprovalRow, type ConversationRow, type MessageRow, type Records, type SubagentRow, type ToolCallRow } from '../../runtime/records';

/** What the projections need of the tool registry: each tool's declared title and its one-line summary of a call. */
export interface ToolPresenter {
  title(tool: string): string;
  summarize(tool: string, args: unknown, output?: string | null): string | null;
}

export function toolPresenter(registry: Pick<ToolRegistry, 'lookup' | 'summarize'>): ToolPresenter {
  return {
    // A name no registered tool has (the model made it up, or its MCP server is gone) is not dressed up as a real one.
    title: (tool) => {
      const known = registry.lookup(tool);
      return known ? (known.presentation?.title ?? fallbackTitle(tool)) : unknownToolTitle(tool);
    },
    summarize: (tool, args, output) => registry.summarize(tool, args, output),
  };
}

export function summarize(store: Records, rows: ConversationRow[], running: ReadonlySet<string>): ConversationSummary[] {
  const pending = new Map<string, number>();
  for (const [id, n] of store.pendingApprovalCounts()) pending.set(id, n);
  const childOf = new Map(store.subagents.links().map((l) => [l.conversation_id, { conversationId: l.parent_conversation_id, subagentId: l.id }]));
  return rows.map((row) => {
    const n = pending.get(row.id) ?? 0;
    const parent = childOf.get(row.id);
    return {
      ...(parent ? { subagentOf: parent } : {}),
      id: row.id,
      title: row.title,
      folder: row.folder,
      policy: row.policy,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      activity: n > 0 ? 'waiting' : running.has(row.id) ? 'running' : 'idle',
      pendingApprovals: n,
      sandbox: row.sandbox,
    };
  });
}

type Part = { type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function toolStatus(call: ToolCallRow, approval: ApprovalRow | undefined): ToolItemStatus {
  switch (call.status) {
    case 'done':
      if (approval?.status === 'denied' || call.decision === 'deny') return 'denied';
      return call.is_error ? 'error' : 'ok';
    case 'error':
      return 'error';
    case 'interrupted':
      return 'interrupted';
    case 'denied':
      return 'denied';
    default:
      return call.status;
  }
}

export function projectMessages(store: Records, conversationId: string, presenter: ToolPresenter): MessageItem[] {
  const messages = store.listMessages(conversationId);
  const calls = store.toolCallsForConversation(conversationId);
  const approvals = store.approvalsForConversation(conversationId);
  const runs = store.runsForConversation(conversationId);

  const callByKey = new Map<string, ToolCallRow>();
  for (const c of calls) callByKey.set(`${c.run_id}\u0000${c.call_id}`, c);
  const approvalByCall = new Map<string, ApprovalRow>();
  for (const a of approvals) approvalByCall.set(a.tool_call_id, a); // latest wins (ordered by created_at)

  const extras = chatExtras(store, conversationId);
  const items: MessageItem[] = [];
  const lastIndexOfRun = new Map<string, number>();
  const push = (item: MessageItem, runId: string | null) => {
    items.push(item);
    if (runId) lastIndexOfRun.set(runId, items.length - 1);
  };

  // In a subagent's transcript the user messages are its parent's (its prompt, steering), except a steer the person sent.
  const child = store.subagents.byConversation(conversationId);
  const parentName = child ? (store.getConversation(child.parent_conversation_id)?.title ?? child.parent_conversation_id) : null;

  // What hooks said: their messages the model read (a Stop hook's reason) by message id, and notes for the person.
  const hookSaid = store.compactions.hookMessages(conversationId);
  const hookOf = new Map(hookSaid.flatMap((h) => (h.message_id === null ? [] : [[h.message_id, h.event] as const])));

  for (const m of messages) pushMessage(m);

  function pushMessage(m: MessageRow): void {
    const content = parseJson(m.content);
    if (m.role === 'user') {
      let text = partsText(content);
      // A turn Deskhand started because background work ended is shown as that, never as the person's words.
      const wake = parseWakeMessage(text);
      const attachments = attachmentsOf(content);
      const steer = parentName !== null ? parseSteering(text) : null;
      if (steer) text = steer.message;
      const from = parentName !== null && steer?.from !== 'person' ? { from: parentName } : {};
      // A review from the composition viewer is shown as the review it is, not as text the person typed.
      const review = wake || parentName !== null ? null : parseReviewMessage(text);
      const hook = hookOf.get(m.id);
      // Its `[Stop hook]` line is for the model; the item says whose it is.
      if (hook) push({ kind: 'hook', id: `m${m.id}`, runId: m.run_id, event: hook, text: text.startsWith(`[${hook} hook]\n`) ? text.slice(hook.length + 8) : text, toModel: true, at: m.created_at }, m.run_id);
      else if (wake) push({ kind: 'wake', id: `m${m.id}`, runId: m.run_id, tasks: wake, at: m.created_at }, m.run_id);
      else if (review) push({ kind: 'review', id: `m${m.id}`, runId: m.run_id, ...review, at: m.created_at }, m.run_id);
      else push({ kind: 'user', id: `m${m.id}`, runId: m.run_id, text, at: m.created_at, ...(attachments.length ? { attachments } : {}), ...from }, m.run_id);
      return;
    }
    if (m.role !== 'assistant') return; // tool results are shown on their tool call; system messages are not shown
    const parts: Part[] = Array.isArray(content) ? (content as Part[]) : [{ type: 'text', text: String(content) }];
    let textIndex = 0;
    // Thinking (reasoning parts, stored before the text and calls they led to) rides on the next text shown, or on a
    // text-less reply of its own when the step went straight to tool calls.
    let thinking = '';
    const thought = () => {
      const t = thinking;
      thinking = '';
      return t ? { thinking: t } : {};
    };
    for (const part of parts) {
      if (part.type === 'reasoning' && part.text) {
        thinking += (thinking ? '\n\n' : '') + part.text;
      } else if (part.type === 'text' && part.text) {
        push({ kind: 'assistant', id: `m${m.id}${textIndex++ ? `.${textIndex}` : ''}`, runId: m.run_id, text: part.text, ...thought(), at: m.created_at }, m.run_id);
      } else if (part.type === 'tool-call' && part.toolCallId && m.run_id) {
        if (thinking) push({ kind: 'assistant', id: `m${m.id}${textIndex++ ? `.${textIndex}` : ''}`, runId: m.run_id, text: '', ...thought(), at: m.created_at }, m.run_id);
        const call = callByKey.get(`${m.run_id}\u0000${part.toolCallId}`);
        push(withNotes(toolItem(m.run_id, part, call, call ? approvalByCall.get(call.id) : undefined, m.created_at, presenter), call, call ? approvalByCall.get(call.id) : undefined, extras), m.run_id);
      }
    }
  }

  // Run outcomes a person must see, placed after the run's last item.
  const inserts: { after: number; item: MessageItem }[] = [];
  for (const run of runs) {
    let item: MessageItem | null = null;
    if (run.status === 'failed') {
      item = { kind: 'error', id: `err:${run.id}`, runId: run.id, text: run.error ?? 'The run failed.', severity: 'error', at: run.updated_at };
    } else if (run.status === 'aborted' && run.error !== 'Superseded by a new message.') {
      item = { kind: 'error', id: `err:${run.id}`, runId: run.id, text: run.error ?? 'Stopped.', severity: 'notice', at: run.updated_at };
    } else if (run.status === 'interrupted') {
      item = { kind: 'error', id: `err:${run.id}`, runId: run.id, text: run.error ?? 'Interrupted when Deskhand stopped.', severity: 'notice', at: run.updated_at };
    }
    // A run whose messages were replaced by an edit or a regenerate (a superseded branch) shows nothing.
    if (item && lastIndexOfRun.has(run.id)) inserts.push({ after: lastIndexOfRun.get(run.id)!, item });
  }
  withTurnUsage(items, runs, lastIndexOfRun, store);
  const notes = hookSaid.flatMap((h): MessageItem[] => (h.message_id === null ? [{ kind: 'hook', id: `hook:${h.id}`, runId: h.run_id, event: h.event, text: h.text, toModel: false, at: h.created_at }] : []));
  const rang = [...reminderEvents(store, conversationId), ...compactionEvents(store, conversationId), ...notes].sort((a, b) => a.at - b.at);
  if (inserts.length === 0) return rang.length ? byTime(items, rang) : items;
  inserts.sort((a, b) => a.after - b.after);
  const out: MessageItem[] = [];
  let k = 0;
  for (let i = -1; i < items.length; i++) {
    if (i >= 0) out.push(items[i]!);
    while (k < inserts.length && inserts[k]!.after === i) out.push(inserts[k++]!.item);
  }
  return rang.length ? byTime(out, rang) : out;
}

/** The conversation's reminders that rang, as events: when they really rang and how late (not when they were due). */
function reminderEvents(store: Records, conversationId: string): MessageItem[] {
  return store
    .schedule
    .reminderFires(conversationId)
    .map((f) => {
      const late = Math.round((f.claimed_at - f.due_at) / 1000);
      const lateness = late >= 60 ? `${Math.floor(late / 60)} min ${late % 60} s late` : late >= 2 ? `${late} s late` : 'on time';
      const text =
        f.status === 'notified'
          ? `Reminder rang ${displayTime(f.claimed_at, f.tz)} (${lateness}): ${f.text}`
          : `Reminder due ${displayTime(f.due_at, f.tz)} could not ring (${f.detail ?? 'no notification server'}): ${f.text}`;
      return { kind: 'error' as const, id: `rem:${f.id}`, runId: null, text, severity: 'notice' as const, at: f.claimed_at };
    });
}

/** Places events among the items by time (each before the first item that came later). */
/** Each compaction of the conversation, at the time it ran: what it dropped and the summary that stands for it. */
function compactionEvents(store: Records, conversationId: string): MessageItem[] {
  return store
    .compactions
    .list(conversationId)
    .map((c) => {
      let dropped: { role: string; chars: number; tools: string[] }[] = [];
      try {
        dropped = (JSON.parse(c.dropped) as { role: string; chars: number; tools?: string[] }[]).map((d) => ({ role: d.role, chars: d.chars, tools: d.tools ?? [] }));
      } catch {
        dropped = [];
      }
      let kept: { messages: number; chars: number; instructions: { id: number; chars: number; cut: boolean }[]; state: string[] } | undefined;
      try {
        const k = c.kept ? (JSON.parse(c.kept) as NonNullable<typeof kept>) : undefined;
        kept = k ? { messages: k.messages, chars: k.chars, instructions: k.instructions.map((i) => ({ id: i.id, chars: i.chars, cut: i.cut })), state: k.state } : undefined;
      } catch {
        kept = undefined;
      }
      return { kind: 'compaction' as const, id: `cmp:${c.id}`, runId: c.run_id, at: c.created_at, reason: c.reason, tokensBefore: c.tokens_before, tokensAfter: c.tokens_after, dropped, summary: c.summary, ...(kept ? { kept } : {}) };
    });
}

function byTime(items: MessageItem[], events: MessageItem[]): MessageItem[] {
  const out: MessageItem[] = [];
  let k = 0;
  for (const item of items) {
    while (k < events.length && events[k]!.at < item.at) out.push(events[k++]!);
    out.push(item);
  }
  while (k < events.length) out.push(events[k++]!);
  return out;
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  // Attached files are shown as chips (attachmentsOf), not as what the person typed.
  if (Array.isArray(content)) return (content as Part[]).map((p) => (p.type === 'text' && !attachmentOf(p) ? (p.text ?? '') : '')).join('');
  return JSON.stringify(content);
}

function toolItem(runId: string, part: Part, call: ToolCallRow | undefined, approval: ApprovalRow | undefined, at: number, presenter: ToolPresenter): MessageItem {
  const output = call?.output ?? null;
  const tool = call?.tool ?? part.toolName ?? 'unknown';
  const args = call ? parseJson(call.args) : (part.input ?? {});
  return {
    kind: 'tool',
    id: `tc:${runId}:${part.toolCallId}`,
    runId,
    callId: part.toolCallId!,
    tool,
    args,
    status: call ? toolStatus(call, approval) : 'pending',
    risk: (call?.risk ?? null) as RiskTier | null,
    reasons: call ? (parseJson(call.reasons) as string[]) : [],
    output: output === null ? null : output.slice(0, OUTPUT_PREVIEW_CHARS),
    outputChars: output?.length ?? 0,
    durationMs: call?.finished_at ? call.finished_at - call.created_at : null,
    approvalId: approval?.status === 'pending' ? approval.id : null,
    summary: presenter.summarize(tool, args, call?.status === 'done' && !call.is_error ? output : null),
    at,
  };
}

export function projectApprovals(store: Records, presenter: ToolPresenter): PendingApproval[] {
  return projectApprovalRows(store, presenter, store.pendingApprovalsWithContext());
}

/** A request with what the UI shows beside it: its run, conversation and tool call. */
export type ApprovalContextRow = ApprovalRow & { conv_id: string; run_status: string; conv_title: string; conv_folder: string; call_id: string; call_args: string };

/** One pending request as the UI shows it, read by its id (its own rows only); null when it is not pending. */
export function projectApproval(store: Records, presenter: ToolPresenter, approvalId: string): PendingApproval | null {
  const row = store.getApproval(approvalId);
  if (!row || row.status !== 'pending') return null;
  const run = store.getRun(row.run_id);
  const conv = run && store.getConversation(run.conversation_id);
  const call = run && store.toolCallsForRun(run.id).find((c) => c.id === row.tool_call_id);
  if (!run || !conv || !call) return null;
  const context: ApprovalContextRow = { ...row, conv_id: conv.id, run_status: run.status, conv_title: conv.title, conv_folder: conv.folder, call_id: call.call_id, call_args: call.args };
  return projectApprovalRows(store, presenter, [context])[0] ?? null;
}

export function projectApprovalRows(store: Records, presenter: ToolPresenter, rows: readonly ApprovalContextRow[]): PendingApproval[] {
  const described = rows.some((r) => r.tool === 'use_saved_secret') ? new Map(store.secretDescriptions().map((d) => [d.name, d.description])) : new Map<string, string>();
  const children = store.subagents;
  return rows.map((r) => ({
    approvalId: r.id,
    runId: r.run_id,
    // A subagent's request surfaces in its parent's conversation, labelled with the child.
    ...subagentLabel(children.byConversation(r.conv_id), r.conv_id),
    conversationTitle: r.conv_title,
    folder: r.conv_folder,
    callId: r.call_id,
    tool: r.tool,
    title: presenter.title(r.tool),
    args: parseJson(r.call_args),
    risk: r.risk,
    reasons: parseJson(r.reasons) as string[],
    description: r.description,
    preview: r.preview,
    alwaysPattern: r.always_pattern,
    runStatus: r.run_status === 'running' || r.run_status === 'parked' ? r.run_status : 'other',
    kind: r.kind,
    data: r.request === null ? null : parseJson(r.request),
    secret: secretOf(r, described),
    createdAt: r.created_at,
  }));
}

function subagentLabel(child: SubagentRow | undefined, conversationId: string): Pick<PendingApproval, 'conversationId' | 'subagent'> {
  if (!child) return { conversationId, subagent: null };
  return { conversationId: child.parent_conversation_id, subagent: { id: child.id, type: child.type, description: child.description, conversationId: child.conversation_id } };
}

/** The saved secret an approval is about: the one the person is asked to type, or the one the run would load. */
function secretOf(r: ApprovalRow & { call_args: string }, described: ReadonlyMap<string, string>): PendingApproval['secret'] {
  if (r.kind !== 'secret' && r.tool !== 'use_saved_secret') return null;
  const args = parseJson(r.call_args) as { name?: unknown; description?: unknown };
  if (!args || typeof args !== 'object' || typeof args.name !== 'string') return null;
  if (r.kind === 'secret') {
    return { name: args.name, description: typeof args.description === 'string' ? args.description : '', prompt: r.preview };
  }
  return { name: args.name, description: described.get(args.name) ?? '', prompt: null };
}

/** The conversation's todo list (manage_todos keeps it in the conversation's state). */
export function projectTodos(row: Pick<ConversationRow, 'folder' | 'state'>): TodoView[] {
  return new PersistentConversationState(row.folder, row.state).todos
    .filter((t) => t && typeof t.id === 'string' && typeof t.title === 'string')
    .map((t) => ({
      id: t.id,
      title: t.title,
      status: t.status === 'done' || t.status === 'in_progress' ? t.status : 'pending',
      priority: t.priority === 'low' || t.priority === 'medium' || t.priority === 'high' ? t.priority : null,
    }));
}

/** One line for a notification: what needs the person (the tool's declared title), never contents, secrets or output. */
export function approvalHeadline(a: Pick<PendingApproval, 'kind' | 'title' | 'folder'>): string {
  return `${a.kind === 'approval' ? 'Approval needed' : 'Waiting for your answer'}: ${a.title} in ${shortFolder(a.folder)}`;
}

function shortFolder(folder: string): string {
  const parts = folder.split(/[\\/]/).filter(Boolean);
  return parts.length <= 2 ? folder : `…/${parts.slice(-2).join('/')}`;
}
