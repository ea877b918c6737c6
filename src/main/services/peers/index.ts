/** Peers (Agent2Agent): the peer book (peers, their tokens in the keyring, budgets). */
export { PeerBook, peerCeilingOf, checkAllow, checkPeerName, checkTier, utcDay, type NewPeer, type PeerRecord } from './peer-book';
