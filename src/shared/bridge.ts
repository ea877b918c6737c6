/**
 * What the Electron preload exposes as `window.deskhand`. contextBridge rebuilds a thrown error from its message only
 * (custom properties such as `code` are dropped), so each method resolves with the contract's `Reply` — the error code
 * travels as data — and `apiFromBridge` turns replies back into `DeskhandApi` calls that throw coded errors.
 */
import type { DeskhandApi, MethodName, MethodParams, MethodResult, Reply } from './contract';
import { METHOD_NAMES } from './contract/names';

export type DeskhandBridge = { [M in MethodName]: (params: MethodParams<M>) => Promise<Reply<MethodResult<M>>> } & Pick<DeskhandApi, 'on'>;

/** A failed contract call as the renderer sees it, on either transport: the contract's code and a readable message. */
export class CallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CallError';
  }
}

/** The bridge's replies as calls that resolve with the result or throw a `CallError` carrying the contract's code. */
export function apiFromBridge(bridge: DeskhandBridge): DeskhandApi {
  const call = (name: MethodName) => async (params: unknown) => {
    const reply = await (bridge[name] as (p: unknown) => Promise<Reply>)(params);
    if (reply.ok) return reply.result;
    throw new CallError(reply.error.code, reply.error.message);
  };
  const methods = Object.fromEntries(METHOD_NAMES.map((name) => [name, call(name)])) as Omit<DeskhandApi, 'on'>;
  return { ...methods, on: (event, listener) => bridge.on(event, listener) };
}
