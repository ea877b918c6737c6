/**
 * The contract over a WebSocket, for `deskhand web`: the same `DeskhandApi` the preload gives Electron. Requests are
 * `{id, method, params}`; the host answers `{t:'reply', id, ok, …}` and pushes `{t:'events', events}` batches.
 */
import type { ContractEvent, DeskhandApi, EventName } from '../../shared/contract';
import { EVENT_NAMES, METHOD_NAMES } from '../../shared/contract/names';
import { CallError } from '../../shared/bridge';

/** 'revoked': the paired-device listener closed the socket because this device was revoked (close code 4401): no retry. */
export type ConnectionState = 'connecting' | 'open' | 'closed' | 'revoked';

export { CallError };

export interface WsClient {
  api: DeskhandApi;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

/** The socket URL for a page served at http://127.0.0.1:PORT/TOKEN/… */
export function socketUrl(location: Location): string {
  const base = location.pathname.replace(/[^/]*$/, '');
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${base}ws`;
}

export function createWsClient(url: string): WsClient {
  let ws: WebSocket | null = null;
  let state: ConnectionState = 'connecting';
  let nextId = 1;
  let retry = 0;
  /** Where to resume after a reconnect (the paired-device listener numbers its events; the loopback host does not). */
  let resume: string | null = null;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const outbox: string[] = [];
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();

  const setState = (s: ConnectionState) => {
    if (s === state) return;
    state = s;
    for (const l of connectionListeners) l(s);
  };

  function connect(): void {
    setState('connecting');
    const socket = new WebSocket(resume ? `${url}?after=${encodeURIComponent(resume)}` : url);
    ws = socket;
    socket.onopen = () => {
      retry = 0;
      setState('open');
      for (const m of outbox.splice(0)) socket.send(m);
    };
    socket.onmessage = (e: MessageEvent<string>) => {
      let msg: { t?: string; id?: number; ok?: boolean; result?: unknown; error?: { code: string; message: string }; events?: ContractEvent[]; resume?: string };
      try {
        msg = JSON.parse(e.data) as typeof msg;
      } catch {
        return;
      }
      if (typeof msg.resume === 'string') resume = msg.resume;
      if (msg.t === 'reply' && typeof msg.id === 'number') {
        const p = pending.get(msg.id);
        if (!p) return;
        pending.delete(msg.id);
        if (msg.ok) p.resolve(msg.result);
        else p.reject(new CallError(msg.error?.code ?? 'internal', msg.error?.message ?? 'The request failed.'));
      } else if (msg.t === 'events' && Array.isArray(msg.events)) {
        for (const ev of msg.events) for (const l of listeners.get(ev.event) ?? []) l(ev.payload);
      }
    };
    socket.onclose = (e: CloseEvent) => {
      ws = null;
      for (const p of pending.values()) p.reject(new CallError('internal', 'The connection to Deskhand was lost.'));
      pending.clear();
      // Revoked (device-host.ts, remote-host.ts): the credential will not work again; retrying would only be refused.
      if (e.code === 4401) return setState('revoked');
      setState('closed');
      // The host may be restarting; try again with backoff (a new launch has a new token: then only a reload helps).
      retry++;
      setTimeout(connect, Math.min(10_000, 500 * 2 ** Math.min(retry, 5)));
    };
  }

  function call(method: string, params: unknown): Promise<unknown> {
    const id = nextId++;
    const message = JSON.stringify({ id, method, params });
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(message);
      else outbox.push(message);
    });
  }

  const methods = Object.fromEntries(METHOD_NAMES.map((name) => [name, (params: unknown) => call(name, params)])) as Omit<DeskhandApi, 'on'>;
  const known = new Set<string>(EVENT_NAMES);
  const api: DeskhandApi = {
    ...methods,
    on(event, listener) {
      if (!known.has(event)) throw new Error(`Unknown event ${String(event)}`);
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => void set.delete(l);
    },
  };
  connect();
  return {
    api,
    onConnection(listener) {
      connectionListeners.add(listener);
      listener(state);
      return () => void connectionListeners.delete(listener);
    },
  };
}
