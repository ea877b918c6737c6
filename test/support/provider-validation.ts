/**
 * What a real provider refuses, checked on every request the scripted model server receives, so that a test passing
 * against the scripted server also proves the request is one Anthropic or OpenAI would take.
 *
 * Each rule names the documentation it comes from. Sources (the providers' own pages):
 * - [A-API]   Anthropic, "Messages" API reference (POST /v1/messages): body parameters `max_tokens` (required),
 *             `messages` (role "user" | "assistant"; system instructions go in the top-level `system`, there is no
 *             "system" role), content blocks (text, image, tool_use, tool_result, document), `tools[].input_schema`
 *             (`type: "object"`).
 * - [A-CACHE] Anthropic, "Prompt caching": "You can define up to 4 cache breakpoints" (the API answers "A maximum of 4
 *             blocks with cache_control may be provided").
 * - [A-TOOLS] Anthropic, "Tool use" / "Define tools": a tool's `name` "must match the regex ^[a-zA-Z0-9_-]{1,64}$";
 *             "Handle tool calls": tool result blocks must immediately follow their tool use blocks (each `tool_use`
 *             needs a `tool_result` in the next message, each `tool_result` a `tool_use` in the previous one), and in
 *             the user message holding tool results the `tool_result` blocks come first, any text after them.
 * - [A-VISION] Anthropic, "Vision": base64 image sources with `media_type` image/jpeg, image/png, image/gif or
 *             image/webp; at most 5 MB per image through the API (measured on the base64 text the request carries: a
 *             4 MB PNG is 5.3 MB of base64 and is refused); "up to 100 images" per API request; "If you submit an
 *             image larger than 8000x8000 px, it will be rejected. If you submit more than 20 images in one API
 *             request, this limit is 2000x2000 px" (the API answers "At least one of the image dimensions exceed max
 *             allowed size for many-image requests: 2000 pixels"). Dimensions are read from the PNG, JPEG, GIF and
 *             WebP headers.
 * - [A-PDF]   Anthropic, "PDF support": a `document` block's source is `base64` (media_type "application/pdf"),
 *             `text` (media_type "text/plain"), `url`, `content` (text and image blocks) or `file` (a file_id);
 *             "Maximum pages per request: 100". A base64 PDF that is not one is answered "The PDF specified was not
 *             valid."
 * - [A-BODY]  Anthropic, "Messages" API reference, the body parameters: model, messages, max_tokens, system,
 *             metadata, stop_sequences, stream, temperature, top_k, top_p, tools, tool_choice, thinking, service_tier,
 *             container, mcp_servers, context_management, output_config, output_format, inference_geo, speed,
 *             cache_control, fallbacks (the beta ones as @ai-sdk/anthropic sends them); anything else is answered
 *             "<name>: Extra inputs are not permitted".
 * - [A-ERR]   Anthropic's documented error messages for empty content ("text content blocks must be non-empty";
 *             "all messages must have non-empty content except for the optional final assistant message"), for text
 *             of whitespace only ("text content blocks must contain non-whitespace text"), and for `tool_use` ids:
 *             the Messages schema's `id` pattern `^[a-zA-Z0-9_-]+$` and "`tool_use` ids must be unique".
 * - [O-API]   OpenAI, "Chat Completions" API reference (POST /v1/chat/completions): `messages` (roles system,
 *             developer, user, assistant, tool), the assistant `content` "Required unless tool_calls or function_call
 *             is specified", the tool message's `tool_call_id`, tool/system/developer content parts being text,
 *             user parts `text` / `image_url` ({url, detail: auto|low|high}) / `input_audio` / `file`; `tools`: "A max of
 *             128 functions are supported", a function `name` "Must be a-z, A-Z, 0-9, or contain underscores and
 *             dashes, with a maximum length of 64", `parameters` a JSON Schema object.
 * - [O-FC]    OpenAI, "Function calling": every tool call the assistant made is answered by a tool message with its
 *             `tool_call_id` before the conversation goes on (the API answers "An assistant message with 'tool_calls'
 *             must be followed by tool messages responding to each 'tool_call_id'" and "messages with role 'tool' must
 *             be a response to a preceeding message with 'tool_calls'").
 * - [O-SO]    OpenAI, "Structured Outputs" → "Supported schemas" (applies to functions with `strict: true` only): the
 *             root is an object, every object sets `additionalProperties: false`, every property is `required`.
 * - [O-VISION] OpenAI, "Images and vision": a base64 data URL with an image type PNG, JPEG, WEBP or non-animated GIF;
 *             "Up to 20MB per image", "Up to 500 individual images per request", "Up to 50 MB image bytes per
 *             request".
 * - [O-FILE]  OpenAI, "File inputs" and the Chat Completions reference: a `file` part is `{file: {file_data, filename}}`
 *             (a base64 data URL of a PDF) or `{file: {file_id}}`; an `input_audio` part is `{input_audio: {data,
 *             format: "wav" | "mp3"}}`.
 * - [O-BODY]  OpenAI, "Chat Completions" API reference, the body parameters (messages, model, audio,
 *             frequency_penalty, function_call, functions, logit_bias, logprobs, max_completion_tokens, max_tokens,
 *             metadata, modalities, n, parallel_tool_calls, prediction, presence_penalty, prompt_cache_key,
 *             prompt_cache_options, prompt_cache_retention, reasoning_effort, response_format, safety_identifier, seed,
 *             service_tier, stop, store, stream, stream_options, temperature, tool_choice, tools, top_logprobs, top_p,
 *             user, verbosity, web_search_options); anything else is answered "Unrecognized request argument supplied:
 *             <name>".
 * - [O-IMG]   OpenAI, "Create image" (POST /v1/images/generations): `prompt` required ("The maximum length is 32000
 *             characters for the GPT image models, 1000 characters for dall-e-2 and 4000 characters for dall-e-3");
 *             `n` 1–10 (dall-e-3: only 1); `size` one of 1024x1024, 1536x1024, 1024x1536, auto (GPT image models),
 *             256x256, 512x512, 1024x1024 (dall-e-2), 1024x1024, 1792x1024, 1024x1792 (dall-e-3); `response_format`
 *             url or b64_json; the other body parameters background, model, moderation, output_compression,
 *             output_format, partial_images, quality, stream, style, user. A model of another server (an
 *             OpenAI-compatible one) gets the same checks except the size table (WIDTHxHEIGHT only).
 * - [O-TTS]   OpenAI, "Create speech" (POST /v1/audio/speech): `model`, `input` ("The maximum length is 4096
 *             characters") and `voice` required; `response_format` mp3, opus, aac, flac, wav or pcm; `speed` 0.25–4.0;
 *             `instructions`, `stream_format`; the voices of OpenAI's own models (alloy, ash, ballad, coral, echo,
 *             fable, nova, onyx, sage, shimmer, verse, marin, cedar).
 * - [O-STT]   OpenAI, "Create transcription" (POST /v1/audio/transcriptions): `file` required, "in one of these
 *             formats: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, or webm", and "File uploads are currently limited to
 *             25 MB"; `model` required; `response_format` json, text, srt, verbose_json, vtt (or diarized_json);
 *             chunking_strategy, include[], language, prompt, stream, temperature, timestamp_granularities[].
 * - [O-ERR]   OpenAI's documented validation answers for empty arrays ("Invalid 'tools': empty array. Expected an array
 *             with minimum length 1", code `empty_array`), and for a function whose parameters are not an object
 *             schema ("schema must be a JSON Schema of 'type: \"object\"'").
 *
 * Deliberately NOT rules (documented as allowed): Anthropic consecutive turns of the same role ("Consecutive user or
 * assistant turns in your request will be combined into a single turn", [A-API]) and an assistant first message
 * (accepted by the first-party API); JSON-schema keywords in non-strict tools (neither provider documents a refusal);
 * OpenAI's strict-mode keyword list (it changes and Deskhand sends no strict tools).
 */

import { createHmac } from 'node:crypto';

export interface ProviderRefusal {
  /** HTTP status (every rule here is a 400 invalid_request_error at the providers, a body over 32 MB a 413). */
  status: 400 | 413;
  type: 'invalid_request_error';
  message: string;
  /** OpenAI's `param` (the field at fault, e.g. `messages.[3].tool_call_id`); Anthropic has none. */
  param: string | null;
  /** OpenAI's `code` (e.g. `empty_array`, `invalid_value`); null where OpenAI sends none. */
  code: string | null;
}

/** The tool-name rule both providers document. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const ANTHROPIC_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** [A-VISION] 5 MB per image, of base64 text. */
export const ANTHROPIC_IMAGE_MAX_BASE64 = 5 * 1024 * 1024;
const ANTHROPIC_MAX_IMAGES = 100;
const ANTHROPIC_MAX_EDGE = 8000;
const ANTHROPIC_MANY_IMAGES = 20;
const ANTHROPIC_MANY_MAX_EDGE = 2000;
const ANTHROPIC_MAX_PDF_PAGES = 100;
const ANTHROPIC_MAX_BREAKPOINTS = 4;
const ANTHROPIC_BODY = new Set([
  'model', 'messages', 'max_tokens', 'system', 'metadata', 'stop_sequences', 'stream', 'temperature', 'top_k', 'top_p',
  'tools', 'tool_choice', 'thinking', 'service_tier', 'container', 'mcp_servers', 'context_management', 'output_config',
  'output_format', 'inference_geo', 'speed', 'cache_control', 'fallbacks',
]);
const OPENAI_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
const OPENAI_MAX_TOOLS = 128;
const OPENAI_IMAGE_MAX_BYTES = 20 * 1024 * 1024;
const OPENAI_MAX_IMAGES = 500;
const OPENAI_IMAGES_MAX_BYTES = 50 * 1024 * 1024;
const OPENAI_BODY = new Set([
  'messages', 'model', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs',
  'max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'n', 'parallel_tool_calls', 'prediction',
  'presence_penalty', 'prompt_cache_key', 'prompt_cache_options', 'prompt_cache_retention', 'reasoning_effort',
  'response_format', 'safety_identifier', 'seed', 'service_tier', 'stop', 'store', 'stream', 'stream_options',
  'temperature', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options',
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Refused extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function refuse(message: string, param: string | null = null, code: string | null = null): never {
  throw new Refused(message, param, code);
}

function run(check: () => void): ProviderRefusal | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    return { status: 400, type: 'invalid_request_error', message: error.message, param: error.param, code: error.code };
  }
}

/** Decoded size of base64 text (padding aware, whitespace ignored). */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}

/** Width and height from a PNG, JPEG, GIF or WebP header, or null when the bytes are none of those (or cut short). */
export function imageDimensions(b: Buffer): { width: number; height: number } | null {
  const ascii = (from: number, to: number) => b.subarray(from, to).toString('latin1');
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 4) === 'PNG' && ascii(12, 16) === 'IHDR') return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && ascii(0, 4) === 'GIF8') return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') {
    const chunk = ascii(12, 16);
    if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const [b0, b1, b2, b3] = [b[21]!, b[22]!, b[23]!, b[24]!];
      return { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0xf) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
    }
    if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    return null;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    // JPEG: the frame header (SOF0–SOF15 but DHT, JPG and DAC) holds the size; walk the marker segments to it.
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = b[i + 1]!;
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      }
      i += 2 + b.readUInt16BE(i + 2);
    }
  }
  return null;
}

/** A base64 image of a request, for the per-request limits (count, dimensions) checked once all are seen. */
interface SeenImage {
  where: string;
  data: string;
}
/** The base64 images of the Anthropic request being checked (the checks run synchronously, one request at a time). */
let seenImages: SeenImage[] = [];

// ─── Anthropic Messages ────────────────────────────────────────────────────────────────────────────────────────────

/** The refusal a real Anthropic Messages API would answer `body` with, or undefined when it is valid. */
export function validateAnthropicRequest(body: unknown): ProviderRefusal | undefined {
  return run(() => checkAnthropic(body));
}

function checkAnthropic(body: unknown): void {
  if (!isObj(body)) refuse('request body must be a JSON object');
  // [A-BODY] unknown body parameters are refused.
  for (const key of Object.keys(body)) if (!ANTHROPIC_BODY.has(key)) refuse(`${key}: Extra inputs are not permitted`);
  // [A-API] max_tokens is a required body parameter, an integer of at least 1.
  if (body.max_tokens === undefined) refuse('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) refuse('max_tokens: Input should be an integer greater than or equal to 1');
  if (typeof body.model !== 'string' || body.model === '') refuse('model: Field required');
  if (!Array.isArray(body.messages)) refuse('messages: Field required');
  if (body.messages.length === 0) refuse('messages: at least one message is required');

  let breakpoints = 0;
  const images: SeenImage[] = [];
  seenImages = images;
  const mark = (block: Obj) => {
    if (block.cache_control !== undefined && block.cache_control !== null) breakpoints++;
  };

  // [A-API] tools: a custom tool has a name and an input_schema whose type is "object". Server tools (a `type` other
  // than "custom", e.g. web_search_20250305) carry no input_schema.
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) refuse('tools: Input should be a valid list');
    const names = new Set<string>();
    body.tools.forEach((tool: unknown, i) => {
      if (!isObj(tool)) refuse(`tools.${i}: Input should be an object`);
      mark(tool);
      if (tool.type !== undefined && tool.type !== 'custom') return;
      // [A-TOOLS] tool name pattern.
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
        refuse(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$' (got ${JSON.stringify(tool.name)})`);
      }
      if (names.has(tool.name)) refuse(`tools: Tool names must be unique (${tool.name} appears twice)`);
      names.add(tool.name);
      if (!isObj(tool.input_schema)) refuse(`tools.${i}.custom.input_schema: Field required`);
      if (tool.input_schema.type !== 'object') {
        refuse(`tools.${i}.custom.input_schema.type: Input should be 'object' (got ${JSON.stringify(tool.input_schema.type)})`);
      }
    });
  }

  // [A-API] system: a string or a list of text blocks; [A-ERR] text blocks are non-empty.
  if (body.system !== undefined) {
    if (Array.isArray(body.system)) {
      body.system.forEach((block: unknown, i) => {
        if (!isObj(block) || block.type !== 'text') refuse(`system.${i}: Input tag ${JSON.stringify(isObj(block) ? block.type : block)} found using 'type' does not match the expected tag: 'text'`);
        if (typeof block.text !== 'string' || block.text === '') refuse('system: text content blocks must be non-empty');
        mark(block);
      });
    } else if (typeof body.system !== 'string') refuse('system: Input should be a valid string or list of text blocks');
  }

  const messages = body.messages as unknown[];
  const toolUseIds = new Set<string>();
  messages.forEach((m, i) => {
    if (!isObj(m)) refuse(`messages.${i}: Input should be an object`);
    // [A-API] roles are "user" and "assistant"; a system prompt goes in the top-level `system` parameter.
    if (m.role !== 'user' && m.role !== 'assistant') {
      refuse(`messages.${i}.role: Input should be 'user' or 'assistant' (got ${JSON.stringify(m.role)}; system instructions go in the top-level "system" parameter)`);
    }
    const last = i === messages.length - 1;
    // [A-ERR] non-empty content, except the optional final assistant message (a prefill).
    const emptyContent = m.content === '' || (Array.isArray(m.content) && m.content.length === 0);
    if (emptyContent && !(last && m.role === 'assistant')) {
      refuse(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    if (typeof m.content === 'string') return;
    if (!Array.isArray(m.content)) refuse(`messages.${i}.content: Input should be a valid string or list of content blocks`);
    m.content.forEach((block: unknown, j) => {
      if (!isObj(block)) refuse(`messages.${i}.content.${j}: Input should be an object`);
      mark(block);
      checkAnthropicBlock(block, `messages.${i}.content.${j}`, m.role as string, mark, toolUseIds);
    });
  });
  checkAnthropicImageLimits(images);

  // [A-CACHE] at most four cache breakpoints in the whole request.
  if (breakpoints > ANTHROPIC_MAX_BREAKPOINTS) {
    refuse(`A maximum of ${ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  }

  checkAnthropicToolPairing(messages as Obj[]);
  checkAnthropicThinking(body, messages as Obj[]);
}

/** The signature the scripted server gives a thinking block's text (the real API's is opaque and checked the same way). */
export function thinkingSignature(thinking: string): string {
  return createHmac('sha256', 'scripted-thinking').update(thinking).digest('base64');
}

/**
 * [A-THINK] Anthropic, "Building with extended thinking": `thinking` is {type: "enabled", budget_tokens ≥ 1024 and
 * < max_tokens}, {type: "adaptive"} or {type: "disabled"}; thinking blocks are passed back unmodified (their signature
 * is verified: "Invalid `signature` in `thinking` block"); and "when using extended thinking with tool use … you must
 * pass thinking blocks back to the API for the last assistant message": with thinking on, the assistant message
 * whose tool_use blocks the final user message's tool_results answer must start with a thinking or redacted_thinking
 * block.
 */
function checkAnthropicThinking(body: Obj, messages: Obj[]): void {
  const thinking = body.thinking;
  if (thinking !== undefined) {
    if (!isObj(thinking)) refuse('thinking: Input should be an object');
    if (thinking.type === 'enabled') {
      const budget = thinking.budget_tokens;
      if (!Number.isInteger(budget)) refuse('thinking.enabled.budget_tokens: Field required');
      if ((budget as number) < 1024) refuse('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
      if ((budget as number) >= (body.max_tokens as number)) refuse('`max_tokens` must be greater than `thinking.budget_tokens`');
    } else if (thinking.type !== 'adaptive' && thinking.type !== 'disabled') {
      refuse(`thinking: Input tag ${JSON.stringify(thinking.type)} found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'`);
    }
  }
  messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    (m.content as Obj[]).forEach((b, j) => {
      if (b.type === 'thinking') {
        if (m.role !== 'assistant') refuse(`messages.${i}.content.${j}: thinking blocks can only be in assistant messages`);
        if (typeof b.thinking !== 'string') refuse(`messages.${i}.content.${j}.thinking.thinking: Field required`);
        if (typeof b.signature !== 'string') refuse(`messages.${i}.content.${j}.thinking.signature: Field required`);
        if (b.signature !== thinkingSignature(b.thinking)) refuse(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
      } else if (b.type === 'redacted_thinking') {
        if (m.role !== 'assistant') refuse(`messages.${i}.content.${j}: redacted_thinking blocks can only be in assistant messages`);
        if (typeof b.data !== 'string' || b.data === '') refuse(`messages.${i}.content.${j}.redacted_thinking.data: Field required`);
      }
    });
  });
  const on = isObj(thinking) && (thinking.type === 'enabled' || thinking.type === 'adaptive');
  const last = messages.at(-1);
  if (!on || !last || last.role !== 'user' || !Array.isArray(last.content) || !(last.content as Obj[]).some((b) => b.type === 'tool_result')) return;
  const i = messages.length - 2;
  const turn = messages[i];
  if (!turn || turn.role !== 'assistant' || !Array.isArray(turn.content)) return;
  const first = (turn.content as Obj[])[0];
  if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
    refuse(
      `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns.`,
    );
  }
}

function checkAnthropicBlock(block: Obj, where: string, role: string, mark: (b: Obj) => void, toolUseIds: Set<string>): void {
  switch (block.type) {
    case 'text':
      // [A-ERR]
      if (typeof block.text !== 'string') refuse(`${where}.text: Field required`);
      if (block.text === '') refuse('messages: text content blocks must be non-empty');
      if (block.text.trim() === '') refuse('messages: text content blocks must contain non-whitespace text');
      return;
    case 'image':
      checkAnthropicImage(block, where);
      return;
    case 'tool_use':
      if (role !== 'assistant') refuse(`${where}: tool_use blocks can only be in assistant messages`);
      if (typeof block.id !== 'string' || block.id === '') refuse(`${where}.id: Field required`);
      // [A-ERR] the id pattern, and one id per tool_use in the whole request.
      if (!/^[a-zA-Z0-9_-]+$/.test(block.id)) refuse(`${where}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (toolUseIds.has(block.id)) refuse(`${where}: \`tool_use\` ids must be unique`);
      toolUseIds.add(block.id);
      if (typeof block.name !== 'string' || !TOOL_NAME.test(block.name)) refuse(`${where}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      if (!isObj(block.input)) refuse(`${where}.input: Input should be a valid dictionary`);
      return;
    case 'tool_result':
      if (role !== 'user') refuse(`${where}: tool_result blocks can only be in user messages`);
      if (typeof block.tool_use_id !== 'string') refuse(`${where}.tool_use_id: Field required`);
      if (Array.isArray(block.content)) {
        block.content.forEach((inner: unknown, k) => {
          if (!isObj(inner)) refuse(`${where}.content.${k}: Input should be an object`);
          mark(inner);
          // [A-API] a tool result's content is text, image (or document / search result) blocks.
          if (inner.type === 'text') {
            if (typeof inner.text !== 'string' || inner.text === '') refuse('messages: text content blocks must be non-empty');
          } else if (inner.type === 'image') checkAnthropicImage(inner, `${where}.content.${k}`);
          else if (inner.type === 'document') checkAnthropicDocument(inner, `${where}.content.${k}`);
          else if (inner.type !== 'search_result') {
            refuse(`${where}.content.${k}: Input tag ${JSON.stringify(inner.type)} found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result'`);
          }
        });
      } else if (block.content !== undefined && typeof block.content !== 'string') {
        refuse(`${where}.content: Input should be a valid string or list of content blocks`);
      }
      return;
    case 'document':
      checkAnthropicDocument(block, where);
      return;
    default:
      return; // thinking, server tool blocks…: not checked beyond their cache marks
  }
}

/** [A-PDF] a document block: its source, and a base64 PDF that is one, of at most 100 pages. */
function checkAnthropicDocument(block: Obj, where: string): void {
  const source = block.source;
  if (!isObj(source)) refuse(`${where}.document.source: Field required`);
  for (const key of ['title', 'context'] as const) {
    if (block[key] !== undefined && block[key] !== null && typeof block[key] !== 'string') refuse(`${where}.document.${key}: Input should be a valid string`);
  }
  if (block.citations !== undefined && !(isObj(block.citations) && typeof block.citations.enabled === 'boolean')) {
    refuse(`${where}.document.citations: Input should be an object with a boolean "enabled"`);
  }
  switch (source.type) {
    case 'base64': {
      if (source.media_type !== 'application/pdf') {
        refuse(`${where}.document.source.base64.media_type: Input should be 'application/pdf' (got ${JSON.stringify(source.media_type)})`);
      }
      if (typeof source.data !== 'string' || source.data === '') refuse(`${where}.document.source.base64.data: Field required`);
      if (!BASE64.test(source.data)) refuse(`${where}.document.source.base64.data: Invalid base64 data`);
      const pdf = Buffer.from(source.data, 'base64').toString('latin1');
      if (!pdf.startsWith('%PDF-')) refuse(`${where}: The PDF specified was not valid.`);
      const pages = pdf.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
      if (pages > ANTHROPIC_MAX_PDF_PAGES) refuse(`${where}: A maximum of ${ANTHROPIC_MAX_PDF_PAGES} PDF pages may be provided (found ${pages}).`);
      return;
    }
    case 'text':
      if (source.media_type !== 'text/plain') refuse(`${where}.document.source.text.media_type: Input should be 'text/plain' (got ${JSON.stringify(source.media_type)})`);
      if (typeof source.data !== 'string') refuse(`${where}.document.source.text.data: Field required`);
      return;
    case 'url':
      if (typeof source.url !== 'string' || !/^https?:\/\//.test(source.url)) refuse(`${where}.document.source.url.url: Input should be an http(s) URL (got ${JSON.stringify(source.url)})`);
      return;
    case 'content':
      if (typeof source.content === 'string') return;
      if (!Array.isArray(source.content) || source.content.length === 0) refuse(`${where}.document.source.content.content: Input should be a non-empty list of text and image blocks`);
      source.content.forEach((inner: unknown, k) => {
        if (!isObj(inner) || (inner.type !== 'text' && inner.type !== 'image')) {
          refuse(`${where}.document.source.content.content.${k}: Input tag ${JSON.stringify(isObj(inner) ? inner.type : inner)} found using 'type' does not match any of the expected tags: 'text', 'image'`);
        }
        if (inner.type === 'image') checkAnthropicImage(inner, `${where}.document.source.content.content.${k}`);
      });
      return;
    case 'file':
      if (typeof source.file_id !== 'string' || source.file_id === '') refuse(`${where}.document.source.file.file_id: Field required`);
      return;
    default:
      refuse(`${where}.document.source: Input tag ${JSON.stringify(source.type)} found using 'type' does not match any of the expected tags: 'base64', 'text', 'url', 'content', 'file'`);
  }
}

/** [A-VISION] at most 100 images, each at most 8000 px a side (2000 px when the request holds more than 20). */
function checkAnthropicImageLimits(images: SeenImage[]): void {
  if (images.length > ANTHROPIC_MAX_IMAGES) refuse(`messages: Too many images in the request: ${images.length} > ${ANTHROPIC_MAX_IMAGES}`);
  const many = images.length > ANTHROPIC_MANY_IMAGES;
  const limit = many ? ANTHROPIC_MANY_MAX_EDGE : ANTHROPIC_MAX_EDGE;
  for (const image of images) {
    const size = imageDimensions(Buffer.from(image.data.slice(0, 1 << 20), 'base64'));
    if (!size || Math.max(size.width, size.height) <= limit) continue;
    refuse(
      `${image.where}.image.source.base64.data: At least one of the image dimensions exceed max allowed size${many ? ' for many-image requests' : ''}: ${limit} pixels (the image is ${size.width}×${size.height}${many ? `, in a request of ${images.length} images` : ''})`,
    );
  }
}

function checkAnthropicImage(block: Obj, where: string): void {
  const source = block.source;
  if (!isObj(source)) refuse(`${where}.image.source: Field required`);
  if (source.type === 'base64') {
    // [A-VISION] the four image types, data present, at most 5 MB.
    if (typeof source.media_type !== 'string' || !ANTHROPIC_IMAGE_TYPES.includes(source.media_type)) {
      refuse(`${where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp' (got ${JSON.stringify(source.media_type)})`);
    }
    if (typeof source.data !== 'string' || source.data === '') refuse(`${where}.image.source.base64.data: image data must not be empty`);
    // Measured on the base64 text, as the API measures it (the decoded image is three quarters of that).
    seenImages.push({ where, data: source.data });
    const length = source.data.length;
    if (length > ANTHROPIC_IMAGE_MAX_BASE64) refuse(`${where}.image.source.base64: image exceeds 5 MB maximum: ${length} bytes > ${ANTHROPIC_IMAGE_MAX_BASE64} bytes`);
  } else if (source.type === 'url') {
    if (typeof source.url !== 'string' || source.url === '') refuse(`${where}.image.source.url.url: Field required`);
  } else if (source.type !== 'file') {
    refuse(`${where}.image.source: Input tag ${JSON.stringify(source.type)} found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
  }
}

/** [A-TOOLS] tool_use ↔ tool_result: the next message answers every call, and only calls of the previous message. */
function checkAnthropicToolPairing(messages: Obj[]): void {
  const blocksOf = (m: Obj | undefined): Obj[] => (m && Array.isArray(m.content) ? (m.content as Obj[]) : []);
  messages.forEach((m, i) => {
    const blocks = blocksOf(m);
    if (m.role === 'user') {
      const previousCalls = new Set(
        messages[i - 1]?.role === 'assistant' ? blocksOf(messages[i - 1]).filter((b) => b.type === 'tool_use').map((b) => b.id as string) : [],
      );
      let seenOther = false;
      blocks.forEach((b, j) => {
        if (b.type !== 'tool_result') {
          seenOther = true;
          return;
        }
        if (!previousCalls.has(b.tool_use_id as string)) {
          refuse(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
        if (seenOther) refuse(`messages.${i}.content.${j}: \`tool_result\` blocks must come first in the content array, before any other block`);
      });
    }
    if (m.role === 'assistant' && i < messages.length - 1) {
      const calls = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      if (calls.length === 0) return;
      const next = messages[i + 1]!;
      const answered = new Set(next.role === 'user' ? blocksOf(next).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string) : []);
      const missing = calls.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        refuse(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
  });
}

// ─── OpenAI Chat Completions ───────────────────────────────────────────────────────────────────────────────────────

/** The refusal a real OpenAI Chat Completions API would answer `body` with, or undefined when it is valid. */
export function validateOpenAIRequest(body: unknown): ProviderRefusal | undefined {
  return run(() => checkOpenAI(body));
}

const OPENAI_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

function checkOpenAI(body: unknown): void {
  if (!isObj(body)) refuse('request body must be a JSON object');
  // [O-BODY] unknown body parameters are refused.
  for (const key of Object.keys(body)) if (!OPENAI_BODY.has(key)) refuse(`Unrecognized request argument supplied: ${key}`, null, null);
  if (typeof body.model !== 'string' || body.model === '') refuse("you must provide a model parameter", 'model', null);
  if (!Array.isArray(body.messages)) refuse("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  // [O-ERR]
  if (body.messages.length === 0) refuse("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');

  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) refuse("Invalid type for 'tools': expected an array of objects.", 'tools', 'invalid_type');
    // [O-ERR] an empty tools array is refused (leave `tools` out instead).
    if (body.tools.length === 0) refuse("Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'tools', 'empty_array');
    // [O-API] at most 128 functions.
    if (body.tools.length > OPENAI_MAX_TOOLS) {
      refuse(`Invalid 'tools': array too long. Expected an array with maximum length ${OPENAI_MAX_TOOLS}, but got an array with length ${body.tools.length} instead.`, 'tools', 'array_above_max_length');
    }
    body.tools.forEach((tool: unknown, i) => checkOpenAITool(tool, i));
  }

  const messages = body.messages as unknown[];
  openaiImages = [];
  messages.forEach((m, i) => checkOpenAIMessage(m, i));
  // [O-VISION] per request: at most 500 images, at most 50 MB of image bytes.
  if (openaiImages.length > OPENAI_MAX_IMAGES) {
    refuse(`Invalid 'messages': too many images in the request (${openaiImages.length}); at most ${OPENAI_MAX_IMAGES} are allowed.`, 'messages', 'invalid_value');
  }
  const total = openaiImages.reduce((sum, n) => sum + n, 0);
  if (total > OPENAI_IMAGES_MAX_BYTES) refuse(`Invalid 'messages': the images add up to ${total} bytes; at most ${OPENAI_IMAGES_MAX_BYTES} bytes of images are allowed per request.`, 'messages', 'invalid_value');
  checkOpenAIToolPairing(messages as Obj[]);
  checkDeepSeekReasoning(body, messages as Obj[]);
}

/**
 * [DS-THINK] DeepSeek, "Thinking Mode" (api-docs.deepseek.com/guides/thinking_mode; on by default for its models):
 * "for turns that do perform tool calls, the reasoning_content must be fully passed back to the API in all subsequent
 * requests. If your code does not correctly pass back reasoning_content, the API will return a 400 error" ("The
 * `reasoning_content` in the thinking mode must be passed back to the API."). Between two user messages without tool
 * calls, reasoning_content is ignored (neither required nor refused). Applied to models named deepseek-*.
 */
function checkDeepSeekReasoning(body: Obj, messages: Obj[]): void {
  if (typeof body.model !== 'string' || !body.model.startsWith('deepseek')) return;
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return;
    if (typeof m.reasoning_content !== 'string' || m.reasoning_content === '') {
      refuse('The `reasoning_content` in the thinking mode must be passed back to the API.', `messages[${i}].reasoning_content`, 'invalid_request_error');
    }
  });
}

/** Decoded sizes of the base64 images of the OpenAI request being checked. */
let openaiImages: number[] = [];

function checkOpenAITool(tool: unknown, i: number): void {
  const at = `tools[${i}]`;
  if (!isObj(tool)) refuse(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
  if (tool.type !== 'function') return; // custom tools have no parameters schema
  const fn = tool.function;
  if (!isObj(fn)) refuse(`Missing required parameter: '${at}.function'.`, `${at}.function`, 'missing_required_parameter');
  // [O-API] the name rule.
  if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) {
    refuse(`Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' of at most 64 characters (got ${JSON.stringify(fn.name)}).`, `${at}.function.name`, 'invalid_value');
  }
  if (fn.parameters === undefined) return; // "Omitting parameters defines a function with an empty parameter list."
  // [O-API], [O-ERR] the parameters are a JSON Schema object.
  if (!isObj(fn.parameters) || fn.parameters.type !== 'object') {
    const got = isObj(fn.parameters) ? fn.parameters.type : fn.parameters;
    refuse(`Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(got)}"'.`, `${at}.function.parameters`, 'invalid_function_parameters');
  }
  // [O-SO] strict functions follow the Structured Outputs schema subset.
  if (fn.strict === true) checkStrictSchema(fn.parameters, fn.name, []);
}

function checkStrictSchema(schema: unknown, fnName: string, path: string[]): void {
  if (!isObj(schema)) return;
  const where = path.length ? `('${path.join("', '")}')` : 'root';
  const fail = (why: string): never => refuse(`Invalid schema for function '${fnName}': In context=${where}, ${why}`, null, 'invalid_function_parameters');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || isObj(schema.properties)) {
    if (schema.additionalProperties !== false) fail("'additionalProperties' is required to be supplied and to be false.");
    const keys = Object.keys(isObj(schema.properties) ? schema.properties : {});
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const missing = keys.find((k) => !required.includes(k));
    if (missing !== undefined) fail(`'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`);
    for (const [k, v] of Object.entries(isObj(schema.properties) ? schema.properties : {})) checkStrictSchema(v, fnName, [...path, 'properties', k]);
  }
  if (schema.items !== undefined) checkStrictSchema(schema.items, fnName, [...path, 'items']);
  for (const key of ['anyOf', '$defs', 'definitions'] as const) {
    const sub = schema[key];
    if (Array.isArray(sub)) sub.forEach((s, n) => checkStrictSchema(s, fnName, [...path, key, String(n)]));
    else if (isObj(sub)) for (const [k, v] of Object.entries(sub)) checkStrictSchema(v, fnName, [...path, key, k]);
  }
}

function checkOpenAIMessage(m: unknown, i: number): void {
  const at = `messages[${i}]`;
  if (!isObj(m)) refuse(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
  if (typeof m.role !== 'string' || !OPENAI_ROLES.includes(m.role)) {
    refuse(`Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `${at}.role`, 'invalid_value');
  }
  const content = m.content;
  if (Array.isArray(content) && content.length === 0) {
    refuse(`Invalid '${at}.content': empty array. Expected an array with minimum length 1, but got an empty array instead.`, `${at}.content`, 'empty_array');
  }
  switch (m.role) {
    case 'assistant': {
      if (m.tool_calls !== undefined) {
        if (!Array.isArray(m.tool_calls)) refuse(`Invalid type for '${at}.tool_calls': expected an array.`, `${at}.tool_calls`, 'invalid_type');
        // [O-ERR]
        if (m.tool_calls.length === 0) refuse(`Invalid '${at}.tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`, `${at}.tool_calls`, 'empty_array');
        m.tool_calls.forEach((call: unknown, j) => {
          if (!isObj(call) || typeof call.id !== 'string' || call.id === '') refuse(`Missing required parameter: '${at}.tool_calls[${j}].id'.`, `${at}.tool_calls[${j}].id`, 'missing_required_parameter');
          if (!isObj(call.function) || typeof call.function.name !== 'string' || typeof call.function.arguments !== 'string') {
            refuse(`Missing required parameter: '${at}.tool_calls[${j}].function'.`, `${at}.tool_calls[${j}].function`, 'missing_required_parameter');
          }
        });
      }
      // [O-API] content is "Required unless tool_calls or function_call is specified".
      const hasCalls = Array.isArray(m.tool_calls) || m.function_call !== undefined;
      if ((content === undefined || content === null) && !hasCalls) {
        refuse(`Invalid value for '${at}.content': expected a string, got null.`, `${at}.content`, null);
      }
      if (Array.isArray(content)) content.forEach((p: unknown, j) => checkTextOnlyPart(p, `${at}.content[${j}]`, ['text', 'refusal']));
      return;
    }
    case 'tool':
      if (typeof m.tool_call_id !== 'string') refuse(`Missing required parameter: '${at}.tool_call_id'.`, `${at}.tool_call_id`, 'missing_required_parameter');
      if (typeof content !== 'string' && !Array.isArray(content)) refuse(`Invalid type for '${at}.content': expected one of a string or array of objects.`, `${at}.content`, 'invalid_type');
      // [O-API] a tool message's parts are text.
      if (Array.isArray(content)) content.forEach((p: unknown, j) => checkTextOnlyPart(p, `${at}.content[${j}]`, ['text']));
      return;
    case 'system':
    case 'developer':
      if (typeof content !== 'string' && !Array.isArray(content)) refuse(`Invalid type for '${at}.content': expected one of a string or array of objects.`, `${at}.content`, 'invalid_type');
      if (Array.isArray(content)) content.forEach((p: unknown, j) => checkTextOnlyPart(p, `${at}.content[${j}]`, ['text']));
      return;
    case 'user':
      if (typeof content !== 'string' && !Array.isArray(content)) refuse(`Invalid type for '${at}.content': expected one of a string or array of objects.`, `${at}.content`, 'invalid_type');
      if (Array.isArray(content)) content.forEach((p: unknown, j) => checkUserPart(p, `${at}.content[${j}]`));
      return;
    default:
      return;
  }
}

function checkTextOnlyPart(p: unknown, at: string, allowed: string[]): void {
  if (!isObj(p) || !allowed.includes(p.type as string)) {
    refuse(`Invalid value: '${String(isObj(p) ? p.type : p)}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(' and ')}.`, `${at}.type`, 'invalid_value');
  }
  if (p.type === 'text' && typeof p.text !== 'string') refuse(`Missing required parameter: '${at}.text'.`, `${at}.text`, 'missing_required_parameter');
}

function checkUserPart(p: unknown, at: string): void {
  if (!isObj(p)) refuse(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
  switch (p.type) {
    case 'text':
      if (typeof p.text !== 'string') refuse(`Missing required parameter: '${at}.text'.`, `${at}.text`, 'missing_required_parameter');
      return;
    case 'image_url': {
      // [O-API] {image_url: {url, detail?}}; [O-VISION] a data URL carries an image type.
      const image = p.image_url;
      if (!isObj(image) || typeof image.url !== 'string' || image.url === '') refuse(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`, 'missing_required_parameter');
      if (image.detail !== undefined && !['auto', 'low', 'high'].includes(image.detail as string)) {
        refuse(`Invalid value: '${String(image.detail)}'. Supported values are: 'auto', 'low', and 'high'.`, `${at}.image_url.detail`, 'invalid_value');
      }
      if (image.url.startsWith('data:')) {
        const match = /^data:([^;,]+);base64,(.*)$/s.exec(image.url);
        if (!match || !OPENAI_IMAGE_TYPES.includes(match[1]!)) {
          refuse(
            `Invalid '${at}.image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got ${match ? `unsupported MIME type '${match[1]}'` : 'a value that is not one'}.`,
            `${at}.image_url.url`,
            'invalid_value',
          );
        }
        if (match[2] === '') refuse(`Invalid '${at}.image_url.url': the data URL carries no image data.`, `${at}.image_url.url`, 'invalid_value');
        // [O-VISION] at most 20 MB per image.
        const bytes = base64Bytes(match[2]!);
        if (bytes > OPENAI_IMAGE_MAX_BYTES) refuse(`Invalid '${at}.image_url.url': the image is ${bytes} bytes; at most ${OPENAI_IMAGE_MAX_BYTES} bytes are allowed per image.`, `${at}.image_url.url`, 'invalid_value');
        openaiImages.push(bytes);
      } else if (!/^https?:\/\//.test(image.url)) {
        refuse(`Invalid '${at}.image_url.url'. Expected a valid URL or a base64-encoded data URL.`, `${at}.image_url.url`, 'invalid_value');
      }
      return;
    }
    case 'input_audio': {
      // [O-FILE] {input_audio: {data, format}}.
      const audio = p.input_audio;
      if (!isObj(audio) || typeof audio.data !== 'string' || audio.data === '') refuse(`Missing required parameter: '${at}.input_audio.data'.`, `${at}.input_audio.data`, 'missing_required_parameter');
      if (!BASE64.test(audio.data)) refuse(`Invalid '${at}.input_audio.data': expected base64-encoded audio data.`, `${at}.input_audio.data`, 'invalid_value');
      if (audio.format !== 'wav' && audio.format !== 'mp3') refuse(`Invalid value: '${String(audio.format)}'. Supported values are: 'wav' and 'mp3'.`, `${at}.input_audio.format`, 'invalid_value');
      return;
    }
    case 'file': {
      // [O-FILE] {file: {file_data (a base64 data URL of a PDF), filename}} or {file: {file_id}}.
      const file = p.file;
      if (!isObj(file)) refuse(`Missing required parameter: '${at}.file'.`, `${at}.file`, 'missing_required_parameter');
      if (typeof file.file_id === 'string' && file.file_id !== '') return;
      if (typeof file.file_data !== 'string' || file.file_data === '') {
        refuse(`Invalid '${at}.file': one of 'file_data' or 'file_id' must be provided.`, `${at}.file`, 'missing_required_parameter');
      }
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(file.file_data);
      if (!match || !BASE64.test(match[2]!) || match[2] === '') {
        refuse(`Invalid '${at}.file.file_data'. Expected a base64-encoded data URL (e.g. 'data:application/pdf;base64,JVBERi0=').`, `${at}.file.file_data`, 'invalid_value');
      }
      if (match[1] !== 'application/pdf') refuse(`Invalid '${at}.file.file_data': unsupported MIME type '${match[1]}'; only PDF files are supported.`, `${at}.file.file_data`, 'invalid_value');
      if (file.filename !== undefined && typeof file.filename !== 'string') refuse(`Invalid type for '${at}.file.filename': expected a string.`, `${at}.file.filename`, 'invalid_type');
      return;
    }
    default:
      refuse(`Invalid value: '${String(p.type)}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', and 'file'.`, `${at}.type`, 'invalid_value');
  }
}

/** [O-FC] every assistant tool call is answered by the tool messages right after it; no tool message answers nothing. */
function checkOpenAIToolPairing(messages: Obj[]): void {
  let open: Set<string> | undefined; // calls of the last assistant message, while only tool messages follow it
  let openAt = -1;
  const closeOpen = () => {
    if (open && open.size > 0) {
      refuse(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
        `messages.[${openAt}].role`,
        null,
      );
    }
    open = undefined;
  };
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!open || !open.has(m.tool_call_id as string)) {
        refuse(
          `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (no call ${JSON.stringify(m.tool_call_id)} is waiting for an answer).`,
          `messages.[${i}].role`,
          null,
        );
      }
      open.delete(m.tool_call_id as string);
      return;
    }
    closeOpen();
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      open = new Set((m.tool_calls as Obj[]).map((c) => c.id as string));
      openAt = i;
    }
  });
  // Tool messages ending the request must still answer every call; a final assistant message with tool calls (nothing
  // after it) is left alone.
  if (messages[messages.length - 1]?.role === 'tool') closeOpen();
}

// ─── OpenAI Responses ──────────────────────────────────────────────────────────────────────────────────────────────

const RESPONSES_BODY = new Set([
  'model', 'input', 'background', 'conversation', 'include', 'instructions', 'max_output_tokens', 'max_tool_calls',
  'metadata', 'parallel_tool_calls', 'previous_response_id', 'prompt', 'prompt_cache_key', 'prompt_cache_options',
  'prompt_cache_retention', 'reasoning', 'safety_identifier', 'service_tier', 'store', 'stream', 'stream_options',
  'temperature', 'text', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user',
]);
const RESPONSES_ROLES = ['user', 'system', 'developer', 'assistant'];
const RESPONSES_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/**
 * The encrypted content the scripted server gives a reasoning item (the real one is the model's whole reasoning,
 * encrypted by OpenAI; here an HMAC of the item id, checked the same way: a changed or foreign value is refused).
 */
export function reasoningEncryptedContent(itemId: string): string {
  return `gAAAAA${createHmac('sha256', 'scripted-reasoning').update(itemId).digest('base64')}`;
}

export function validateOpenAIResponsesRequest(body: unknown): ProviderRefusal | undefined {
  return run(() => checkResponses(body));
}

/**
 * [OR-API]   OpenAI, "Responses" API reference (POST /v1/responses): the body parameters (model, input, background,
 *            conversation, include, instructions, max_output_tokens, max_tool_calls, metadata, parallel_tool_calls,
 *            previous_response_id, prompt, prompt_cache_key, prompt_cache_options, prompt_cache_retention, reasoning
 *            {effort: none|minimal|low|medium|high|xhigh, summary: auto|concise|detailed}, safety_identifier,
 *            service_tier, store, stream, stream_options, temperature, text, tool_choice, tools, top_logprobs, top_p,
 *            truncation, user; anything else: "Unrecognized request argument supplied: <name>"); `input` items:
 *            messages (role user|system|developer|assistant; input_text/input_image/input_file parts, an assistant's
 *            output_text/refusal), `function_call` {call_id, name, arguments}, `function_call_output` {call_id,
 *            output}, `reasoning` {id, summary (required), encrypted_content}, `item_reference` {id}; a function tool
 *            is {type: "function", name, parameters, strict} where `strict` is "Default `true`": a tool that does not
 *            say `strict: false` follows the Structured Outputs subset [O-SO].
 * [OR-FC]    OpenAI, "Function calling" with the Responses API: each `function_call_output` answers a `function_call`
 *            with its `call_id` earlier in the input ("No tool call found for function call output with call_id …"),
 *            and each `function_call` is answered before the input goes on ("No tool output found for function call
 *            …").
 * [OR-REASON] OpenAI, "Reasoning models" → "Encrypted reasoning items" and "Keeping reasoning items in context": with
 *            `store: false` nothing is kept server-side, so a reasoning item must come back with the
 *            `encrypted_content` the API returned (`include: ["reasoning.encrypted_content"]`); an item given by id
 *            alone (or an `item_reference`) is "not found. Items are not persisted when `store` is set to false";
 *            encrypted content that is not the API's own for that item is refused; a reasoning item is followed by the
 *            item it led to ("Item 'rs_…' of type 'reasoning' was provided without its required following item.").
 */
function checkResponses(body: unknown): void {
  if (!isObj(body)) refuse('request body must be a JSON object');
  for (const key of Object.keys(body)) if (!RESPONSES_BODY.has(key)) refuse(`Unrecognized request argument supplied: ${key}`, null, null);
  if (typeof body.model !== 'string' || body.model === '') refuse('you must provide a model parameter', 'model', null);
  if (body.reasoning !== undefined) {
    if (!isObj(body.reasoning)) refuse("Invalid type for 'reasoning': expected an object.", 'reasoning', 'invalid_type');
    const { effort, summary } = body.reasoning;
    if (effort !== undefined && effort !== null && !RESPONSES_EFFORTS.includes(effort as string)) {
      refuse(`Invalid value: '${String(effort)}'. Supported values are: ${RESPONSES_EFFORTS.map((e) => `'${e}'`).join(', ')}.`, 'reasoning.effort', 'invalid_value');
    }
    if (summary !== undefined && summary !== null && !['auto', 'concise', 'detailed'].includes(summary as string)) {
      refuse(`Invalid value: '${String(summary)}'. Supported values are: 'auto', 'concise', and 'detailed'.`, 'reasoning.summary', 'invalid_value');
    }
  }
  if (body.include !== undefined && !Array.isArray(body.include)) refuse("Invalid type for 'include': expected an array of strings.", 'include', 'invalid_type');
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) refuse("Invalid type for 'tools': expected an array of objects.", 'tools', 'invalid_type');
    body.tools.forEach((tool: unknown, i) => {
      const at = `tools[${i}]`;
      if (!isObj(tool)) refuse(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
      if (tool.type !== 'function') return;
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
        refuse(`Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `${at}.name`, 'invalid_value');
      }
      if (!isObj(tool.parameters) || tool.parameters.type !== 'object') refuse(`Invalid schema for function '${tool.name}': schema must be a JSON Schema of 'type: "object"'.`, `${at}.parameters`, 'invalid_function_parameters');
      if (tool.strict !== false) checkStrictSchema(tool.parameters, tool.name, []);
    });
  }
  if (typeof body.input === 'string') return;
  if (!Array.isArray(body.input)) refuse("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const input = body.input as unknown[];
  const store = body.store !== false;
  const calls = new Set<string>();
  const open = new Map<string, number>();
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObj(item)) refuse(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    switch (type) {
      case 'message': {
        if (!RESPONSES_ROLES.includes(item.role as string)) refuse(`Invalid value: '${String(item.role)}'. Supported values are: 'user', 'system', 'developer', and 'assistant'.`, `${at}.role`, 'invalid_value');
        const parts = item.content;
        if (typeof parts !== 'string' && !Array.isArray(parts)) refuse(`Invalid type for '${at}.content': expected one of a string or array of objects.`, `${at}.content`, 'invalid_type');
        const allowed = item.role === 'assistant' ? ['output_text', 'refusal'] : ['input_text', 'input_image', 'input_file'];
        if (Array.isArray(parts)) {
          parts.forEach((p: unknown, j) => {
            if (!isObj(p) || !allowed.includes(p.type as string)) refuse(`Invalid value: '${String(isObj(p) ? p.type : p)}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(', ')}.`, `${at}.content[${j}].type`, 'invalid_value');
            if ((p.type === 'input_text' || p.type === 'output_text') && typeof p.text !== 'string') refuse(`Missing required parameter: '${at}.content[${j}].text'.`, `${at}.content[${j}].text`, 'missing_required_parameter');
          });
        }
        break;
      }
      case 'function_call':
        if (typeof item.call_id !== 'string' || item.call_id === '') refuse(`Missing required parameter: '${at}.call_id'.`, `${at}.call_id`, 'missing_required_parameter');
        if (typeof item.name !== 'string' || typeof item.arguments !== 'string') refuse(`Missing required parameter: '${at}.arguments'.`, `${at}.arguments`, 'missing_required_parameter');
        calls.add(item.call_id);
        open.set(item.call_id, i);
        break;
      case 'function_call_output':
        if (typeof item.call_id !== 'string' || !calls.has(item.call_id)) refuse(`No tool call found for function call output with call_id ${String(item.call_id)}.`, `${at}`, null);
        if (typeof item.output !== 'string' && !Array.isArray(item.output)) refuse(`Invalid type for '${at}.output': expected one of a string or array of objects.`, `${at}.output`, 'invalid_type');
        open.delete(item.call_id);
        break;
      case 'reasoning': {
        const id = typeof item.id === 'string' ? item.id : null;
        if (!Array.isArray(item.summary)) refuse(`Missing required parameter: '${at}.summary'.`, `${at}.summary`, 'missing_required_parameter');
        if (typeof item.encrypted_content !== 'string') {
          if (!store) refuse(`Item with id '${id ?? ''}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, `${at}`, null);
        } else if (id === null || item.encrypted_content !== reasoningEncryptedContent(id)) {
          refuse(`The encrypted content for item ${id ?? `${at}`} could not be verified.`, `${at}.encrypted_content`, 'invalid_encrypted_content');
        }
        const next = input[i + 1];
        const follows = isObj(next) && (next.type === 'function_call' || next.type === 'reasoning' || ((next.type ?? 'message') === 'message' && next.role === 'assistant'));
        if (!follows) refuse(`Item '${id ?? `${at}`}' of type 'reasoning' was provided without its required following item.`, `${at}`, null);
        break;
      }
      case 'item_reference':
        if (!store) refuse(`Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, `${at}`, null);
        break;
      default:
        refuse(`Invalid value: '${String(type)}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning', and 'item_reference'.`, `${at}.type`, 'invalid_value');
    }
    // [OR-FC] a call is answered before anything but another call or its output comes.
    if (type !== 'function_call' && type !== 'function_call_output' && open.size > 0) {
      refuse(`No tool output found for function call ${[...open.keys()][0]}.`, `input[${[...open.values()][0]}]`, null);
    }
  });
  if (open.size > 0) refuse(`No tool output found for function call ${[...open.keys()][0]}.`, `input[${[...open.values()][0]}]`, null);
}

// ─── OpenAI images and audio ───────────────────────────────────────────────────────────────────────────────────────

const IMAGE_BODY = new Set(['prompt', 'background', 'model', 'moderation', 'n', 'output_compression', 'output_format', 'partial_images', 'quality', 'response_format', 'size', 'stream', 'style', 'user']);
/** [O-IMG] sizes and prompt lengths of OpenAI's own image models (a GPT image model by its name's prefix). */
function imageModelRules(model: string): { sizes: string[] | null; maxPrompt: number; maxN: number } {
  if (model === 'dall-e-2') return { sizes: ['256x256', '512x512', '1024x1024'], maxPrompt: 1000, maxN: 10 };
  if (model === 'dall-e-3') return { sizes: ['1024x1024', '1792x1024', '1024x1792'], maxPrompt: 4000, maxN: 1 };
  if (model.startsWith('gpt-image-')) return { sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'], maxPrompt: 32000, maxN: 10 };
  return { sizes: null, maxPrompt: 32000, maxN: 10 };
}

/** The refusal OpenAI's image generation endpoint would answer `body` with, or undefined. */
export function validateImageGeneration(body: unknown): ProviderRefusal | undefined {
  return run(() => {
    if (!isObj(body)) refuse('request body must be a JSON object');
    for (const key of Object.keys(body)) if (!IMAGE_BODY.has(key)) refuse(`Unrecognized request argument supplied: ${key}`);
    if (typeof body.prompt !== 'string' || body.prompt === '') refuse("Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
    const model = typeof body.model === 'string' ? body.model : 'dall-e-2';
    const rules = imageModelRules(model);
    if (body.prompt.length > rules.maxPrompt) {
      refuse(`Invalid 'prompt': string too long. Expected a string with maximum length ${rules.maxPrompt}, but got a string with length ${body.prompt.length} instead.`, 'prompt', 'string_above_max_length');
    }
    if (body.n !== undefined && body.n !== null && (!Number.isInteger(body.n) || (body.n as number) < 1 || (body.n as number) > rules.maxN)) {
      refuse(`Invalid 'n': ${String(body.n)}; ${model} takes n from 1 to ${rules.maxN}.`, 'n', 'invalid_value');
    }
    if (body.size !== undefined && body.size !== null) {
      const size = String(body.size);
      if (rules.sizes ? !rules.sizes.includes(size) : !/^[1-9]\d*x[1-9]\d*$/.test(size)) {
        refuse(`Invalid value: '${size}'. Supported values are: ${(rules.sizes ?? ['WIDTHxHEIGHT']).map((x) => `'${x}'`).join(', ')}.`, 'size', 'invalid_value');
      }
    }
    if (body.response_format !== undefined && body.response_format !== null && body.response_format !== 'url' && body.response_format !== 'b64_json') {
      refuse(`Invalid value: '${String(body.response_format)}'. Supported values are: 'url' and 'b64_json'.`, 'response_format', 'invalid_value');
    }
  });
}

const SPEECH_BODY = new Set(['model', 'input', 'voice', 'instructions', 'response_format', 'speed', 'stream_format']);
const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];
const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
/** [O-TTS] the most characters one speech request may carry. */
export const SPEECH_MAX_INPUT = 4096;

/** The refusal OpenAI's speech endpoint would answer `body` with, or undefined. */
export function validateSpeech(body: unknown): ProviderRefusal | undefined {
  return run(() => {
    if (!isObj(body)) refuse('request body must be a JSON object');
    for (const key of Object.keys(body)) if (!SPEECH_BODY.has(key)) refuse(`Unrecognized request argument supplied: ${key}`);
    if (typeof body.model !== 'string' || body.model === '') refuse("[{'type': 'missing', 'loc': ('body', 'model')}]", 'model', 'missing_required_parameter');
    if (typeof body.input !== 'string' || body.input === '') refuse("[{'type': 'missing', 'loc': ('body', 'input')}]", 'input', 'missing_required_parameter');
    if (body.input.length > SPEECH_MAX_INPUT) {
      refuse(`Invalid 'input': string too long. Expected a string with maximum length ${SPEECH_MAX_INPUT}, but got a string with length ${body.input.length} instead.`, 'input', 'string_above_max_length');
    }
    if (typeof body.voice !== 'string' || body.voice === '') refuse("[{'type': 'missing', 'loc': ('body', 'voice')}]", 'voice', 'missing_required_parameter');
    // OpenAI's own models take OpenAI's voices; another server's model its own.
    if (/^(tts-1|tts-1-hd|gpt-4o-mini-tts)(-|$)/.test(body.model) && !OPENAI_VOICES.includes(body.voice)) {
      refuse(`Invalid value: '${body.voice}'. Supported values are: ${OPENAI_VOICES.map((v) => `'${v}'`).join(', ')}.`, 'voice', 'invalid_value');
    }
    if (body.response_format !== undefined && !SPEECH_FORMATS.includes(body.response_format as string)) {
      refuse(`Invalid value: '${String(body.response_format)}'. Supported values are: ${SPEECH_FORMATS.map((v) => `'${v}'`).join(', ')}.`, 'response_format', 'invalid_value');
    }
    if (body.speed !== undefined && (typeof body.speed !== 'number' || body.speed < 0.25 || body.speed > 4)) {
      refuse(`Invalid 'speed': ${String(body.speed)}. Expected a number from 0.25 to 4.0.`, 'speed', 'invalid_value');
    }
  });
}

const TRANSCRIPTION_FIELDS = new Set(['file', 'model', 'chunking_strategy', 'include[]', 'language', 'prompt', 'response_format', 'stream', 'temperature', 'timestamp_granularities[]']);
const TRANSCRIPTION_TYPES = ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm'];
const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'];
/** [O-STT] the largest file a transcription request may carry. */
export const TRANSCRIPTION_MAX_BYTES = 25 * 1024 * 1024;

/** The refusal OpenAI's transcription endpoint would answer a multipart request with, or undefined. */
export function validateTranscription(fields: Record<string, unknown>, files: readonly { field: string; filename: string; size: number }[]): ProviderRefusal | undefined {
  return run(() => {
    for (const name of [...Object.keys(fields), ...files.map((f) => f.field)]) if (!TRANSCRIPTION_FIELDS.has(name)) refuse(`Unrecognized request argument supplied: ${name}`);
    if (typeof fields.model !== 'string' || fields.model === '') refuse('you must provide a model parameter', 'model', 'missing_required_parameter');
    const file = files.find((f) => f.field === 'file');
    if (!file || file.size === 0) refuse('you must provide a file parameter', 'file', 'missing_required_parameter');
    const ext = /\.([^.]+)$/.exec(file.filename)?.[1]?.toLowerCase() ?? '';
    if (!TRANSCRIPTION_TYPES.includes(ext)) {
      refuse(`Invalid file format. Supported formats: ${JSON.stringify(TRANSCRIPTION_TYPES)} (got ${JSON.stringify(file.filename)})`, 'file', 'invalid_value');
    }
    if (file.size > TRANSCRIPTION_MAX_BYTES) refuse(`Maximum content size limit (${TRANSCRIPTION_MAX_BYTES}) exceeded (${file.size} bytes read)`, 'file', null);
    if (fields.response_format !== undefined && !TRANSCRIPTION_FORMATS.includes(fields.response_format as string)) {
      refuse(`Invalid value: '${String(fields.response_format)}'. Supported values are: ${TRANSCRIPTION_FORMATS.map((v) => `'${v}'`).join(', ')}.`, 'response_format', 'invalid_value');
    }
    if (/^gpt-4o(-mini)?-transcribe/.test(fields.model) && fields.response_format !== undefined && fields.response_format !== 'json' && fields.response_format !== 'text') {
      refuse(`response_format '${String(fields.response_format)}' is not compatible with model '${fields.model}'. Use 'json' or 'text'.`, 'response_format', 'unsupported_value');
    }
  });
}
