/**
 * Scripted model server for tests: speaks the real OpenAI Chat Completions, OpenAI Responses and Anthropic Messages
 * wire protocols on 127.0.0.1, so the runtime's real AI SDK provider code is exercised end to end.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { reasoningEncryptedContent, thinkingSignature, validateAnthropicRequest, validateImageGeneration, validateOpenAIRequest, validateOpenAIResponsesRequest, type ProviderRefusal } from './provider-validation';
import { handleAudio, type AudioRequest } from './audio-endpoints';

// One representation for both the reply() builder and JSON scripts (model-server-main.ts).
export const scriptedReplySchema = z.strictObject({
  /**
   * Reasoning deltas, streamed before the text: on the Anthropic wire a `thinking` block whose `signature_delta` is
   * the server's signature of its text (provider-validation.ts, thinkingSignature); on the OpenAI wire
   * `reasoning_content` deltas (as DeepSeek and Qwen servers stream them); on the Responses wire a `reasoning` item
   * whose summary streams as `response.reasoning_summary_text.delta` events, with its `encrypted_content` when the
   * request includes `reasoning.encrypted_content` (provider-validation.ts, reasoningEncryptedContent).
   */
  thinking: z.array(z.string()).optional(),
  /** Anthropic: a `redacted_thinking` block with this encrypted data, after the thinking block. */
  redactedThinking: z.string().optional(),
  /** Text deltas, streamed one event each, before any tool call. */
  text: z.array(z.string()).optional(),
  /** Tool calls of this step; `argsRaw` is sent verbatim (may be malformed JSON), else `args` is JSON-encoded. */
  tools: z
    .array(z.strictObject({ name: z.string(), args: z.unknown().optional(), argsRaw: z.string().optional(), id: z.string().optional() }))
    .optional(),
  /** Answer with this HTTP error status and the protocol's error JSON instead of a completion. */
  status: z.number().int().min(400).max(599).optional(),
  retryAfterSeconds: z.number().nonnegative().optional(),
  /** Sent as `retry-after-ms` (OpenAI's and Anthropic's SDKs read it before `retry-after`). */
  retryAfterMs: z.number().nonnegative().optional(),
  /**
   * Refuse the request as too long for the model's context, with the body each provider sends: Anthropic's 400
   * "prompt is too long: N tokens > 200000 maximum", OpenAI's 400 `context_length_exceeded`.
   */
  contextLength: z.boolean().optional(),
  /** Send only the first N frames of the streamed reply (after the headers), then destroy the socket: a cut mid-reply. */
  cutAfterFrames: z.number().int().nonnegative().optional(),
  /** Overrides the error message of `status`. */
  message: z.string().optional(),
  /** Send the partial response, then destroy the socket before the finish events. */
  streamError: z.boolean().optional(),
  /** Accept the request and never answer (until the client aborts or the server closes). */
  hang: z.boolean().optional(),
  /**
   * Token usage to report; estimated from the request and output sizes when absent. `input` counts every input token;
   * `cacheRead`/`cacheWrite` say how many of them the prompt cache served or took.
   */
  usage: z
    .strictObject({
      input: z.number().int().nonnegative(),
      output: z.number().int().nonnegative(),
      cacheRead: z.number().int().nonnegative().optional(),
      cacheWrite: z.number().int().nonnegative().optional(),
      /** Of `output`, the reasoning tokens (reported on the OpenAI wires; estimated from `thinking` when absent). */
      reasoning: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** Pause before each event. */
  delayMs: z.number().nonnegative().optional(),
  /**
   * Send the first event of the reply's content (the first text delta, else the first tool call's start; the whole
   * head before it too), then hold the rest until the test releases this name (`server.release(name)`, or
   * `POST /__release/NAME` to a server in its own process). A release that comes first is kept: the reply then streams
   * through. Ordering without timing: "the run is still replying" lasts exactly until the test says.
   */
  hold: z.string().min(1).optional(),
});
export type ScriptedReply = z.infer<typeof scriptedReplySchema>;

/**
 * The text of a request's first user message, on every wire (Chat Completions and Anthropic carry `messages`; the
 * Responses wire `input`, a string or items): what a routed reply is chosen by (model-server-main.ts `--routes`,
 * bench/model-server-process.ts).
 */
export function firstUserText(body: unknown): string {
  const b = body as { messages?: { role: string; content: unknown }[]; input?: string | { role?: string; content?: unknown }[] };
  if (typeof b.input === 'string') return b.input;
  const messages = b.messages ?? (b.input ?? []).filter((m): m is { role: string; content: unknown } => typeof m.role === 'string');
  const c = messages.find((m) => m.role === 'user')?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
}

/** Immutable fluent builder over a ScriptedReply: `reply().text('Hi').tool('ls', {})`. */
export class ReplyBuilder {
  constructor(readonly spec: ScriptedReply = {}) {}

  text(delta: string): ReplyBuilder {
    return this.with({ text: [...(this.spec.text ?? []), delta] });
  }

  tool(name: string, args: unknown = {}, opts: { id?: string } = {}): ReplyBuilder {
    return this.with({ tools: [...(this.spec.tools ?? []), { name, args, ...opts }] });
  }

  toolRaw(name: string, argsRaw: string, opts: { id?: string } = {}): ReplyBuilder {
    return this.with({ tools: [...(this.spec.tools ?? []), { name, argsRaw, ...opts }] });
  }

  status(status: number, opts: { retryAfterSeconds?: number; retryAfterMs?: number; message?: string } = {}): ReplyBuilder {
    return this.with({ status, ...opts });
  }

  contextLengthError(): ReplyBuilder {
    return this.with({ contextLength: true });
  }

  cutAfter(frames: number): ReplyBuilder {
    return this.with({ cutAfterFrames: frames });
  }

  streamError(): ReplyBuilder {
    return this.with({ streamError: true });
  }

  hang(): ReplyBuilder {
    return this.with({ hang: true });
  }

  usage(usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number; reasoning?: number }): ReplyBuilder {
    return this.with({ usage });
  }

  delay(ms: number): ReplyBuilder {
    return this.with({ delayMs: ms });
  }

  thinking(delta: string): ReplyBuilder {
    return this.with({ thinking: [...(this.spec.thinking ?? []), delta] });
  }

  redactedThinking(data: string): ReplyBuilder {
    return this.with({ redactedThinking: data });
  }

  hold(name: string): ReplyBuilder {
    return this.with({ hold: name });
  }

  private with(patch: Partial<ScriptedReply>): ReplyBuilder {
    return new ReplyBuilder({ ...this.spec, ...patch });
  }
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

export type ReplyInput = ReplyBuilder | ScriptedReply;

export interface OpenAIChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | { type: string; text?: string; [key: string]: unknown }[] | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface OpenAIChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface AnthropicContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | AnthropicContentBlock[];
  is_error?: boolean;
  [key: string]: unknown;
}

export interface AnthropicMessagesRequest {
  model: string;
  max_tokens: number;
  system?: string | AnthropicContentBlock[];
  messages: { role: 'user' | 'assistant'; content: string | AnthropicContentBlock[] }[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  stream?: boolean;
  [key: string]: unknown;
}

/** An item of a Responses request's `input` (a message, function_call, function_call_output, reasoning…). */
export interface OpenAIResponsesItem {
  type?: string;
  role?: string;
  content?: string | { type: string; text?: string; [key: string]: unknown }[];
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
  summary?: { type: string; text: string }[];
  encrypted_content?: string;
  [key: string]: unknown;
}

export interface OpenAIResponsesRequest {
  model: string;
  input: string | OpenAIResponsesItem[];
  tools?: { type: string; name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean }[];
  stream?: boolean;
  store?: boolean;
  include?: string[];
  reasoning?: { effort?: string; summary?: string };
  [key: string]: unknown;
}

interface RecordedBase {
  path: string;
  headers: IncomingHttpHeaders;
}

export type RecordedRequest =
  | (RecordedBase & { protocol: 'openai'; body: OpenAIChatRequest })
  | (RecordedBase & { protocol: 'anthropic'; body: AnthropicMessagesRequest })
  | (RecordedBase & { protocol: 'openai-responses'; body: OpenAIResponsesRequest });

export type Protocol = RecordedRequest['protocol'];

export interface ModelServerOptions {
  /** When set, requests must carry this key (`Authorization: Bearer` / `x-api-key`), else 401. */
  apiKey?: string | undefined;
  /** Called for every recorded request, before it is answered. */
  onRequest?: ((request: RecordedRequest) => void) | undefined;
  /**
   * When set, `GET /v1/models` lists these models (as OpenAI, Ollama and LM Studio do), so the server can stand in for
   * a local model server that is detected; otherwise that route is a 404 like any other. Not recorded as a request.
   */
  models?: string[] | undefined;
  /**
   * Called right after each piece of a streamed reply is handed to the socket, with the wall-clock time
   * (`performance.timeOrigin + performance.now()`): benchmarks time tokens from here to the screen.
   */
  onWrite?: ((chunk: string, at: number) => void) | undefined;
  /**
   * Every request is checked against what the real provider documents as invalid (test/support/provider-validation.ts)
   * and refused as that provider would (400 invalid_request_error). A test that sends a broken body on purpose says why
   * here, and the checks are off for that server only.
   */
  acceptInvalidRequestsBecause?: string | undefined;
  /**
   * A request the checks refuse fails the test that caused it (test/support/setup-env.ts reports every refusal after
   * each test, and the standalone server exits non-zero). A test that sends invalid bodies on purpose, to see the
   * refusal, says why here.
   */
  expectRefusals?: string | undefined;
  /** What `/v1/audio/transcriptions` hears (default "Scripted transcript."). */
  transcript?: string | undefined;
  /** Called with each request to the audio routes as it is recorded (model-server-main.ts logs them). */
  onAudioRequest?: ((request: AudioRequest) => void) | undefined;
}

/** A request the server refused as the real provider would, with the reason. */
export interface RefusedRequest {
  path: string;
  request: RecordedRequest | AudioRequest;
  refusal: ProviderRefusal;
}

/**
 * Refusals no test said it expects, across every scripted server of this process, until a harness takes them
 * (`takeUnexpectedRefusals`: setup-env.ts after each test). On globalThis, so the setup file needs no import of this
 * module and every copy of it shares one list.
 */
const UNEXPECTED = Symbol.for('deskhand.test.unexpectedRefusals');
type Registry = { [UNEXPECTED]?: string[] };

function noteUnexpected(line: string): void {
  ((globalThis as Registry)[UNEXPECTED] ??= []).push(line);
}

/** The refusals no test expected since the last call, as lines naming the server, route and reason (and forgets them). */
export function takeUnexpectedRefusals(): string[] {
  const list = (globalThis as Registry)[UNEXPECTED] ?? [];
  (globalThis as Registry)[UNEXPECTED] = [];
  return list;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** `url + '/v1'`, the baseURL for createOpenAI / createOpenAICompatible / createAnthropic. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Requests refused by the provider-validity checks (also in `requests`, in order). */
  readonly refused: RefusedRequest[];
  /** Requests to the audio routes (`/v1/audio/transcriptions`, `/v1/audio/speech`), as received (audio-endpoints.ts). */
  readonly audioRequests: AudioRequest[];
  /** Number of scripted replies not consumed yet. */
  readonly pending: number;
  enqueue(...replies: ReplyInput[]): void;
  /** Answers every request that finds the queue empty; `undefined` restores the loud 500. */
  setFallback(fallback: ((request: RecordedRequest) => ReplyInput) | undefined): void;
  /** Lets the replies held under this name (`hold`) stream on; a release before the hold is kept. */
  release(name: string): void;
  /** Resolves once a reply held under this name has sent its first event and waits for `release`. */
  held(name: string): Promise<void>;
  /** Stops listening and ends every open connection, hung ones included; idempotent. */
  close(): Promise<void>;
}

/** The image every `/v1/images/generations` request gets: a 2×2 PNG (red, green / blue, white). */
export const SCRIPTED_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAGUlEQVR4AQXBAQ0AAAzDIJbcv+UeRNJNwgM+/wYAjSzeDQAAAABJRU5ErkJggg==',
  'base64',
);

const ROUTES: Record<string, Protocol> = { '/v1/chat/completions': 'openai', '/v1/messages': 'anthropic', '/v1/responses': 'openai-responses' };

interface ErrorShape {
  openai: { type: string; code: string | null; message: string };
  anthropic: { type: string; message: string };
}

// Error bodies as the real APIs send them (type/code per status).
const ERRORS: Record<number, ErrorShape> = {
  400: {
    openai: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
    anthropic: { type: 'invalid_request_error', message: 'Invalid request.' },
  },
  401: {
    openai: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
    anthropic: { type: 'authentication_error', message: 'invalid x-api-key' },
  },
  403: {
    openai: { type: 'invalid_request_error', code: null, message: 'You are not allowed to sample from this model.' },
    anthropic: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  },
  404: {
    openai: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
    anthropic: { type: 'not_found_error', message: 'model: not found' },
  },
  413: {
    openai: { type: 'invalid_request_error', code: null, message: 'Request too large.' },
    anthropic: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  },
  429: {
    openai: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again later.' },
    anthropic: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit.' },
  },
  500: {
    openai: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
    anthropic: { type: 'api_error', message: 'Internal server error' },
  },
  503: {
    openai: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
    anthropic: { type: 'api_error', message: 'Service unavailable' },
  },
  529: {
    openai: { type: 'server_error', code: null, message: 'Overloaded' },
    anthropic: { type: 'overloaded_error', message: 'Overloaded' },
  },
};

function errorShape(status: number): ErrorShape {
  const message = `HTTP ${status}`;
  return (
    ERRORS[status] ??
    (status < 500
      ? { openai: { type: 'invalid_request_error', code: null, message }, anthropic: { type: 'invalid_request_error', message } }
      : { openai: { type: 'server_error', code: null, message }, anthropic: { type: 'api_error', message } })
  );
}

function sendError(
  res: ServerResponse,
  protocol: Protocol,
  status: number,
  opts: { message?: string | undefined; retryAfterSeconds?: number | undefined; retryAfterMs?: number | undefined; param?: string | null; code?: string | null },
): void {
  const shape = errorShape(status);
  const message = opts.message ?? shape[protocol === 'anthropic' ? 'anthropic' : 'openai'].message;
  const body =
    protocol !== 'anthropic'
      ? { error: { message, type: shape.openai.type, param: opts.param ?? null, code: opts.code !== undefined ? opts.code : shape.openai.code } }
      : { type: 'error', error: { type: shape.anthropic.type, message } };
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(opts.retryAfterSeconds !== undefined ? { 'retry-after': String(opts.retryAfterSeconds) } : {}),
    ...(opts.retryAfterMs !== undefined ? { 'retry-after-ms': String(opts.retryAfterMs) } : {}),
  });
  res.end(JSON.stringify(body));
}

function presentedKey(protocol: Protocol, headers: IncomingHttpHeaders): string | undefined {
  if (protocol === 'anthropic') return typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined;
  return headers.authorization?.replace(/^Bearer /, '');
}

interface ResolvedTool {
  id: string;
  name: string;
  args: string;
}

interface Step {
  id: string;
  model: string;
  text: string[];
  thinking: string[];
  redactedThinking: string | null;
  tools: ResolvedTool[];
  usage: { input: number; output: number; cacheRead?: number | undefined; cacheWrite?: number | undefined; reasoning?: number | undefined };
}

/**
 * The HTTP payload in two parts: `tail` holds the finishing events, dropped when the stream breaks. `firstContent` is
 * the index in `frames` of the first content event (where a `hold` waits after).
 */
interface Payload {
  contentType: string;
  frames: string[];
  tail: string[];
  firstContent?: number;
}

const ARG_PIECES = 3;

// Tool arguments go out in several fragments, as from a real model, so clients must concatenate them.
function pieces(s: string): string[] {
  const size = Math.max(1, Math.ceil(s.length / ARG_PIECES));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function splitJson(body: unknown): Payload {
  const json = JSON.stringify(body);
  const half = json.length >> 1;
  return { contentType: 'application/json', frames: [json.slice(0, half)], tail: [json.slice(half)] };
}

const SSE = 'text/event-stream; charset=utf-8';

/** Anthropic counts the input the cache served or took apart from `input_tokens`. */
function anthropicInput(step: Step): { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number } {
  const read = step.usage.cacheRead ?? 0;
  const write = step.usage.cacheWrite ?? 0;
  return { input_tokens: Math.max(0, step.usage.input - read - write), cache_creation_input_tokens: write, cache_read_input_tokens: read };
}

/**
 * Anthropic's prompt cache, as the API applies it: the request is a sequence of blocks (tools, then system blocks,
 * then each message's content blocks); a block marked `cache_control` ends a cacheable prefix, written to the cache. A
 * request reads the longest prefix an earlier request wrote that ends at one of its breakpoints or at most 20 blocks
 * before one; what its longest marked prefix adds beyond that is written. Tokens are the server's 4-characters
 * estimate. (The API's minimum cacheable length and the cache's five-minute lifetime are not modelled.)
 */
function anthropicCacheUse(body: AnthropicMessagesRequest, written: Set<string>): { read: number; write: number } {
  const blocks: unknown[] = [];
  const marked: number[] = [];
  const add = (block: object, where: string) => {
    const { cache_control: mark, ...rest } = block as { cache_control?: unknown };
    blocks.push([where, rest]);
    if (mark) marked.push(blocks.length);
  };
  for (const tool of body.tools ?? []) add(tool, 'tool');
  if (typeof body.system === 'string') add({ type: 'text', text: body.system }, 'system');
  else for (const block of body.system ?? []) add(block, 'system');
  for (const message of body.messages) {
    if (typeof message.content === 'string') add({ type: 'text', text: message.content }, message.role);
    else for (const block of message.content) add(block, message.role);
  }
  // Prefix hashes and sizes, built once: keys[i] and chars[i] describe the first i blocks.
  const keys: string[] = [''];
  const chars: number[] = [2];
  const hash = createHash('sha256');
  for (const block of blocks) {
    const text = JSON.stringify(block);
    hash.update(text);
    keys.push(hash.copy().digest('hex'));
    chars.push(chars[chars.length - 1]! + text.length + 1);
  }
  const tokensTo = (end: number) => Math.ceil(chars[end]! / 4);
  let read = 0;
  let longest = 0;
  for (const end of marked) {
    // A hit is looked for at the breakpoint and at the 20 block boundaries before it (as the API does).
    for (let at = end; at > 0 && at >= end - 20; at--) {
      if (written.has(keys[at]!)) {
        read = Math.max(read, tokensTo(at));
        break;
      }
    }
    longest = Math.max(longest, tokensTo(end));
  }
  for (const end of marked) written.add(keys[end]!);
  return { read, write: longest - read };
}

function openaiPayload(step: Step, stream: boolean, includeUsage: boolean): Payload {
  const created = Math.floor(Date.now() / 1000);
  const finishReason = step.tools.length > 0 ? 'tool_calls' : 'stop';
  const usage = {
    prompt_tokens: step.usage.input,
    completion_tokens: step.usage.output,
    total_tokens: step.usage.input + step.usage.output,
    prompt_tokens_details: { cached_tokens: step.usage.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  if (!stream) {
    const message = {
      role: 'assistant',
      content: step.text.length > 0 ? step.text.join('') : null,
      ...(step.thinking.length > 0 ? { reasoning_content: step.thinking.join('') } : {}),
      refusal: null,
      ...(step.tools.length > 0
        ? { tool_calls: step.tools.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.args } })) }
        : {}),
    };
    return splitJson({
      id: step.id,
      object: 'chat.completion',
      created,
      model: step.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage,
      system_fingerprint: null,
    });
  }
  const base = { id: step.id, object: 'chat.completion.chunk', created, model: step.model, system_fingerprint: null };
  // With include_usage, every chunk carries `usage: null` until the final usage-only chunk.
  const chunk = (delta: object, finish: string | null = null): string =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  // Like OpenAI: the role chunk has content "" when text follows, null for a tool-only reply.
  const frames = [chunk({ role: 'assistant', content: step.text.length > 0 ? '' : null, refusal: null })];
  for (const reasoning_content of step.thinking) frames.push(chunk({ reasoning_content }));
  const firstContent = frames.length; // the first text delta, else the first tool call's start
  for (const content of step.text) frames.push(chunk({ content }));
  step.tools.forEach((t, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }));
    for (const piece of pieces(t.args)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const tail = [chunk({}, finishReason)];
  if (includeUsage) tail.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  tail.push('data: [DONE]\n\n');
  return { contentType: SSE, frames, tail, firstContent };
}

/**
 * The Responses wire (POST /v1/responses), as OpenAI documents its streaming events: `response.created`,
 * `response.in_progress`, then per output item `response.output_item.added` … `response.output_item.done` (a
 * reasoning item's summary as `response.reasoning_summary_part.added` / `response.reasoning_summary_text.delta` /
 * `.done` / `response.reasoning_summary_part.done`; a message's `response.content_part.added` /
 * `response.output_text.delta` / `.done` / `response.content_part.done`; a function call's
 * `response.function_call_arguments.delta` / `.done`), and `response.completed` with the whole response and its usage
 * (`output_tokens_details.reasoning_tokens`). Non-streamed: the response object itself.
 */
function responsesPayload(step: Step, stream: boolean, includeEncrypted: boolean): Payload {
  const created = Math.floor(Date.now() / 1000);
  // Reasoning tokens are part of the output tokens (the estimate counts the summary's characters in both).
  const reasoningTokens = Math.min(step.usage.output, step.usage.reasoning ?? Math.ceil(step.thinking.join('').length / 4));
  const usage = {
    input_tokens: step.usage.input,
    input_tokens_details: { cached_tokens: step.usage.cacheRead ?? 0 },
    output_tokens: step.usage.output,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: step.usage.input + step.usage.output,
  };
  const n = step.id.replace(/^resp_/, '');
  const output: Record<string, unknown>[] = [];
  const reasoningId = `rs_${n}`;
  const summaryText = step.thinking.join('');
  if (step.thinking.length > 0) {
    output.push({
      id: reasoningId,
      type: 'reasoning',
      summary: summaryText ? [{ type: 'summary_text', text: summaryText }] : [],
      ...(includeEncrypted ? { encrypted_content: reasoningEncryptedContent(reasoningId) } : {}),
    });
  }
  const messageId = `msg_${n}`;
  if (step.text.length > 0) {
    output.push({ id: messageId, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: step.text.join(''), annotations: [], logprobs: [] }] });
  }
  step.tools.forEach((t, i) => output.push({ id: `fc_${n}_${i}`, type: 'function_call', status: 'completed', arguments: t.args, call_id: t.id, name: t.name }));
  const response = (status: string, out: unknown[], withUsage: boolean) => ({
    id: step.id,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details: null,
    model: step.model,
    output: out,
    parallel_tool_calls: true,
    store: false,
    usage: withUsage ? usage : null,
  });
  if (!stream) return splitJson(response('completed', output, true));
  let seq = 0;
  const event = (type: string, data: object = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  const frames = [event('response.created', { response: response('in_progress', [], false) }), event('response.in_progress', { response: response('in_progress', [], false) })];
  let firstContent: number | undefined;
  output.forEach((item, output_index) => {
    const item_id = item.id as string;
    if (item.type === 'reasoning') {
      frames.push(event('response.output_item.added', { output_index, item: { ...item, summary: [] } }));
      if (summaryText) {
        const part = { type: 'summary_text', text: '' };
        frames.push(event('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part }));
        for (const delta of step.thinking) frames.push(event('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta }));
        frames.push(event('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: summaryText }));
        frames.push(event('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: { ...part, text: summaryText } }));
      }
    } else if (item.type === 'message') {
      frames.push(event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      frames.push(event('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }));
      for (const delta of step.text) {
        firstContent ??= frames.length;
        frames.push(event('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] }));
      }
      const text = step.text.join('');
      frames.push(event('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] }));
      frames.push(event('response.content_part.done', { item_id, output_index, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } }));
    } else {
      firstContent ??= frames.length;
      frames.push(event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      for (const delta of pieces(item.arguments as string)) frames.push(event('response.function_call_arguments.delta', { item_id, output_index, delta }));
      frames.push(event('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments }));
    }
    frames.push(event('response.output_item.done', { output_index, item }));
  });
  const tail = [event('response.completed', { response: response('completed', output, true) })];
  return { contentType: SSE, frames, tail, ...(firstContent !== undefined ? { firstContent } : {}) };
}

function anthropicPayload(step: Step, stream: boolean): Payload {
  const stopReason = step.tools.length > 0 ? 'tool_use' : 'end_turn';
  if (!stream) {
    const content: object[] = [];
    if (step.thinking.length > 0) content.push({ type: 'thinking', thinking: step.thinking.join(''), signature: thinkingSignature(step.thinking.join('')) });
    if (step.redactedThinking !== null) content.push({ type: 'redacted_thinking', data: step.redactedThinking });
    if (step.text.length > 0) content.push({ type: 'text', text: step.text.join('') });
    for (const t of step.tools) content.push({ type: 'tool_use', id: t.id, name: t.name, input: parseOrRaw(t.args) });
    return splitJson({
      id: step.id,
      type: 'message',
      role: 'assistant',
      model: step.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { ...anthropicInput(step), output_tokens: step.usage.output },
    });
  }
  const event = (type: string, data: object = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames = [
    event('message_start', {
      message: {
        id: step.id,
        type: 'message',
        role: 'assistant',
        model: step.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicInput(step), output_tokens: 1 },
      },
    }),
    event('ping'),
  ];
  let index = 0;
  if (step.thinking.length > 0) {
    // As the API streams it: thinking deltas, then the signature of the whole block in a signature_delta.
    frames.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const thinking of step.thinking) frames.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }));
    frames.push(event('content_block_delta', { index, delta: { type: 'signature_delta', signature: thinkingSignature(step.thinking.join('')) } }));
    frames.push(event('content_block_stop', { index }));
    index++;
  }
  if (step.redactedThinking !== null) {
    frames.push(event('content_block_start', { index, content_block: { type: 'redacted_thinking', data: step.redactedThinking } }));
    frames.push(event('content_block_stop', { index }));
    index++;
  }
  // The first text delta, else the first tool call's start.
  const firstContent = frames.length + (step.text.length > 0 ? 1 : 0);
  if (step.text.length > 0) {
    frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const text of step.text) frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    frames.push(event('content_block_stop', { index }));
    index++;
  }
  for (const t of step.tools) {
    frames.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: t.id, name: t.name, input: {} } }));
    for (const partial_json of pieces(t.args)) {
      frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    frames.push(event('content_block_stop', { index }));
    index++;
  }
  const tail = [
    event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: step.usage.output } }),
    event('message_stop'),
  ];
  return { contentType: SSE, frames, tail, firstContent };
}

// A non-streamed Anthropic tool_use carries an object; malformed raw arguments can only be passed on as a string.
/**
 * `<<request:REGEX>>` in a scripted tool call's arguments becomes the first match of REGEX in this request's body: an
 * id the app minted earlier in the conversation (a composition id) can be used by a later scripted step.
 */
function fillFromRequest(args: string, raw: string): string {
  return args.replace(/<<request:(.+?)>>/g, (_m, re: string) => new RegExp(re).exec(raw)?.[0] ?? '');
}

function parseOrRaw(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

async function send(
  res: ServerResponse,
  payload: Payload,
  spec: ScriptedReply,
  onWrite?: (chunk: string, at: number) => void,
  hold?: () => Promise<void>,
): Promise<void> {
  res.writeHead(200, { 'content-type': payload.contentType, 'cache-control': 'no-cache' });
  const cutShort = spec.cutAfterFrames !== undefined;
  const body = cutShort ? payload.frames.slice(0, spec.cutAfterFrames) : spec.streamError ? payload.frames : [...payload.frames, ...payload.tail];
  const delayMs = spec.delayMs ?? 0;
  if (delayMs > 0 || hold) res.flushHeaders();
  // Without delay, one write: keeps benchmarks at zero latency and low syscall count. A hold splits the body after the
  // first content event (a non-streamed body: after its first half).
  const split = Math.min((payload.firstContent ?? 0) + 1, body.length - 1);
  const writes = delayMs > 0 ? body : hold ? [body.slice(0, split).join(''), body.slice(split).join('')] : [body.join('')];
  for (const [i, chunk] of writes.entries()) {
    if (delayMs > 0) await sleep(delayMs);
    if (hold && i === (delayMs > 0 ? split : 1)) await hold();
    if (res.destroyed) return; // client aborted or server closed meanwhile
    if (i < writes.length - 1) res.write(chunk);
    // Destroy only once the partial data reached the socket, so the client sees it before the break.
    else if (spec.streamError || cutShort) res.write(chunk, () => res.destroy());
    else res.end(chunk);
    onWrite?.(chunk, performance.timeOrigin + performance.now());
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const refused: RefusedRequest[] = [];
  const audioRequests: AudioRequest[] = [];
  if (options.acceptInvalidRequestsBecause !== undefined && options.acceptInvalidRequestsBecause.trim() === '') {
    throw new Error('model server: acceptInvalidRequestsBecause needs the reason the test sends invalid requests');
  }
  if (options.expectRefusals !== undefined && options.expectRefusals.trim() === '') {
    throw new Error('model server: expectRefusals needs the reason the test expects refused requests');
  }
  const validate = options.acceptInvalidRequestsBecause === undefined;
  let url = '';
  const noteRefused = (entry: RefusedRequest) => {
    refused.push(entry);
    // Loud in the test's output: a refused request usually fails the test far from here.
    process.stderr.write(`model server: refused a request to ${entry.path} as the provider would: ${entry.refusal.message}\n`);
    if (options.expectRefusals === undefined) noteUnexpected(`${url}${entry.path}: ${entry.refusal.message}`);
  };
  /** Prefixes in the simulated Anthropic prompt cache (hashes; never evicted while the server lives). */
  const cacheWritten = new Set<string>();
  let fallback: ((request: RecordedRequest) => ReplyInput) | undefined;
  let sequence = 0;
  /** Held replies by name: the release (a latch: a release before the hold is kept) and the hold being reached. */
  const holds = new Map<string, { release: () => void; releasedP: Promise<void>; reached: () => void; reachedP: Promise<void> }>();
  const holdOf = (name: string) => {
    let h = holds.get(name);
    if (!h) {
      let release!: () => void;
      let reached!: () => void;
      const releasedP = new Promise<void>((r) => (release = r));
      const reachedP = new Promise<void>((r) => (reached = r));
      h = { release, releasedP, reached, reachedP };
      holds.set(name, h);
    }
    return h;
  };

  const toSpec = (input: ReplyInput): ScriptedReply => (input instanceof ReplyBuilder ? input.spec : input);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const releaseRoute = /^\/__release\/([^/]+)$/.exec(path);
    if (req.method === 'POST' && releaseRoute) {
      // The test's release of a held reply, for a server in its own process (not a model request: not recorded).
      holdOf(decodeURIComponent(releaseRoute[1]!)).release();
      res.writeHead(204).end();
      return;
    }
    if (options.models && req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: options.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })) }));
      return;
    }
    const onAudio = (r: AudioRequest) => {
      audioRequests.push(r);
      options.onAudioRequest?.(r);
    };
    const audioChecks = { validate, refused: (request: AudioRequest, refusal: ProviderRefusal) => noteRefused({ path, request, refusal }) };
    if (await handleAudio(req, res, path, onAudio, () => options.transcript ?? 'Scripted transcript.', audioChecks)) return;
    if (req.method === 'POST' && path === '/v1/images/generations') {
      // Image generation (OpenAI wire format): recorded like chat requests, checked as OpenAI checks it, answered with a
      // small PNG.
      const body = JSON.parse(await readBody(req)) as unknown;
      const request = { protocol: 'openai', path, headers: req.headers, body } as RecordedRequest;
      requests.push(request);
      options.onRequest?.(request);
      const refusal = validate ? validateImageGeneration(body) : undefined;
      if (refusal) {
        noteRefused({ path, request, refusal });
        sendError(res, 'openai', refusal.status, refusal);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ created: 0, data: [{ b64_json: SCRIPTED_PNG.toString('base64') }] }));
      return;
    }
    const protocol = req.method === 'POST' ? ROUTES[path] : undefined;
    if (!protocol) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model server: no route for ${req.method} ${path}` } }));
      return;
    }
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(res, protocol, 400, { message: 'model server: request body is not JSON' });
      return;
    }
    const request = { protocol, path, headers: req.headers, body } as RecordedRequest;
    requests.push(request);
    options.onRequest?.(request);

    if (options.apiKey !== undefined && presentedKey(protocol, req.headers) !== options.apiKey) {
      sendError(res, protocol, 401, {});
      return;
    }
    if (validate) {
      const refusal =
        request.protocol === 'anthropic'
          ? validateAnthropicRequest(request.body)
          : request.protocol === 'openai-responses'
            ? validateOpenAIResponsesRequest(request.body)
            : validateOpenAIRequest(request.body);
      if (refusal) {
        noteRefused({ path, request, refusal });
        sendError(res, protocol, refusal.status, refusal);
        return;
      }
    }
    const next = queue.shift() ?? (fallback ? toSpec(fallback(request)) : undefined);
    if (!next) {
      sendError(res, protocol, 500, { message: 'model server: no scripted reply left' });
      return;
    }
    if (next.contextLength) {
      const tokens = Math.ceil(raw.length / 4) + 200_000;
      if (protocol === 'anthropic') sendError(res, protocol, 400, { message: `prompt is too long: ${tokens} tokens > 200000 maximum` });
      else {
        sendError(res, protocol, 400, {
          message: `This model's maximum context length is 128000 tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          param: protocol === 'openai' ? 'messages' : 'input',
          code: 'context_length_exceeded',
        });
      }
      return;
    }
    if (next.status !== undefined) {
      sendError(res, protocol, next.status, next);
      return;
    }
    if (next.hang) return; // answered by nobody; close() or the client's abort ends the connection

    const n = ++sequence;
    const tools = (next.tools ?? []).map((t, i) => ({
      id: t.id ?? (protocol === 'anthropic' ? `toolu_${n}_${i}` : `call_${n}_${i}`),
      name: t.name,
      args: fillFromRequest(t.argsRaw ?? JSON.stringify(t.args ?? {}), raw),
    }));
    const estimatedUsage = () => {
      const usage = { input: Math.ceil(raw.length / 4), output: Math.max(1, Math.ceil(outputChars / 4)) };
      if (request.protocol !== 'anthropic') return usage;
      const cache = anthropicCacheUse(request.body, cacheWritten);
      return { ...usage, input: Math.max(usage.input, cache.read + cache.write), cacheRead: cache.read, cacheWrite: cache.write };
    };
    const text = next.text ?? [];
    const outputChars = [...text, ...(protocol === 'openai-responses' ? (next.thinking ?? []) : [])].reduce((sum, t) => sum + t.length, 0) + tools.reduce((sum, t) => sum + t.name.length + t.args.length, 0);
    const step: Step = {
      id: protocol === 'openai' ? `chatcmpl-${n}` : protocol === 'openai-responses' ? `resp_${n}` : `msg_${n}`,
      model: request.body.model,
      text,
      thinking: next.thinking ?? [],
      redactedThinking: next.redactedThinking ?? null,
      tools,
      // Rough 4-characters-per-token estimate, so context accounting sees plausible growth; an Anthropic request with
      // cache breakpoints reads and writes the simulated prompt cache.
      usage: next.usage ?? estimatedUsage(),
    };
    const stream = request.body.stream === true;
    const payload =
      request.protocol === 'openai'
        ? openaiPayload(step, stream, request.body.stream_options?.include_usage === true)
        : request.protocol === 'openai-responses'
          ? responsesPayload(step, stream, request.body.include?.includes('reasoning.encrypted_content') === true)
          : anthropicPayload(step, stream);
    const hold = next.hold;
    const waitForRelease = hold
      ? async () => {
          const h = holdOf(hold);
          h.reached();
          // Ends with the connection too: a client that gives up or a closing server does not leave this waiting.
          await Promise.race([h.releasedP, new Promise<void>((r) => res.once('close', () => r()))]);
        }
      : undefined;
    await send(res, payload, next, options.onWrite, waitForRelease);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      const message = `model server: ${error instanceof Error ? error.message : String(error)}`;
      // Parses as an error body under both protocols.
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    refused,
    audioRequests,
    get pending() {
      return queue.length;
    },
    enqueue(...replies) {
      queue.push(...replies.map(toSpec));
    },
    setFallback(next) {
      fallback = next;
    },
    release(name) {
      holdOf(name).release();
    },
    held(name) {
      return holdOf(name).reachedP;
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
