/**
 * The contract's peer methods (a handler group): Settings → Peers over the peer book (services/peers), the same rows
 * and keyring entries `deskhand peers` changes.
 */
import { DeskhandError } from '../../../shared/errors';
import type { HandlerGroup } from './handler-groups';

export const peerGroup: HandlerGroup<'listPeers' | 'addPeer' | 'updatePeer' | 'removePeer' | 'rotatePeerToken'> = ({ runtime }) => {
  // Looked up at each call: a host assembled without the peer book (a bench's bare runtime) still starts.
  const book = () => {
    if (!runtime.peers) throw new DeskhandError('unsupported', 'Peers are not available in this host.');
    return runtime.peers.book;
  };
  return {
    async listPeers() {
      return { peers: await Promise.all(book().list().map((p) => book().view(p))) };
    },
    async addPeer(p) {
      const { peer, inboundToken } = await book().add({ name: p.name, endpoint: p.endpoint, tier: p.tier, allow: p.allow, ...(p.budget ? { budget: p.budget } : {}) });
      runtime.redactor.addSecret('PEER_TOKEN', inboundToken);
      return { peer: await book().view(peer), inboundToken };
    },
    async updatePeer(p) {
      let peer = book().require(p.name);
      if (p.tier) peer = book().setTier(p.name, p.tier);
      if (p.allow) peer = book().changeAllow(p.name, p.allow, peer.allow.filter((n) => !p.allow!.includes(n)));
      if (p.budget) peer = book().setBudget(p.name, p.budget);
      if (p.enabled !== undefined) peer = book().setEnabled(p.name, p.enabled);
      if (p.endpoint !== undefined) peer = book().setEndpoint(p.name, p.endpoint);
      return book().view(peer);
    },
    async removePeer(p) {
      return { removed: await book().remove(p.name) };
    },
    async rotatePeerToken(p) {
      const inboundToken = await book().rotateInbound(p.name);
      runtime.redactor.addSecret('PEER_TOKEN', inboundToken);
      return { peer: await book().view(book().require(p.name)), inboundToken };
    },
  };
};
