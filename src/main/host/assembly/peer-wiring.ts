/**
 * Wires peers (Agent2Agent) into the runtime: a conversation a peer started is held to that peer's ceiling (its
 * disclosure tier and allow list, read from the peer book at every step) — by the registry, which offers its turns
 * only the tools under the ceiling, and by the approval engine's peer-ceiling inspector, which refuses a call above it
 * whatever was offered. `request_clarification` is offered only in a peer's conversation.
 */
import { lazy } from '../../runtime/registry';
import type { Runtime } from '../../runtime/runtime';
import { PEER_OWN_TOOLS, peerCeilingCheck } from '../../runtime/peer-ceiling';
import { peerCeilingOf } from '../../services/peers/index';
import type { Store } from '../../services/store/store';

export function wirePeers(runtime: Runtime, store: Store): () => void {
  const offLookup = runtime.addPeerLookup((conversationId) => peerCeilingOf(store, conversationId));
  const offFilter = runtime.registry.addFilter('peer-ceiling', (turn) => {
    const ceiling = lazy(() => peerCeilingOf(store, turn.conversationId));
    return (tool) => {
      const c = ceiling();
      if (!c) return PEER_OWN_TOOLS.has(tool.name) ? 'only a peer\'s conversation has this tool' : null;
      return peerCeilingCheck(tool, c);
    };
  });
  // In a peer's conversation the peers family loads by itself (request_clarification); the ceiling still decides.
  const offEnabler = runtime.registry.addEnabler('peer-conversation', (turn) => (peerCeilingOf(store, turn.conversationId) ? ['peers'] : []));
  return () => {
    offLookup();
    offFilter();
    offEnabler();
  };
}
