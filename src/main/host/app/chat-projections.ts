/**
 * What the chat family adds to the transcript projection: how a tool call really ended (stopped, moved to the
 * background), its duration from when it began executing (not from when it was proposed), who or what cleared it and
 * when, the approval preview kept on answered cards, attachments as chips, and tokens and cost per turn.
 */
import type { AttachmentView, Cleared, TurnUsage } from '../../../shared/contract/chat';
import type { MessageItem, ToolItem } from '../../../shared/contract';
import { costOf, runTokens } from '../../../shared/prices';
import { attachmentOf } from '../../runtime/context/user-content';
import { usageTotals, type UsageGroup } from '../../../shared/usage';
import { pricesOf } from './usage-projection';
import { type ApprovalRow, type CallNoteRow, type Records, type RunRow, type ToolCallRow } from '../../runtime/records';

export interface ChatExtras {
  notes: Map<string, CallNoteRow>;
  /** `runId\0callId` → the command task the call started. */
  tasks: Map<string, { background: number; status: string }>;
  /** Transcript call id → the person's review of its untrusted result (markReviewed). */
  reviewed: Map<string, { by: string; at: number }>;
}

export function chatExtras(store: Records, conversationId: string): ChatExtras {
  const chat = store.chat;
  const notes = new Map<string, CallNoteRow>();
  for (const n of chat.notesForConversation(conversationId)) notes.set(n.tool_call_id, n);
  const tasks = new Map<string, { background: number; status: string }>();
  for (const t of chat.callTasks(conversationId)) tasks.set(`${t.run_id}\u0000${t.call_id}`, t);
  const reviewed = new Map(store.reviewed.forConversation(conversationId).map((r) => [r.call_id, { by: r.reviewed_by, at: r.reviewed_at }]));
  return { notes, tasks, reviewed };
}

export function withNotes(item: MessageItem, call: ToolCallRow | undefined, approval: ApprovalRow | undefined, extras: ChatExtras): MessageItem {
  if (item.kind !== 'tool' || !call) return item;
  const note = extras.notes.get(call.id);
  const task = extras.tasks.get(`${call.run_id}\u0000${call.call_id}`);
  let status: ToolItem['status'] = item.status;
  if (task && call.status === 'done' && !call.is_error) {
    // The command's own task says how the call ended; the call itself "succeeded" in either case.
    if (task.background === 1) status = 'backgrounded';
    else if (task.status === 'cancelled' || task.status === 'interrupted') status = 'stopped';
  }
  // Stopped while it ran (call-pipeline's "<tool> was stopped: …"); a call never run keeps "interrupted".
  if (call.status === 'interrupted' && / was stopped: stopped by the person/.test(call.output ?? '')) status = 'stopped';
  const started = note?.started_at ?? null;
  const durationMs = call.finished_at && started ? Math.max(0, call.finished_at - started) : item.durationMs;
  const reviewed = extras.reviewed.get(call.call_id);
  return { ...item, status, durationMs, cleared: clearedOf(call, approval, note), preview: approval?.preview ?? null, ...(reviewed ? { reviewed } : {}) };
}

function clearedOf(call: ToolCallRow, approval: ApprovalRow | undefined, note: CallNoteRow | undefined): Cleared | null {
  if (approval && (approval.status === 'approved' || approval.status === 'denied')) {
    return { by: 'person', via: note?.cleared_by === 'person' ? note.via : null, decision: approval.status, at: approval.decided_at };
  }
  if (note?.cleared_by === 'rule') return { by: 'rule', via: note.via, decision: 'approved', at: note.cleared_at };
  if (call.decision === 'allow') return { by: 'policy', via: null, decision: 'approved', at: note?.cleared_at ?? null };
  return null;
}

/** Lines and characters of a text attachment the transcript can show; the rest stays in the store (the model had it). */
const PREVIEW_LINES = 200;
const PREVIEW_CHARS = 20_000;

/** The start of an attached text, out of its "Attached file NAME:" fence (attachedTextPart). */
export function textPreview(part: string): string {
  const m = /^Attached file [^\n]*:\n(`{3,})\n/.exec(part);
  const body = m ? part.slice(m[0].length, part.length - m[1]!.length - 1) : part;
  const lines = body.slice(0, PREVIEW_CHARS).split('\n').slice(0, PREVIEW_LINES).join('\n');
  return lines;
}

export function attachmentsOf(content: unknown): AttachmentView[] {
  if (!Array.isArray(content)) return [];
  const out: AttachmentView[] = [];
  for (const part of content as { type?: string; data?: string; mediaType?: string; text?: string }[]) {
    const meta = attachmentOf(part);
    if (!meta) continue;
    const dataUrl = meta.kind === 'image' && typeof part.data === 'string' ? `data:${part.mediaType};base64,${part.data}` : null;
    const preview = meta.kind === 'text' && typeof part.text === 'string' ? textPreview(part.text) : undefined;
    out.push({ name: meta.attachment, kind: meta.kind, bytes: meta.bytes, dataUrl, ...(preview !== undefined ? { preview } : {}) });
  }
  return out;
}

export function runUsage(runs: readonly Pick<RunRow, 'model' | 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens'>[]): TurnUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let costUsd: number | null = 0;
  const models: string[] = [];
  for (const r of runs) {
    inputTokens += r.input_tokens;
    outputTokens += r.output_tokens;
    cacheReadTokens += r.cache_read_tokens;
    cacheWriteTokens += r.cache_write_tokens;
    if (r.input_tokens + r.output_tokens === 0) continue;
    if (!models.includes(r.model)) models.push(r.model);
    const c = costOf(r.model, runTokens(r));
    costUsd = c === null || costUsd === null ? null : costUsd + c;
  }
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, models };
}

/**
 * A turn's usage from the usage ledger: its own calls and what it caused (subagents, compaction, memory extraction,
 * the media companion), priced with the table in force. Runs from before the ledger have no rows there.
 */
function ledgerUsage(store: Records, groups: readonly UsageGroup[]): TurnUsage | null {
  if (groups.length === 0) return null;
  const t = usageTotals(groups, pricesOf(store));
  const models = [...new Set(groups.filter((g) => g.input_tokens + g.output_tokens > 0).map((g) => g.model))];
  return { inputTokens: t.inputTokens, outputTokens: t.outputTokens, cacheReadTokens: t.cacheReadTokens, cacheWriteTokens: t.cacheWriteTokens, costUsd: t.costUsd, models };
}

/** Puts each finished turn's usage on its last assistant text (items are this projection's own, mutated in place). */
export function withTurnUsage(items: MessageItem[], runs: readonly RunRow[], lastIndexOfRun: ReadonlyMap<string, number>, store?: Records): void {
  const ledger = new Map<string, UsageGroup[]>();
  if (store) {
    for (const g of store.usage.forRuns(runs.filter((r) => lastIndexOfRun.has(r.id)).map((r) => r.id))) {
      const list = ledger.get(g.root_run_id) ?? [];
      list.push(g);
      ledger.set(g.root_run_id, list);
    }
  }
  for (const run of runs) {
    const fromLedger = store ? ledgerUsage(store, ledger.get(run.id) ?? []) : null;
    if (fromLedger && lastIndexOfRun.has(run.id)) {
      for (let i = lastIndexOfRun.get(run.id)!; i >= 0; i--) {
        const it = items[i]!;
        if (it.runId !== run.id) break;
        if (it.kind === 'assistant') {
          items[i] = { ...it, usage: fromLedger };
          break;
        }
      }
      continue;
    }
    if (run.input_tokens + run.output_tokens === 0 || !lastIndexOfRun.has(run.id)) continue;
    for (let i = lastIndexOfRun.get(run.id)!; i >= 0; i--) {
      const it = items[i]!;
      if (it.runId !== run.id) break;
      if (it.kind === 'assistant') {
        items[i] = { ...it, usage: runUsage([run]) };
        break;
      }
    }
  }
}

/** getMessages' extra fields: the conversation's usage, and the steps of its latest run already stored. */
export function conversationFigures(store: Records, conversationId: string): { usage: TurnUsage; storedSteps: { runId: string; step: number } | null } {
  const runs = store.runsForConversation(conversationId);
  const last = runs.at(-1);
  // The ledger's rows, and the run rows of turns from before it (they have no ledger rows).
  const groups = store.usage.groups({ rootConversationId: conversationId });
  const counted = new Set(store.usage.forRuns(runs.map((r) => r.id)).map((g) => g.root_run_id));
  const fromLedger = ledgerUsage(store, groups);
  const older = runUsage(runs.filter((r) => !counted.has(r.id)));
  if (!fromLedger) return { usage: older, storedSteps: last ? { runId: last.id, step: last.step } : null };
  const usage: TurnUsage = {
    inputTokens: fromLedger.inputTokens + older.inputTokens,
    outputTokens: fromLedger.outputTokens + older.outputTokens,
    cacheReadTokens: fromLedger.cacheReadTokens + older.cacheReadTokens,
    cacheWriteTokens: (fromLedger.cacheWriteTokens ?? 0) + (older.cacheWriteTokens ?? 0),
    costUsd: fromLedger.costUsd === null || older.costUsd === null ? null : fromLedger.costUsd + older.costUsd,
    models: [...new Set([...fromLedger.models, ...older.models])],
  };
  return { usage, storedSteps: last ? { runId: last.id, step: last.step } : null };
}
