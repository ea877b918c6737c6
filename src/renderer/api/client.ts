/**
 * Picks the transport at startup: Electron's preload bridge when it is there, else the web host's WebSocket. The rest
 * of the app only sees `DeskhandApi`.
 */
import type { DeskhandBridge } from '../../shared/bridge';
import type { DeskhandApi } from '../../shared/contract';
import { METHOD_NAMES } from '../../shared/contract-names';
import { CallError, createWsClient, socketUrl, type ConnectionState } from './ws-client';

declare global {
  interface Window {
    deskhand?: DeskhandBridge;
  }
}

/** The bridge's replies as calls that resolve with the result or throw a `CallError` carrying the contract's code. */
export function apiFromBridge(bridge: DeskhandBridge): DeskhandApi {
  const call = (name: (typeof METHOD_NAMES)[number]) => async (params: unknown) => {
    const reply = await (bridge[name] as (p: unknown) => ReturnType<DeskhandBridge[typeof name]>)(params);
    if (reply.ok) return reply.result;
    throw new CallError(reply.error.code, reply.error.message);
  };
  const methods = Object.fromEntries(METHOD_NAMES.map((name) => [name, call(name)])) as Omit<DeskhandApi, 'on'>;
  return { ...methods, on: (event, listener) => bridge.on(event, listener) };
}

let current: DeskhandApi | null = null;
let connection: ((listener: (s: ConnectionState) => void) => () => void) | null = null;

export function initApi(): DeskhandApi {
  if (current) return current;
  if (window.deskhand) {
    current = apiFromBridge(window.deskhand);
    connection = (l) => {
      l('open');
      return () => undefined;
    };
  } else {
    const client = createWsClient(socketUrl(window.location));
    current = client.api;
    connection = client.onConnection;
  }
  return current;
}

export function api(): DeskhandApi {
  return current ?? initApi();
}

export function onConnection(listener: (s: ConnectionState) => void): () => void {
  initApi();
  return connection!(listener);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
