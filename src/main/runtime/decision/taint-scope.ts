/**
 * Taint by source, as far as compaction goes: the taint rule protects against injected content the model still reads.
 * Every piece of untrusted content reaches a conversation's messages inside an untrusted envelope (tool output, a
 * project hook's words, a project slash command, a wake-up's task output: untrusted.ts); context blocks (recalled
 * memory, untrusted project instructions, a changed MCP tool list) are re-read for every request and taint that
 * step again. So once a compaction has replaced the older messages and the model's view (the summary, which is
 * written without the untrusted text, and the kept turns) holds no envelope, no tainting source is left in the
 * context: the run and its conversation are untainted, and egress is decided as in a run that never read any.
 *
 * And as far as review goes: a tool result the person marked as reviewed (markReviewed: they read it and vouch for
 * it; the app's "Mark as reviewed" on its card, `deskhand runs review`) is theirs, so its envelope no longer counts as
 * an untrusted source. Once every envelope left in the view is a reviewed result's, the taint clears as after a
 * compaction; a new untrusted result (or a reviewed one whose stored text is not the text reviewed) taints again.
 */
import { createHash } from 'node:crypto';
import { DeskhandError } from '../../../shared/errors';
import { contextModule } from '../../services/store/modules/context';
import { peersModule } from '../../services/store/modules/peers';
import { reviewedModule } from '../../services/store/modules/reviewed';
import { subagentsModule } from '../../services/store/modules/subagents';
import type { Store } from '../../services/store/store';
import { historyView } from '../context/history-cache';

/** The opening of an untrusted envelope, as it stands in a stored message (JSON keeps `<` and the name as they are). */
const ENVELOPE = /<untrusted source=/;

/** Whether text (a stored message's JSON, a summary) carries an untrusted envelope. */
export function carriesUntrusted(text: string): boolean {
  return ENVELOPE.test(text);
}

type ResultPart = { type?: unknown; toolCallId?: unknown; output?: unknown };

/** The fingerprint of a tool result as the transcript holds it (what a review vouches for). */
const resultSha = (part: ResultPart) => createHash('sha256').update(JSON.stringify(part.output ?? null)).digest('hex');

/** The call ids of a conversation's reviewed results, each with the fingerprint of the result reviewed. */
function reviewedResults(store: Store, conversationId: string): Map<string, string> {
  return new Map(store.module(reviewedModule).forConversation(conversationId).map((r) => [r.call_id, r.sha256]));
}

/** Whether a stored message carries untrusted content, leaving out the tool results reviewed as they are now. */
function messageCarriesUntrusted(content: unknown, reviewed: Map<string, string>): boolean {
  if (reviewed.size > 0 && Array.isArray(content)) {
    return (content as ResultPart[]).some((part) => {
      const sha = part?.type === 'tool-result' && typeof part.toolCallId === 'string' ? reviewed.get(part.toolCallId) : undefined;
      if (sha !== undefined && sha === resultSha(part)) return false;
      return carriesUntrusted(JSON.stringify(part));
    });
  }
  return carriesUntrusted(typeof content === 'string' ? content : JSON.stringify(content));
}

/**
 * Whether the model's view of a conversation still holds untrusted content: the latest compaction's summary and
 * every message after it (the current branch only: an edit or a regenerate moved the replaced turns out), less the
 * results the person reviewed.
 */
export function viewHoldsUntrusted(store: Store, conversationId: string): boolean {
  const record = store.module(contextModule).latest(conversationId);
  if (record && carriesUntrusted(record.summary)) return true;
  const reviewed = reviewedResults(store, conversationId);
  for (const m of historyView(store, conversationId, record?.upto_message_id ?? 0).messages) {
    if (messageCarriesUntrusted(m.content, reviewed)) return true;
  }
  return false;
}

export interface ReviewMark {
  conversationId: string;
  callId: string;
  runId: string;
  tool: string;
  reviewedBy: string;
  reviewedAt: number;
  /** False when the result was already marked (the first mark stands). */
  marked: boolean;
}

/**
 * The person marks an untrusted tool result of a conversation as reviewed (`by`: the surface they did it on, app or
 * cli). Only for a finished call of this conversation whose result in the transcript is untrusted; never a
 * subagent's conversation (its taint comes from its parent's prompt, which no review covers) nor a peer's (another
 * agent drives it). No tool reaches this: hosts call it for the person. The taint clears before the next step.
 */
export function markReviewed(store: Store, conversationId: string, callId: string, by: string): ReviewMark {
  const conv = store.getConversation(conversationId);
  if (!conv) throw new DeskhandError('not_found', `No conversation ${conversationId}.`);
  if (store.module(subagentsModule).byConversation(conversationId)) throw new DeskhandError('usage', "A subagent's results cannot be marked as reviewed: its taint comes from its parent. Review the result in the parent conversation.");
  if (store.module(peersModule).conversationOf(conversationId)) throw new DeskhandError('usage', "A peer's conversation cannot be marked as reviewed: another agent drives it.");
  const modules = store.module(reviewedModule);
  const call = modules.callOf(conversationId, callId);
  if (!call) throw new DeskhandError('not_found', `No tool call ${callId} in conversation ${conversationId}. See \`deskhand runs show RUN_ID\` for its calls.`);
  const part = resultPartOf(store, conversationId, callId);
  if (!part) throw new DeskhandError('usage', `Tool call ${callId} has no result in the conversation's current view (not finished yet, or compacted away); there is nothing to review.`);
  if (!carriesUntrusted(JSON.stringify(part))) throw new DeskhandError('usage', `The result of ${callId} (${call.tool}) is not untrusted content: there is nothing to review.`);
  const known = modules.get(conversationId, callId);
  if (known) return { conversationId, callId, runId: known.run_id, tool: known.tool, reviewedBy: known.reviewed_by, reviewedAt: known.reviewed_at, marked: false };
  const row = { conversation_id: conversationId, call_id: callId, run_id: call.run_id, tool: call.tool, sha256: resultSha(part), reviewed_by: by, reviewed_at: Date.now() };
  modules.mark(row);
  return { conversationId, callId, runId: row.run_id, tool: row.tool, reviewedBy: by, reviewedAt: row.reviewed_at, marked: true };
}

/** The result part of a call in the model's view (the latest, on the current branch), or null. */
function resultPartOf(store: Store, conversationId: string, callId: string): ResultPart | null {
  const messages = historyView(store, conversationId, store.module(contextModule).latest(conversationId)?.upto_message_id ?? 0).messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'tool' || !Array.isArray(m.content)) continue;
    const part = (m.content as ResultPart[]).find((p) => p?.type === 'tool-result' && p.toolCallId === callId);
    if (part) return part;
  }
  return null;
}

/**
 * Before a model step, in a compacted conversation: the taint follows the model's view. A tainted run whose view
 * holds no untrusted content any more is untainted (run and conversation, and the one-source note with them); an
 * untainted one whose view holds an envelope (a message that arrived enveloped without tainting, as a peer's words do
 * after the taint was cleared) is tainted again. Context blocks that are untrusted taint the step again while the
 * request is built (model-step.ts), so this never clears what the next request carries. Returns whether it changed.
 */
export function syncCompactedTaint(store: Store, runId: string, conversationId: string): boolean {
  // Only compaction or a review clears: without either, the model's view is the whole conversation, whatever tainted
  // it. (Asked first: two indexed reads per step are all a conversation with neither pays.)
  if (!store.module(contextModule).latest(conversationId) && !store.module(reviewedModule).any(conversationId)) return false;
  const run = store.getRun(runId);
  const conv = store.getConversation(conversationId);
  if (!run || !conv) return false;
  // A subagent's conversation keeps its taint: it started tainted from its parent, through a prompt the parent's model
  // wrote, which carries no envelope to look for (its parent's current taint holds it anyway: ceilings.ts).
  if (store.module(subagentsModule).byConversation(conversationId)) return false;
  const tainted = run.tainted === 1 || conv.tainted === 1;
  const holds = viewHoldsUntrusted(store, conversationId);
  if (tainted === holds) return false;
  store.transaction(() => {
    if (holds) {
      store.updateRun(runId, { tainted: 1 });
      store.updateConversation(conversationId, { tainted: 1, taint_only: null });
    } else {
      if (run.tainted === 1) store.updateRun(runId, { tainted: 0 });
      if (conv.tainted === 1 || conv.taint_only !== null) store.updateConversation(conversationId, { tainted: 0, taint_only: null });
    }
  });
  return true;
}

const withheld = (source: string, chars: number) =>
  `[untrusted content from ${source} withheld from this summary (${chars} characters); read it again if it is still needed]`;

/** Untrusted envelopes in text for the summarizer: each replaced by a note of its source and size, not its words. */
export function withholdUntrusted(text: string): string {
  const closed = text.replace(/<untrusted source="([^"]*)" nonce="([0-9a-f]+)">[\s\S]*?<\/untrusted nonce="\2">/g, (whole, source: string) => withheld(source, whole.length));
  // An envelope cut short (never written so, but never passed on either): withheld from its opening to the end.
  return closed.replace(/<untrusted source=[\s\S]*$/, (rest) => withheld('an unclosed envelope', rest.length));
}

