/**
 * The peers family (Agent2Agent): ask_peer (ask another person's agent) and request_clarification (inside a peer's
 * conversation, ask that peer one question back). Off the default tool set: it loads when searched for or called, and
 * by itself in a peer's conversation (assembly/peer-wiring.ts), where the peer's ceiling decides what is offered.
 */
import type { ToolDefinition } from '../../runtime/tool';
import type { PeerCaller, PeerClarifier } from '../../services/peers/index';
import { createAskPeer } from './ask-peer';
import { createRequestClarification } from './request-clarification';

export function createPeerFamily(deps: { caller: PeerCaller; clarifier: PeerClarifier }): { tools: ToolDefinition[] } {
  return { tools: [createAskPeer(deps.caller), createRequestClarification(deps.clarifier)] as ToolDefinition[] };
}
