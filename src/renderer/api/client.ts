/**
 * Picks the transport at startup: Electron's preload bridge when it is there, else the web host's WebSocket. The rest
 * of the app only sees `DeskhandApi`.
 */
import { apiFromBridge, type DeskhandBridge } from '../../shared/bridge';
import type { DeskhandApi } from '../../shared/contract';
import { createWsClient, socketUrl, type ConnectionState } from './ws-client';
import { errorInWords } from '../../shared/error-words';

declare global {
  interface Window {
    deskhand?: DeskhandBridge;
  }
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

/** An error's message for the person: contract refusals in words (see error-words.ts). */
export function errorText(err: unknown): string {
  return errorInWords(err instanceof Error ? err.message : String(err));
}
