/**
 * Taint by source, as far as compaction goes: the taint rule protects against injected content the model still reads.
 * Every piece of untrusted content reaches a conversation's messages inside an untrusted envelope (tool output, a
 * project hook's words, a project slash command, a wake-up's task output: untrusted.ts); context blocks (recalled
 * memory, untrusted project instructions, a changed MCP tool list) are re-read for every request and taint that
 * step again. So once a compaction has replaced the older messages and the model's view (the summary, which is
 * written without the untrusted text, and the kept turns) holds no envelope, no tainting source is left in the
 * context: the run and its conversation are untainted, and egress is decided as in a run that never read any.
 */
import { contextModule } from '../../services/store/modules/context';
import { subagentsModule } from '../../services/store/modules/subagents';
import type { Store } from '../../services/store/store';
import { historyView } from '../context/history-cache';

/** The opening of an untrusted envelope, as it stands in a stored message (JSON keeps `<` and the name as they are). */
const ENVELOPE = /<untrusted source=/;

/** Whether text (a stored message's JSON, a summary) carries an untrusted envelope. */
export function carriesUntrusted(text: string): boolean {
  return ENVELOPE.test(text);
}

/**
 * Whether the model's view of a conversation still holds untrusted content: the latest compaction's summary and
 * every message after it (the current branch only: an edit or a regenerate moved the replaced turns out).
 */
export function viewHoldsUntrusted(store: Store, conversationId: string): boolean {
  const record = store.module(contextModule).latest(conversationId);
  if (record && carriesUntrusted(record.summary)) return true;
  for (const m of historyView(store, conversationId, record?.upto_message_id ?? 0).messages) {
    if (carriesUntrusted(typeof m.content === 'string' ? m.content : JSON.stringify(m.content))) return true;
  }
  return false;
}

/**
 * Before a model step, in a compacted conversation: the taint follows the model's view. A tainted run whose view
 * holds no untrusted content any more is untainted (run and conversation, and the one-source note with them); an
 * untainted one whose view holds an envelope (a message that arrived enveloped without tainting, as a peer's words do
 * after the taint was cleared) is tainted again. Context blocks that are untrusted taint the step again while the
 * request is built (model-step.ts), so this never clears what the next request carries. Returns whether it changed.
 */
export function syncCompactedTaint(store: Store, runId: string, conversationId: string): boolean {
  // Only compaction clears: without one, the model's view is the whole conversation, whatever tainted it. (Asked
  // first: one indexed read per step is all an uncompacted conversation pays.)
  if (!store.module(contextModule).latest(conversationId)) return false;
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

