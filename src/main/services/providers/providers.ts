/**
 * Model providers on the AI SDK. The runtime owns the loop; this module only builds language models and turns
 * provider failures into errors a person can act on.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { APICallError, LanguageModel, RetryError } from 'ai';
import { DeskhandError, errorMessage } from '../../../shared/errors';

export { PROVIDERS, DEFAULT_MODELS, KEY_ENV, isProviderName, type ProviderName, type ProviderConfig } from './config';
import { KEY_ENV, type ProviderConfig } from './config';
import { modelTransport } from './model-transport';
import { coalescingFetch } from './sse-coalesce';

/**
 * Every provider's requests: carried by Node's HTTP clients (model-transport.ts), runs of text-only stream events
 * joined per network read (sse-coalesce.ts).
 */
const fetch = coalescingFetch(modelTransport());

/** A language model as the runtime calls it (the SDK's current specification). */
type ModelV3 = Extract<LanguageModel, { specificationVersion: 'v3' }>;

/**
 * The SDK's provider id of the model a configuration makes (`model.provider`, which the runtime reads before the first
 * call: cache breakpoints, reasoning replay, the wire's tool-call ids). test/runtime/lazy-provider.test.ts holds it to
 * what the SDK's own models say.
 */
export function providerIdOf(cfg: Pick<ProviderConfig, 'provider' | 'openaiApi'>): string {
  switch (cfg.provider) {
    case 'anthropic':
      return 'anthropic.messages';
    case 'openai':
      return cfg.openaiApi === 'responses' ? 'openai.responses' : 'openai.chat';
    case 'openai-compatible':
      return 'openai-compatible.chat';
  }
}

/** The SDK's model for a configuration, its provider package loaded on first use (Anthropic's and OpenAI's are 0.2–0.25 MB of the build each). */
export async function loadModel(cfg: ProviderConfig): Promise<ModelV3> {
  const baseURL = cfg.baseURL ?? undefined;
  switch (cfg.provider) {
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: cfg.apiKey ?? '', baseURL, fetch })(cfg.model);
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      const openai = createOpenAI({ apiKey: cfg.apiKey ?? '', baseURL, fetch });
      // Chat Completions by default: the wire protocol every OpenAI-compatible server also speaks. The Responses API
      // on request (`openaiApi`): reasoning items, kept encrypted with the message (model-call.ts, reasoning.ts).
      return cfg.openaiApi === 'responses' ? openai.responses(cfg.model) : openai.chat(cfg.model);
    }
    case 'openai-compatible':
      if (!baseURL) throw usageNoBaseURL();
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey: cfg.apiKey ?? undefined, includeUsage: true, fetch })(cfg.model);
  }
}

const usageNoBaseURL = () => new DeskhandError('usage', 'The openai-compatible provider needs a base URL (--base-url http://127.0.0.1:11434/v1).');

/**
 * The model for a configuration, made at once; the provider's package (and the SDK's model) is loaded by its first
 * call, so a run does not compile the providers it does not use before its first request. Same provider id, model id
 * and calls as the SDK's model (`doStream`, `doGenerate`, `supportedUrls` are the SDK's, once loaded).
 */
export function createModel(cfg: ProviderConfig): LanguageModel {
  if (cfg.provider === 'openai-compatible' && !cfg.baseURL) throw usageNoBaseURL();
  let loaded: Promise<ModelV3> | undefined;
  const model = () => (loaded ??= loadModel(cfg));
  const lazy: ModelV3 = {
    specificationVersion: 'v3',
    provider: providerIdOf(cfg),
    modelId: cfg.model,
    get supportedUrls() {
      return model().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await model()).doGenerate(options),
    doStream: async (options) => (await model()).doStream(options),
  };
  return lazy;
}

export interface ProviderFailure {
  error: DeskhandError;
  retryable: boolean;
  retryAfterMs: number | null;
  /**
   * What went wrong, for what the runtime does next: `overloaded` (429, 503, 529: a fallback model may help),
   * `context_length` (the request is longer than the model takes: compacting may help), or `other`.
   */
  kind?: 'overloaded' | 'context_length' | 'other';
}

/**
 * The refusal each provider sends for a request longer than the model's context: Anthropic's 400 "prompt is too
 * long: N tokens > M maximum", OpenAI's 400 with code `context_length_exceeded` ("This model's maximum context length
 * is …"), and what OpenAI-compatible servers say (vLLM repeats OpenAI's words; llama.cpp "exceeds the available
 * context size").
 */
const CONTEXT_LENGTH = /prompt is too long|context_length_exceeded|maximum context length|exceeds the available context size|context window|too many tokens/i;

export function isContextLengthRefusal(status: number, body: string | undefined, message: string): boolean {
  return (status === 400 || status === 413) && CONTEXT_LENGTH.test(`${body ?? ''} ${message}`);
}

/**
 * The SDK's own instance check (what `APICallError.isInstance` does: a marker symbol on the error, so it holds across
 * copies of the SDK), without importing `ai` for it: the providers do not need `ai`, and importing it put the SDK's
 * whole core (`ai` with the gateway provider, ≈ 0.5 MB of the build) before every run's first request.
 */
function isSdkError<T>(err: unknown, name: string): err is T {
  return err != null && typeof err === 'object' && (err as Record<symbol, unknown>)[Symbol.for(`vercel.ai.error.${name}`)] === true;
}

/** Turns whatever the SDK threw into a message for a person and a retry verdict. */
export function describeProviderError(err: unknown, cfg: Pick<ProviderConfig, 'provider'>): ProviderFailure {
  const inner = isSdkError<RetryError>(err, 'AI_RetryError') ? err.lastError : err;
  const where = KEY_ENV[cfg.provider] ? `${KEY_ENV[cfg.provider]} (or Settings → Providers)` : 'Settings → Providers';
  if (isSdkError<APICallError>(inner, 'AI_APICallError')) {
    const status = inner.statusCode ?? 0;
    const retryAfterMs = parseRetryAfter(inner.responseHeaders);
    const detail = providerMessage(inner.responseBody) ?? inner.message;
    if (status >= 200 && status < 300) {
      // The response started fine and broke while streaming.
      return {
        error: new DeskhandError('provider_stream', `The connection to the model API broke mid-stream: ${errorMessage(inner.cause ?? inner)}.`),
        retryable: true,
        retryAfterMs: null,
      };
    }
    if (status === 401 || status === 403) {
      return {
        error: new DeskhandError('provider_auth', `The model API refused the key (${status}): ${detail}. Check ${where}.`, { status }),
        retryable: false,
        retryAfterMs: null,
      };
    }
    if (status === 429) {
      const wait = retryAfterMs !== null ? ` It asked to wait ${Math.ceil(retryAfterMs / 1000)} s.` : '';
      return {
        error: new DeskhandError('provider_rate_limit', `The model API is rate limiting requests (429): ${detail}.${wait} Try again later or lower the request rate.`, { status }),
        retryable: true,
        retryAfterMs,
        kind: 'overloaded',
      };
    }
    if (isContextLengthRefusal(status, inner.responseBody, inner.message)) {
      return {
        error: new DeskhandError('provider_context_length', `The request is longer than the model's context (${status}): ${detail}. Lower the context window in Settings → Providers so Deskhand compacts earlier, or start a new conversation.`, { status }),
        retryable: false,
        retryAfterMs: null,
        kind: 'context_length',
      };
    }
    if (status === 529 || status === 503) {
      return {
        error: new DeskhandError('provider_unavailable', `The model API is overloaded (${status}): ${detail}.`, { status }),
        retryable: true,
        retryAfterMs,
        kind: 'overloaded',
      };
    }
    if (status === 0 && UNREACHABLE.test(`${inner.message} ${errorMessage(inner.cause ?? '')}`)) {
      return { error: unreachable(originOf(inner.url), where), retryable: true, retryAfterMs: null };
    }
    if (status >= 500 || status === 408 || status === 0) {
      return {
        error: new DeskhandError('provider_unavailable', `The model API failed (${status || 'no response'}): ${detail}.`, { status }),
        retryable: true,
        retryAfterMs,
      };
    }
    return {
      error: new DeskhandError('provider_unavailable', `The model API rejected the request (${status}): ${detail}.`, { status }),
      retryable: false,
      retryAfterMs: null,
    };
  }
  if (DeskhandError.isInstance(inner)) return { error: inner, retryable: inner.code === 'provider_timeout' || inner.code === 'provider_stream', retryAfterMs: null };
  const message = errorMessage(inner);
  if (UNREACHABLE.test(`${message} ${String((inner as { cause?: unknown })?.cause ?? '')}`)) return { error: unreachable(null, where), retryable: true, retryAfterMs: null };
  const network = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|socket|terminated|fetch failed|network/i.test(message + String((inner as { cause?: unknown })?.cause ?? ''));
  if (network) {
    return {
      error: new DeskhandError('provider_stream', `The connection to the model API broke: ${message}.`),
      retryable: true,
      retryAfterMs: null,
    };
  }
  return { error: new DeskhandError('provider_unavailable', `The model call failed: ${message}`), retryable: false, retryAfterMs: null };
}

/** Nothing listens, or the name does not resolve: the server is not running, or the address is wrong. */
const UNREACHABLE = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|EAI_AGAIN|Cannot connect to API/i;

function unreachable(origin: string | null, where: string): DeskhandError {
  return new DeskhandError(
    'provider_unavailable',
    `Nothing answered at ${origin ?? 'the model API\'s address'}: the model server is not running there, or the address is wrong. Check that it is running, and the address in ${where}; then retry.`,
    { status: 0 },
  );
}

/** The scheme, host and port of a request URL (no path or query: a key could sit in one). */
function originOf(url: string | undefined): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

function parseRetryAfter(headers: Record<string, string> | undefined): number | null {
  if (!headers) return null;
  const ms = headers['retry-after-ms'];
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const s = headers['retry-after'];
  if (!s) return null;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const date = Date.parse(s);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    if (typeof parsed.error === 'string') return parsed.error;
    return parsed.error?.message ?? parsed.message;
  } catch {
    return body.slice(0, 200);
  }
}
