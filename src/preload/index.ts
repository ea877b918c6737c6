/**
 * The bridge (a sandboxed preload, bundled as one CJS file). It exposes `window.deskhand` with one named method per
 * contract method and `on(event, listener)` for the contract's events — no generic invoke, no Node, no raw channel.
 * Main validates the sender frame and parses every payload; this side only forwards. Each method resolves with the
 * reply itself, errors included: contextBridge would strip an error's code (see src/shared/bridge.ts).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENT_NAMES, IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, METHOD_NAMES } from '../shared/contract/names';
import type { ContractEvent, EventName, Reply } from '../shared/contract';
import type { DeskhandBridge } from '../shared/bridge';

type Listener = (payload: unknown) => void;
const listeners = new Map<EventName, Set<Listener>>();
const eventNames = new Set<string>(EVENT_NAMES);

ipcRenderer.on(IPC_EVENT_CHANNEL, (_e: IpcRendererEvent, batch: unknown) => {
  if (!Array.isArray(batch)) return;
  for (const item of batch as ContractEvent[]) {
    if (!item || !eventNames.has(item.event)) continue;
    for (const l of listeners.get(item.event) ?? []) l(item.payload);
  }
});

function method(name: (typeof METHOD_NAMES)[number]) {
  return async (params: unknown): Promise<Reply> => {
    try {
      return (await ipcRenderer.invoke(IPC_CALL_CHANNEL, { method: name, params })) as Reply;
    } catch (err) {
      // The call never reached the contract (e.g. params IPC cannot carry): still a reply, with a code.
      return { ok: false, error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } };
    }
  };
}

const api = Object.fromEntries(METHOD_NAMES.map((name) => [name, method(name)])) as Omit<DeskhandBridge, 'on'>;

const bridge: DeskhandBridge = {
  ...api,
  on(event, listener) {
    if (!eventNames.has(event)) throw new Error(`Unknown event ${String(event)}`);
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    const l = listener as Listener;
    set.add(l);
    return () => void set.delete(l);
  },
};

contextBridge.exposeInMainWorld('deskhand', bridge);
