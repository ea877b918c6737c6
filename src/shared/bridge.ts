/**
 * What the Electron preload exposes as `window.deskhand`. contextBridge rebuilds a thrown error from its message only
 * (custom properties such as `code` are dropped), so each method resolves with the contract's `Reply` — the error code
 * travels as data — and the renderer turns replies back into `DeskhandApi` calls that throw coded errors.
 */
import type { DeskhandApi, MethodName, MethodParams, MethodResult, Reply } from './contract';

export type DeskhandBridge = { [M in MethodName]: (params: MethodParams<M>) => Promise<Reply<MethodResult<M>>> } & Pick<DeskhandApi, 'on'>;
