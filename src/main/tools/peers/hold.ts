/**
 * The peer ceiling as a hold (runtime/decision/hold.ts): a conversation a peer started (Agent2Agent) is held to that peer's
 * ceiling — its disclosure tier and allow list, read from the peer book at every step, never from the peer's request.
 * What the model is offered: only the tools under the ceiling (request_clarification only in a peer's conversation).
 * What is refused: a call above the ceiling (`peerCeilingCheck`, runtime/decision/peer-ceiling.ts), even if it was offered
 * somehow, and a call whose declared effects reach the network, whatever the tool's name. Nobody present watches a
 * peer's conversation (the peer drives it), and its context is judged by the same ceiling.
 */
import type { Hold, HoldDeclaration } from '../../runtime/decision/hold';
import type { InspectorReport } from '../../runtime/decision/inspector';
import { PEER_CEILING_HOLD, isPeerOwn, peerCeilingCheck, type PeerCeiling } from '../../runtime/decision/peer-ceiling';
import { lazy } from '../../runtime/registry';
import { peerCeilingOf } from '../../services/peers/index';

export { PEER_CEILING_HOLD };

/** `ceilingOf`: the peer book's ceiling of a conversation a peer started, or null for the person's own. */
export function peerCeilingHold(ceilingOf: (conversationId: string) => PeerCeiling | null): Hold<PeerCeiling> {
  return {
    name: PEER_CEILING_HOLD,
    stateOf: ({ conversationId }) => ceilingOf(conversationId),
    offer: (turn) => {
      const ceiling = lazy(() => ceilingOf(turn.conversationId));
      return (tool) => {
        const c = ceiling();
        if (!c) return isPeerOwn(tool) ? 'only a peer\'s conversation has this tool' : null;
        return peerCeilingCheck(tool, c);
      };
    },
    inspect({ tool, effects }, _facts, ceiling): InspectorReport {
      if (!ceiling) return { inspector: PEER_CEILING_HOLD, verdict: 'pass', reasons: [] };
      const above = peerCeilingCheck(tool, ceiling);
      if (above) return { inspector: PEER_CEILING_HOLD, verdict: 'deny', reasons: [`In peer ${ceiling.peer}'s conversation: ${above}`] };
      const named = [tool.name, ...(tool.aliases ?? [])].some((n) => ceiling.allow.includes(n));
      const reaches = effects.egress || effects.network || (effects.urls?.length ?? 0) > 0 || (effects.hosts?.length ?? 0) > 0;
      if (reaches && !named && !isPeerOwn(tool)) {
        return {
          inspector: PEER_CEILING_HOLD,
          verdict: 'deny',
          reasons: [`In peer ${ceiling.peer}'s conversation: this call of ${tool.name} would reach the network, which a disclosure tier never grants (deskhand peers allow ${ceiling.peer} ${tool.name}).`],
        };
      }
      return { inspector: PEER_CEILING_HOLD, verdict: 'pass', reasons: [`within peer ${ceiling.peer}'s ceiling (${ceiling.tier}${ceiling.allow.length ? `, allow ${ceiling.allow.join(', ')}` : ''})`] };
    },
    // The peer drives its conversation: a time-limited app grant given to a person watching does not stand in here.
    shape: (input) => ({ ...input, personPresent: false }),
    contextCeiling: (ceiling) => ceiling,
  };
}

/** The peers family's declared holds (registered by the assembly: host/assembly/holds.ts): after Tower's. */
export const holds: readonly HoldDeclaration[] = [{ order: 30, make: ({ records }) => peerCeilingHold((id) => peerCeilingOf(records, id)) }];
