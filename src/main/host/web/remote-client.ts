/**
 * The contract of a Deskhand runtime on another machine, as a paired device uses it (issue 51, item 3), for a host that
 * answers its own UI's calls itself rather than relaying a page's socket: the desktop app attached to a remote
 * (`deskhand app --remote`, src/main/electron/remote-app.ts). One socket to the remote's `deskhand web --listen`,
 * authenticated by this machine's device credential with the remote's certificate pinned (remote-host.ts `upstream`);
 * it reconnects with backoff and resumes after the last event it received (`?after=`), so no event is lost across a
 * drop. A call sent while the socket is down waits for the reconnect; a call in flight when it drops fails (its answer
 * cannot be known). A resync (the remote no longer keeps the missed events) and a revocation are told to the host.
 */
import WebSocket from 'ws';
import type { ContractError, ContractEvent, Reply } from '../../../shared/contract';
import type { Logger } from '../assembly/logger';
import { upstream } from './remote-host';

export interface RemoteClientOptions {
  /** https://HOST:PORT/ of the remote listener. */
  remoteUrl: string;
  fingerprint: string;
  certPem: string;
  credential: string;
  /** The remote machine as the banner and messages name it. */
  machine: string;
  log: Logger;
}

export type RemoteState = 'connecting' | 'open' | 'revoked' | 'closed';

export interface RemoteClient {
  readonly machine: string;
  call(method: string, params: unknown): Promise<Reply>;
  onEvent(listener: (event: ContractEvent) => void): () => void;
  /** Connection changes; 'revoked': the remote refused this machine's credential (nothing more is tried). */
  onState(listener: (state: RemoteState) => void): () => void;
  /** Events were lost (the remote restarted, or the drop outlasted what it keeps): load everything again. */
  onResync(listener: () => void): () => void;
  close(): void;
}

export function connectRemote(o: RemoteClientOptions): RemoteClient {
  const events = new Set<(event: ContractEvent) => void>();
  const states = new Set<(state: RemoteState) => void>();
  const resyncs = new Set<() => void>();
  const pending = new Map<number, (reply: Reply) => void>();
  /** Calls not sent yet (the socket was down): sent on the next open. */
  const outbox: { id: number; text: string }[] = [];
  /** Calls sent and not answered: a drop fails them. */
  const inFlight = new Set<number>();
  let nextId = 1;
  let resume: string | null = null;
  let socket: WebSocket | null = null;
  let state: RemoteState = 'connecting';
  let retry = 0;
  let timer: NodeJS.Timeout | null = null;

  const setState = (s: RemoteState) => {
    if (s === state) return;
    state = s;
    for (const l of states) l(s);
  };
  const settle = (id: number, reply: Reply) => {
    const answer = pending.get(id);
    pending.delete(id);
    answer?.(reply);
  };
  /** Revoked or closed: nothing waiting will be sent. */
  const failAll = () => {
    outbox.length = 0;
    inFlight.clear();
    for (const id of [...pending.keys()]) settle(id, state === 'revoked' ? revoked() : lost());
  };
  const revoked = (): Reply => ({ ok: false, error: { code: 'unsupported', message: `This machine is no longer paired with ${o.machine}: pair it again there (\`deskhand devices pair\`).` } });
  const lost = (): Reply => ({ ok: false, error: { code: 'internal', message: `The connection to ${o.machine} was lost before it answered; look there whether it was done.` } });

  const connect = () => {
    timer = null;
    if (state === 'revoked' || state === 'closed') return;
    const ws = upstream(o, resume);
    socket = ws;
    ws.on('open', () => {
      retry = 0;
      setState('open');
      for (const m of outbox.splice(0)) {
        inFlight.add(m.id);
        ws.send(m.text);
      }
    });
    ws.on('message', (data: Buffer) => {
      let msg: { t?: string; id?: number; resume?: string; events?: ContractEvent[]; ok?: boolean; result?: unknown; error?: ContractError };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return;
      }
      if (typeof msg.resume === 'string') resume = msg.resume;
      if (msg.t === 'reply' && typeof msg.id === 'number') {
        const answer = pending.get(msg.id);
        pending.delete(msg.id);
        inFlight.delete(msg.id);
        answer?.(msg.ok ? { ok: true, result: msg.result } : { ok: false, error: msg.error ?? { code: 'internal', message: 'The request failed.' } });
      } else if (msg.t === 'events' && Array.isArray(msg.events)) {
        for (const e of msg.events) for (const l of events) l(e);
      } else if (msg.t === 'resync') {
        for (const l of resyncs) l();
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      o.log.warn(`remote: ${o.machine} refused the connection (HTTP ${res.statusCode})`);
      if (res.statusCode === 401) setState('revoked');
      ws.terminate();
    });
    ws.on('error', () => undefined);
    ws.on('close', (code: number) => {
      if (socket === ws) socket = null;
      for (const id of inFlight) settle(id, lost());
      inFlight.clear();
      // 4401: the device was revoked while connected.
      if (code === 4401) setState('revoked');
      if (state === 'revoked' || state === 'closed') return failAll();
      setState('connecting');
      retry++;
      timer = setTimeout(connect, Math.min(5000, 100 * 2 ** Math.min(retry, 6)));
      timer.unref();
    });
  };

  connect();
  return {
    machine: o.machine,
    call(method, params) {
      if (state === 'revoked') return Promise.resolve(revoked());
      if (state === 'closed') return Promise.resolve(lost());
      const id = nextId++;
      const text = JSON.stringify({ id, method, params });
      return new Promise<Reply>((resolve) => {
        pending.set(id, resolve);
        if (socket?.readyState === WebSocket.OPEN) {
          inFlight.add(id);
          socket.send(text);
        } else outbox.push({ id, text });
      });
    },
    onEvent(listener) {
      events.add(listener);
      return () => void events.delete(listener);
    },
    onState(listener) {
      states.add(listener);
      return () => void states.delete(listener);
    },
    onResync(listener) {
      resyncs.add(listener);
      return () => void resyncs.delete(listener);
    },
    close() {
      setState('closed');
      if (timer) clearTimeout(timer);
      socket?.close();
      failAll();
    },
  };
}
