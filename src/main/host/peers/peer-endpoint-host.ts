/**
 * The A2A endpoint inside the host that runs (`deskhand web`, the desktop app): "Accept requests from peers" in
 * Settings → Peers (settings.json `peerEndpoint`, off by default, 127.0.0.1 unless the person names an address).
 * The same endpoint `deskhand peers serve` runs (peer-endpoint.ts), on the host's own runtime and service, started
 * when the host starts with it on, moved or stopped when the setting changes (setPeerEndpoint), closed on exit.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { endpointBindingProblem, type PeerEndpointSettings } from '../../../shared/peers';
import { errorMessage } from '../../../shared/errors';
import { costOf, runTokens } from '../../../shared/prices';
import type { AppRuntime } from '../assembly/open-runtime';
import type { Logger } from '../assembly/logger';
import { packageVersion } from '../assembly/package-version';
import type { AppService } from '../app/app-service';
import { createDispatch } from '../app/dispatch';
import { savedPeerEndpoint, type PeerEndpointControl, type PeerEndpointState } from '../app/groups/peers';
import { startPeerEndpoint, type PeerEndpoint, type PeerEndpointOptions } from './peer-endpoint';

/** Where peers' conversations start unless told otherwise: ~/Deskhand peers/NAME. */
export const DEFAULT_PEERS_FOLDER = join(homedir(), 'Deskhand peers');

/** The endpoint's options on a host's runtime and service (peers serve and the hosts build them here alike). */
export function peerEndpointOptions(
  runtime: AppRuntime,
  service: AppService,
  o: { folder: string; host: string; port: number; log: Logger; tls?: PeerEndpointOptions['tls'] },
): PeerEndpointOptions {
  const book = runtime.peers.book;
  return {
    dispatch: createDispatch(service, o.log),
    onEvent: (listener) => service.onEvent(listener),
    book,
    clarifications: runtime.peers.clarifications,
    redact: (text) => runtime.redactor.redact(text),
    // The peers' tokens are secrets of every sink: never in a result, a transcript or an answer. Read again at each
    // incoming task, so a peer added or a token rotated while the endpoint runs (here or by `deskhand peers`) is known.
    learnTokens: async () => {
      for (const token of await book.tokenValues()) runtime.redactor.addSecret('PEER_TOKEN', token);
    },
    runCost: (runId) => {
      const run = runtime.records.getRun(runId);
      return run ? costOf(run.model, runTokens(run)) : null;
    },
    taint: (id) => runtime.records.updateConversation(id, { tainted: 1, taint_only: null }),
    folder: o.folder,
    host: o.host,
    port: o.port,
    ...(o.tls ? { tls: o.tls } : {}),
    version: packageVersion(),
    log: o.log,
  };
}

export class PeerEndpointHost implements PeerEndpointControl {
  private endpoint: PeerEndpoint | null = null;
  private error: string | null = null;
  /** One change at a time: a second apply waits for the first to have stopped or started. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    /** `folder`: where peers' conversations start (default DESKHAND_PEERS_FOLDER, else ~/Deskhand peers). */
    private readonly o: { runtime: AppRuntime; service: AppService; dataDir: string; log: Logger; folder?: string },
  ) {}

  /** Attaches to the service and starts the endpoint if the saved setting is on (a failure is logged and in the state). */
  async start(): Promise<PeerEndpointState> {
    this.o.service.attachPeerEndpoint(this);
    return this.apply(savedPeerEndpoint(this.o.dataDir));
  }

  state(): PeerEndpointState {
    return { running: !!this.endpoint, url: this.endpoint?.url ?? null, error: this.error };
  }

  apply(settings: PeerEndpointSettings): Promise<PeerEndpointState> {
    const next = this.queue.then(() => this.applyNow(settings));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async applyNow(s: PeerEndpointSettings): Promise<PeerEndpointState> {
    await this.stop();
    this.error = null;
    if (!s.enabled) return this.state();
    const problem = endpointBindingProblem(s);
    if (problem) {
      this.error = problem;
      this.o.log.warn('peers: the endpoint did not start', { error: problem });
      return this.state();
    }
    try {
      const options = peerEndpointOptions(this.o.runtime, this.o.service, {
        folder: this.o.folder ?? process.env.DESKHAND_PEERS_FOLDER ?? DEFAULT_PEERS_FOLDER,
        host: s.host,
        port: s.port,
        log: this.o.log,
        ...(s.tlsCert && s.tlsKey ? { tls: { certFile: s.tlsCert, keyFile: s.tlsKey } } : {}),
      });
      // The tokens are secrets of every sink from the start (and again at each incoming task).
      await options.learnTokens?.();
      this.endpoint = await startPeerEndpoint(options);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      this.error =
        code === 'EADDRINUSE'
          ? `Could not listen on ${s.host}:${s.port}: the port is in use (another program, or deskhand peers serve). Choose another port.`
          : code === 'EADDRNOTAVAIL'
            ? `Could not listen on ${s.host}: this machine has no such address.`
            : `Could not start the endpoint on ${s.host}:${s.port}: ${errorMessage(err)}`;
      this.o.log.warn('peers: the endpoint did not start', { error: this.error });
    }
    return this.state();
  }

  private async stop(): Promise<void> {
    const e = this.endpoint;
    this.endpoint = null;
    await e?.close();
  }

  close(): Promise<void> {
    const done = this.queue.then(() => this.stop());
    this.queue = done.catch(() => undefined);
    return done;
  }
}
