/**
 * Errors that travel: marked with a registry symbol so `isInstance` survives module duplication and
 * serialization boundaries (the AI SDK's pattern). Messages are written for whoever reads them.
 */
const MARKER = Symbol.for('deskhand.error');

export type ErrorCode =
  | 'usage'
  | 'not_found'
  | 'invalid_args'
  | 'unknown_tool'
  | 'denied'
  | 'stale_file'
  | 'provider_auth'
  | 'provider_rate_limit'
  | 'provider_unavailable'
  | 'provider_stream'
  | 'provider_timeout'
  | 'provider_context_length'
  | 'aborted'
  | 'conflict'
  /** The host cannot do this at all (a native dialog in web mode). */
  | 'unsupported'
  | 'internal';

export class DeskhandError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DeskhandError';
  }
  static isInstance(value: unknown): value is DeskhandError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Tool errors are read by the model: say what went wrong and what to do next. */
export class ToolError extends DeskhandError {
  constructor(message: string, code: ErrorCode = 'invalid_args', details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'ToolError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
