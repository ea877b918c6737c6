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
 *             image/webp; at most 5 MB per image through the API.
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
 * - [O-VISION] OpenAI, "Images and vision": a base64 data URL with an image type PNG, JPEG, WEBP or non-animated GIF.
 * - [O-ERR]   OpenAI's documented validation answers for empty arrays ("Invalid 'tools': empty array. Expected an array
 *             with minimum length 1", code `empty_array`), and for a function whose parameters are not an object
 *             schema ("schema must be a JSON Schema of 'type: \"object\"'").
 *
 * Deliberately NOT rules (documented as allowed): Anthropic consecutive turns of the same role ("Consecutive user or
 * assistant turns in your request will be combined into a single turn", [A-API]) and an assistant first message
 * (accepted by the first-party API); JSON-schema keywords in non-strict tools (neither provider documents a refusal);
 * OpenAI's strict-mode keyword list (it changes and Deskhand sends no strict tools).
 */

export interface ProviderRefusal {
  /** HTTP status (every rule here is a 400 invalid_request_error at the providers). */
  status: 400;
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
const ANTHROPIC_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const ANTHROPIC_MAX_BREAKPOINTS = 4;
const OPENAI_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
const OPENAI_MAX_TOOLS = 128;

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

// ─── Anthropic Messages ────────────────────────────────────────────────────────────────────────────────────────────

/** The refusal a real Anthropic Messages API would answer `body` with, or undefined when it is valid. */
export function validateAnthropicRequest(body: unknown): ProviderRefusal | undefined {
  return run(() => checkAnthropic(body));
}

function checkAnthropic(body: unknown): void {
  if (!isObj(body)) refuse('request body must be a JSON object');
  // [A-API] max_tokens is a required body parameter, an integer of at least 1.
  if (body.max_tokens === undefined) refuse('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) refuse('max_tokens: Input should be an integer greater than or equal to 1');
  if (typeof body.model !== 'string' || body.model === '') refuse('model: Field required');
  if (!Array.isArray(body.messages)) refuse('messages: Field required');
  if (body.messages.length === 0) refuse('messages: at least one message is required');

  let breakpoints = 0;
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

  // [A-CACHE] at most four cache breakpoints in the whole request.
  if (breakpoints > ANTHROPIC_MAX_BREAKPOINTS) {
    refuse(`A maximum of ${ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  }

  checkAnthropicToolPairing(messages as Obj[]);
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
          else if (inner.type !== 'document' && inner.type !== 'search_result') {
            refuse(`${where}.content.${k}: Input tag ${JSON.stringify(inner.type)} found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result'`);
          }
        });
      } else if (block.content !== undefined && typeof block.content !== 'string') {
        refuse(`${where}.content: Input should be a valid string or list of content blocks`);
      }
      return;
    default:
      return; // document, thinking, server tool blocks…: not checked beyond their cache marks
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
    const bytes = base64Bytes(source.data);
    if (bytes > ANTHROPIC_IMAGE_MAX_BYTES) refuse(`${where}.image.source.base64: image exceeds 5 MB maximum: ${bytes} bytes > ${ANTHROPIC_IMAGE_MAX_BYTES} bytes`);
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
  messages.forEach((m, i) => checkOpenAIMessage(m, i));
  checkOpenAIToolPairing(messages as Obj[]);
}

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
      } else if (!/^https?:\/\//.test(image.url)) {
        refuse(`Invalid '${at}.image_url.url'. Expected a valid URL or a base64-encoded data URL.`, `${at}.image_url.url`, 'invalid_value');
      }
      return;
    }
    case 'input_audio':
    case 'file':
      return;
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
