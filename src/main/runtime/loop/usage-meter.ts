/**
 * Where every model call's usage lands (model-call.ts calls the sink it is given at the stream's finish): one row in
 * the usage ledger, attributed to what caused it and to the person's turn it counts toward. A subagent's calls are
 * found to be a subagent's here (its conversation is a child's), and count toward the root conversation's turn and
 * the tool call that started the tree.
 */
import type { UsageCause } from '../../../shared/usage';
import type { Store } from '../../services/store/store';
import { subagentsModule } from '../../services/store/modules/subagents';
import { usageModule } from '../../services/store/modules/usage';

/** Tokens as the provider reported them for one call. */
export interface CallUsage {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** Takes one finished call's usage. Never throws into the call (a failed ledger write loses a row, not the answer). */
export type UsageSink = (usage: CallUsage) => void;

export interface UsageAttribution {
  cause: UsageCause;
  conversationId?: string | null;
  runId?: string | null;
  /** The tool call that made the call (a tool's own side call: the media companion). */
  toolCallId?: string | null;
}

/** A sink that records into the store's ledger (a commit of its own, without an fsync: bookkeeping). */
export function ledgerSink(store: Store, who: UsageAttribution): UsageSink {
  return (u) => {
    try {
      store.withoutFsync(() => recordUsage(store, who, u));
    } catch {
      // the ledger is bookkeeping: a closed store (a test tearing down) must not fail the model call
    }
  };
}

/**
 * Writes one call's row in the caller's transaction (a run's step writes it with the step's own commit, so the
 * ledger costs no commit of its own per step).
 */
export function recordUsage(store: Store, who: UsageAttribution, u: CallUsage): void {
  const root = rootOf(store, who.conversationId ?? null, who.runId ?? null);
  const cause = who.cause === 'turn' && root.subagent ? 'subagent' : who.cause;
  store.module(usageModule).record({
    at: Date.now(),
    cause,
    conversation_id: who.conversationId ?? null,
    run_id: who.runId ?? null,
    root_conversation_id: root.conversationId,
    root_run_id: root.runId,
    tool_call_id: root.toolCallId ?? who.toolCallId ?? null,
    provider: u.provider,
    model: u.model,
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_tokens: u.cacheReadTokens,
    cache_write_tokens: u.cacheWriteTokens,
    reasoning_tokens: u.reasoningTokens,
  });
}

/** The person's conversation and turn a call counts toward: up the subagent links (at most 8 levels, as spawning allows). */
function rootOf(store: Store, conversationId: string | null, runId: string | null): { conversationId: string | null; runId: string | null; toolCallId: string | null; subagent: boolean } {
  let conv = conversationId;
  let run = runId;
  let call: string | null = null;
  let subagent = false;
  if (!conv) return { conversationId: null, runId: run, toolCallId: null, subagent };
  const subagents = store.module(subagentsModule);
  for (let depth = 0; depth < 10; depth++) {
    const row = subagents.byConversation(conv);
    if (!row) break;
    subagent = true;
    conv = row.parent_conversation_id;
    run = row.parent_run_id;
    call = row.parent_call_id;
  }
  return { conversationId: conv, runId: run, toolCallId: call, subagent };
}
