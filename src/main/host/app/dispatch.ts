/**
 * The request path both transports share: parse against the contract (method, size, params), call the one handler,
 * turn failures into replies a person can read. Every rejected request is logged and never reaches a handler.
 */
import { parseRequest, type ContractError, type ContractErrorCode, type ContractHandlers, type MethodName, type Reply } from '../../../shared/contract';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { Logger } from '../assembly/logger';

export interface RequestMeta {
  /** Which transport and peer, for the log ("ws 127.0.0.1", "ipc main-window"). */
  source: string;
  /** The request's size as received. */
  bytes: number;
}

export type Dispatch = (method: unknown, params: unknown, meta: RequestMeta) => Promise<Reply>;

const CODES: Partial<Record<string, ContractErrorCode>> = {
  not_found: 'not_found',
  conflict: 'conflict',
  usage: 'usage',
  invalid_args: 'usage',
  denied: 'conflict',
  unsupported: 'unsupported',
};

export function createDispatch(handlers: ContractHandlers, log: Logger): Dispatch {
  return async (method, params, meta) => {
    const request = parseRequest(method, params, meta.bytes);
    if (!request.ok) {
      log.warn(`rejected request from ${meta.source}: ${request.error.message}`, { code: request.error.code });
      return { ok: false, error: request.error };
    }
    try {
      const handler = handlers[request.method] as (p: unknown) => Promise<unknown>;
      const result = await handler.call(handlers, request.params);
      return { ok: true, result };
    } catch (err) {
      return { ok: false, error: toContractError(request.method, err, log) };
    }
  };
}

/** A handler's throw as the reply's error: a DeskhandError keeps its code, anything else is `internal` (and logged). */
export function toContractError(method: MethodName, err: unknown, log: Logger): ContractError {
  if (DeskhandError.isInstance(err)) {
    const code = CODES[err.code];
    if (code) return { code, message: err.message };
  }
  log.warn(`${method} failed`, { error: errorMessage(err) });
  return { code: 'internal', message: `${method} failed: ${errorMessage(err)}` };
}
