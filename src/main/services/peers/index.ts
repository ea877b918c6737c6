/** Peers (Agent2Agent): the peer book (peers, their tokens in the keyring, budgets) and calling a peer. */
export { PeerBook, peerCeilingOf, peerCeilingByName, checkAllow, checkPeerName, checkTier, utcDay, type NewPeer, type PeerRecord } from './peer-book';
export { A2aPeerCaller, type PeerAnswer, type PeerCaller } from './peer-client';
export { endpointWords, judgeEndpoint } from '../../../shared/peer-endpoint';
export { PeerClarifications, type PeerClarifier } from './clarifications';
