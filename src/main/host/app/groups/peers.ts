/**
 * The contract's peer methods (a handler group): Settings → Peers over the peer book (services/peers), the same rows
 * and keyring entries `deskhand peers` changes; and "Accept requests from peers", the A2A endpoint inside this host.
 * The endpoint itself is host/peers/ (above this group): the host that serves it (deskhand web, the app) attaches a
 * `PeerEndpointControl` to the service; its settings live in the data folder's settings.json (`peerEndpoint`).
 */
import { DeskhandError } from '../../../../shared/errors';
import { DEFAULT_PEER_ENDPOINT, endpointBindingProblem, type PeerEndpointSettings } from '../../../../shared/peers';
import type { MethodResult } from '../../../../shared/contract';
import { SettingsFile } from '../../assembly/settings-file';
import type { HandlerGroup } from '../handler-groups';

/** What the endpoint is doing now. */
export interface PeerEndpointState {
  running: boolean;
  url: string | null;
  error: string | null;
}

/** The endpoint of the host that runs (host/peers/peer-endpoint-host.ts): started, moved or stopped per the setting. */
export interface PeerEndpointControl {
  state(): PeerEndpointState;
  /** Stops what runs and starts what `settings` say (nothing when off); never throws: a failure is in the state. */
  apply(settings: PeerEndpointSettings): Promise<PeerEndpointState>;
  close(): Promise<void>;
}

/** The endpoint's saved settings (the default, off on 127.0.0.1, when none are saved). */
export function savedPeerEndpoint(dataDir: string): PeerEndpointSettings {
  return new SettingsFile(dataDir).read().peerEndpoint ?? DEFAULT_PEER_ENDPOINT;
}

type Methods = 'listPeers' | 'addPeer' | 'updatePeer' | 'removePeer' | 'rotatePeerToken' | 'getPeerEndpoint' | 'setPeerEndpoint';

export const peerGroup =
  (endpoint: () => PeerEndpointControl | null): HandlerGroup<Methods> =>
  ({ runtime, dataDir }) => {
    // Looked up at each call: a host assembled without the peer book (a bench's bare runtime) still starts.
    const book = () => {
      if (!runtime.peers) throw new DeskhandError('unsupported', 'Peers are not available in this host.');
      return runtime.peers.book;
    };
    const view = (settings: PeerEndpointSettings): MethodResult<'getPeerEndpoint'> => {
      const control = endpoint();
      const state = control?.state() ?? { running: false, url: null, error: settings.enabled ? 'This host does not serve the peer endpoint (deskhand web and the app do; or run deskhand peers serve).' : null };
      return { settings, available: !!control, ...state };
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
      async getPeerEndpoint() {
        return view(savedPeerEndpoint(dataDir));
      },
      async setPeerEndpoint(p) {
        const settings: PeerEndpointSettings = { enabled: p.enabled, host: p.host, port: p.port, tlsCert: p.tlsCert ?? null, tlsKey: p.tlsKey ?? null, tlsInFront: p.tlsInFront ?? false };
        const problem = endpointBindingProblem(settings);
        if (problem && settings.enabled) throw new DeskhandError('usage', problem);
        const file = new SettingsFile(dataDir);
        file.write({ ...file.read(), peerEndpoint: settings });
        await endpoint()?.apply(settings);
        return view(settings);
      },
    };
  };
