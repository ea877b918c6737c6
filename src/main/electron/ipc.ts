/**
 * The contract over Electron IPC. One invoke channel carries `{method, params}`; before anything else the sender is
 * checked (the main window's own top frame, on the app origin), then the shared dispatch parses method, size and
 * params. Events go out in batches on one channel.
 */
import type { BrowserWindow, IpcMainInvokeEvent } from 'electron';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, MAX_PAYLOAD_BYTES, parseRequest, type ContractEvent, type Reply } from '../../shared/contract';
import { METHOD_NAMES } from '../../shared/contract/names';
import type { RemoteClient } from '../host/web/remote-client';
import type { AppService, Logger } from '../host/app/app-service';
import { createDispatch, toContractError } from '../host/app/dispatch';
import { EventBatcher } from '../host/app/event-batcher';
import { isAppUrl } from './app-protocol';

const KNOWN_METHODS = new Set<string>(METHOD_NAMES);

export function isTrustedSender(event: IpcMainInvokeEvent, win: BrowserWindow): boolean {
  if (win.isDestroyed() || event.sender !== win.webContents) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== win.webContents.mainFrame || frame.parent !== null) return false;
  return isAppUrl(frame.url);
}

/** Wires the window to the service; returns a function that unwires it (window closed). */
export function connectWindow(win: BrowserWindow, service: AppService, log: Logger): () => void {
  const dispatch = createDispatch(service, log);
  // The shared dispatch checks the method and the size (of the whole message).
  return wireWindow(win, log, (m, message) => dispatch(m.method, m.params, { source: 'ipc', bytes: byteSize(message) }), (listener) => service.onEvent(listener));
}

/** Sends one event to the window now (tray and notification clicks). */
export function sendEvent(win: BrowserWindow, event: ContractEvent): void {
  if (!win.isDestroyed()) win.webContents.send(IPC_EVENT_CHANNEL, [event]);
}

/**
 * Wires the window to a remote runtime (remote-app.ts): the same trusted-sender check, then the call goes to the
 * remote machine, whose own dispatch checks method and params; its events reach the window in batches.
 */
export function connectRemoteWindow(win: BrowserWindow, client: RemoteClient, log: Logger, local: RemoteWindowLocal): () => void {
  return wireWindow(
    win,
    log,
    (m) => {
      if (typeof m.method !== 'string' || !KNOWN_METHODS.has(m.method)) return Promise.resolve({ ok: false, error: { code: 'unknown_method', message: `Unknown method ${String(m.method).slice(0, 80)}.` } });
      // Where this computer drives: answered here, never by the machine being driven.
      if (m.method === 'driveMachine' || m.method === 'stopDriving') return answerLocally(m.method, m.params, local, log);
      if (byteSize(m.params ?? {}) > MAX_PAYLOAD_BYTES) return Promise.resolve({ ok: false, error: { code: 'too_large', message: 'The request is too large.' } });
      return client.call(m.method, m.params ?? {});
    },
    (listener) => client.onEvent(listener),
  );
}

/** What the window of an app driving another machine asks this computer, not that machine. */
export interface RemoteWindowLocal {
  /** Pair with (or find the pairing of) another machine and restart driving it. */
  driveMachine(target: string): Promise<{ machine: string }>;
  /** Restart on this computer's own runtime. */
  stopDriving(): void;
}

async function answerLocally(method: 'driveMachine' | 'stopDriving', params: unknown, local: RemoteWindowLocal, log: Logger): Promise<Reply> {
  const request = parseRequest(method, params, byteSize(params ?? {}));
  if (!request.ok) return request;
  try {
    if (method === 'stopDriving') {
      local.stopDriving();
      return { ok: true, result: {} };
    }
    return { ok: true, result: await local.driveMachine((request.params as { target: string }).target) };
  } catch (err) {
    return { ok: false, error: toContractError(method, err, log) };
  }
}

/**
 * The window's one invoke channel and its event channel: a call from anything but the window's own top frame on the
 * app origin is refused, any other goes to `call` as `{method, params}` (with the message as it came); the events
 * `subscribe` gives reach the window in batches. Returns the unwiring.
 */
function wireWindow(
  win: BrowserWindow,
  log: Logger,
  call: (m: { method?: unknown; params?: unknown }, message: unknown) => Promise<Reply>,
  subscribe: (listener: (e: ContractEvent) => void) => () => void,
): () => void {
  const wc = win.webContents;
  wc.ipc.handle(IPC_CALL_CHANNEL, async (event: IpcMainInvokeEvent, message: unknown): Promise<Reply> => {
    if (!isTrustedSender(event, win)) {
      log.warn('ipc: refused a call from an untrusted frame', { url: event.senderFrame?.url ?? null });
      return { ok: false, error: { code: 'unknown_method', message: 'Refused: not the Deskhand window.' } };
    }
    const m = message && typeof message === 'object' ? (message as { method?: unknown; params?: unknown }) : {};
    return call(m, message);
  });
  const batcher = new EventBatcher((events: ContractEvent[]) => {
    if (!wc.isDestroyed()) wc.send(IPC_EVENT_CHANNEL, events);
  });
  const unsubscribe = subscribe((e) => batcher.push(e));
  return () => {
    unsubscribe();
    batcher.close();
    if (!wc.isDestroyed()) wc.ipc.removeHandler(IPC_CALL_CHANNEL);
  };
}

/** A value's size as JSON, in bytes; one that cannot be written as JSON is too large for anything. */
function byteSize(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
