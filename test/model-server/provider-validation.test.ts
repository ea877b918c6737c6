/**
 * The scripted model server refuses what the real providers document as invalid (test/support/provider-validation.ts):
 * each invalid shape gets the provider's status, error body and a message naming the problem; valid bodies (the
 * providers' own shapes, and whole requests the real runtime sends with Deskhand's full tool set) pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/main/runtime/runtime';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, takeUnexpectedRefusals, type ModelServer } from '../support/model-server';
import { imageDimensions, validateAnthropicRequest, validateOpenAIRequest, validateOpenAIResponsesRequest } from '../support/provider-validation';
import { tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';

type Body = Record<string, unknown>;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAGUlEQVR4AQXBAQ0AAAzDIJbcv+UeRNJNwgM+/wYAjSzeDQAAAABJRU5ErkJggg==';
/** A PDF of one page (what a document block carries). */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n').toString('base64');
/** Images built once (jimp): base64 PNGs and a JPEG past the providers' dimension limits. */
const big: Record<'png8001' | 'jpeg8001' | 'png2001', string> = { png8001: '', jpeg8001: '', png2001: '' };
beforeAll(async () => {
  big.png8001 = (await new Jimp(8001, 1).getBufferAsync(Jimp.MIME_PNG)).toString('base64');
  big.jpeg8001 = (await new Jimp(1, 8001).getBufferAsync(Jimp.MIME_JPEG)).toString('base64');
  big.png2001 = (await new Jimp(2001, 1).getBufferAsync(Jimp.MIME_PNG)).toString('base64');
});
const image = (data: string) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
const dataUrl = (data: string) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } });

// A request in the shape @ai-sdk/anthropic sends for Deskhand: tools with the last one marked, the system prompt
// marked, a tool round trip, an image in a tool result, and the newest message marked.
const anthropicValid = (): Body => ({
  model: 'claude-test',
  max_tokens: 4096,
  stream: true,
  tools: [
    { name: 'read_file', description: 'Read', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } },
    { name: 'read_media_file', description: 'Media', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
  ],
  tool_choice: { type: 'auto' },
  system: [{ type: 'text', text: 'You are Deskhand.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'read a.txt and show me b.png' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
        { type: 'tool_use', id: 'toolu_2', name: 'read_media_file', input: { path: 'b.png' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello', is_error: false },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [
            { type: 'text', text: 'b.png, 2×2' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
        { type: 'text', text: 'and be quick', cache_control: { type: 'ephemeral' } },
      ],
    },
  ],
});

// The shape @ai-sdk/openai sends: a tool round trip, the image that followed the tool messages in a user message.
const openaiValid = (): Body => ({
  model: 'gpt-test',
  stream: true,
  stream_options: { include_usage: true },
  tools: [
    { type: 'function', function: { name: 'read_file', description: 'Read', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
    { type: 'function', function: { name: 'ls', parameters: { type: 'object', properties: {} } } },
  ],
  tool_choice: 'auto',
  messages: [
    { role: 'system', content: 'You are Deskhand.' },
    { role: 'user', content: 'read a.txt and list' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
        { id: 'call_2', type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
    { role: 'tool', tool_call_id: 'call_2', content: 'a.txt b.png' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'The image read_media_file returned' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_3', content: [{ type: 'text', text: 'a.txt' }] },
  ],
});

type Msg = { role: string; content: unknown; [k: string]: unknown };
const msgs = (b: Body) => b.messages as Msg[];
const blocks = (b: Body, i: number) => msgs(b)[i]!.content as Record<string, unknown>[];

interface Case {
  name: string;
  edit(body: Body): void;
  /** What the refusal's message must say (names the problem). */
  says: RegExp;
  /** OpenAI's `param` / `code`, where set. */
  param?: string;
  code?: string;
}

const anthropicInvalid: Case[] = [
  { name: 'five cache breakpoints', edit: (b) => {
      blocks(b, 0)[0]!.cache_control = { type: 'ephemeral' };
      blocks(b, 1)[0]!.cache_control = { type: 'ephemeral' };
    }, says: /maximum of 4 blocks with cache_control.*Found 5/ },
  { name: 'cache marks on every tool', edit: (b) => (b.tools as Body[]).push(...['a', 'b', 'c'].map((n) => ({ name: n, input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }))), says: /maximum of 4 blocks with cache_control.*Found 6/ },
  { name: 'a cache mark inside a tool result counts too', edit: (b) => {
      (blocks(b, 2)[1]!.content as Body[])[0]!.cache_control = { type: 'ephemeral' };
      (b.tools as Body[])[0]!.cache_control = { type: 'ephemeral' };
    }, says: /Found 5/ },
  { name: 'a tool name with a dot', edit: (b) => ((b.tools as Body[])[0]!.name = 'mcp.read_file'), says: /tools\.0\.custom\.name.*\^\[a-zA-Z0-9_-\]\{1,64\}\$.*mcp\.read_file/ },
  { name: 'a tool name with a space', edit: (b) => ((b.tools as Body[])[0]!.name = 'read file'), says: /tools\.0\.custom\.name.*pattern/ },
  { name: 'a tool name of 65 characters', edit: (b) => ((b.tools as Body[])[1]!.name = 'x'.repeat(65)), says: /tools\.1\.custom\.name.*pattern/ },
  { name: 'an empty tool name', edit: (b) => ((b.tools as Body[])[1]!.name = ''), says: /tools\.1\.custom\.name.*pattern/ },
  { name: 'a tool name with a slash', edit: (b) => ((b.tools as Body[])[1]!.name = 'server/tool'), says: /tools\.1\.custom\.name.*pattern/ },
  { name: 'two tools of one name', edit: (b) => ((b.tools as Body[])[1]!.name = 'read_file'), says: /Tool names must be unique/ },
  { name: 'an input_schema of type string', edit: (b) => ((b.tools as Body[])[0]!.input_schema = { type: 'string' }), says: /input_schema\.type: Input should be 'object'/ },
  { name: 'an input_schema with no type', edit: (b) => ((b.tools as Body[])[0]!.input_schema = { properties: {} }), says: /input_schema\.type: Input should be 'object'/ },
  { name: 'an input_schema that is anyOf at the root', edit: (b) => ((b.tools as Body[])[0]!.input_schema = { anyOf: [{ type: 'object' }] }), says: /input_schema\.type/ },
  { name: 'no input_schema', edit: (b) => delete (b.tools as Body[])[0]!.input_schema, says: /input_schema: Field required/ },
  { name: 'a tool result whose id matches no call', edit: (b) => blocks(b, 2).splice(2, 0, { type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }), says: /unexpected `tool_use_id`.*toolu_9/ },
  { name: 'a tool result after a user text (not after the call)', edit: (b) => msgs(b).splice(2, 0, { role: 'user', content: 'wait' }), says: /tool_use` ids were found without `tool_result` blocks immediately after: toolu_1, toolu_2/ },
  { name: 'a tool call left without its result', edit: (b) => blocks(b, 2).splice(1, 1), says: /without `tool_result` blocks immediately after: toolu_2/ },
  { name: 'a tool call answered by an assistant turn', edit: (b) => msgs(b).splice(2, 1, { role: 'assistant', content: 'done' }, { role: 'user', content: 'ok' }), says: /immediately after: toolu_1, toolu_2/ },
  { name: 'text before the tool results', edit: (b) => blocks(b, 2).unshift({ type: 'text', text: 'results:' }), says: /messages\.2\.content\.1: `tool_result` blocks must come first/ },
  { name: 'a tool result in the first message', edit: (b) => blocks(b, 0).unshift({ type: 'tool_result', tool_use_id: 'toolu_0', content: 'x' }), says: /unexpected `tool_use_id`.*toolu_0/ },
  { name: 'an empty text block', edit: (b) => (blocks(b, 1)[0]!.text = ''), says: /text content blocks must be non-empty/ },
  ...[' ', '\n', '\n\n  \t', '\u00a0'].map((text) => ({ name: `an assistant text block of whitespace only (${JSON.stringify(text)})`, edit: (b: Body) => (blocks(b, 1)[0]!.text = text), says: /text content blocks must contain non-whitespace text/ })),
  { name: 'a user text block of whitespace only', edit: (b) => (blocks(b, 0)[0]!.text = '  '), says: /messages: text content blocks must contain non-whitespace text/ },
  ...['functions.read_file:0', 'call 1', 'call/1', 'tool:1', 'tōol_1', 'a.b'].map((id) => ({
    name: `a tool_use id outside ^[a-zA-Z0-9_-]+$ (${id})`,
    edit: (b: Body) => {
      blocks(b, 1)[1]!.id = id;
      blocks(b, 2)[0]!.tool_use_id = id;
    },
    says: /messages\.1\.content\.1\.tool_use\.id: String should match pattern '\^\[a-zA-Z0-9_-\]\+\$'/,
  })),
  { name: 'two tool_use blocks with one id in a message', edit: (b) => {
      blocks(b, 1)[2]!.id = 'toolu_1';
      blocks(b, 2)[1]!.tool_use_id = 'toolu_1';
    }, says: /messages\.1\.content\.2: `tool_use` ids must be unique/ },
  { name: 'a tool_use id used again in a later message', edit: (b) => msgs(b).push(
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'again' }] },
    ), says: /messages\.3\.content\.0: `tool_use` ids must be unique/ },
  { name: 'an empty text block in the system prompt', edit: (b) => ((b.system as Body[])[0]!.text = ''), says: /system: text content blocks must be non-empty/ },
  { name: 'an empty text block in a tool result', edit: (b) => ((blocks(b, 2)[1]!.content as Body[])[0]!.text = ''), says: /text content blocks must be non-empty/ },
  { name: 'an empty content list', edit: (b) => (msgs(b)[0]!.content = []), says: /messages\.0: all messages must have non-empty content/ },
  { name: 'an empty content string', edit: (b) => msgs(b).push({ role: 'assistant', content: 'ok' }, { role: 'user', content: '' }), says: /messages\.4: all messages must have non-empty content/ },
  { name: 'an empty assistant turn mid-conversation', edit: (b) => msgs(b).push({ role: 'assistant', content: [] }, { role: 'user', content: 'go on' }), says: /messages\.3: all messages must have non-empty content/ },
  { name: 'a system role inside messages', edit: (b) => msgs(b).unshift({ role: 'system', content: 'Be brief.' }), says: /messages\.0\.role: Input should be 'user' or 'assistant'.*top-level "system"/ },
  { name: 'a tool role (OpenAI style) inside messages', edit: (b) => msgs(b).push({ role: 'tool', content: 'x' }), says: /messages\.3\.role: Input should be 'user' or 'assistant'/ },
  { name: 'an image of type image/bmp', edit: (b) => (((blocks(b, 2)[1]!.content as Body[])[1]!.source as Body).media_type = 'image/bmp'), says: /media_type: Input should be 'image\/jpeg', 'image\/png', 'image\/gif' or 'image\/webp'.*image\/bmp/ },
  { name: 'an image with no media_type', edit: (b) => delete ((blocks(b, 2)[1]!.content as Body[])[1]!.source as Body).media_type, says: /media_type: Input should be/ },
  { name: 'an image with empty data', edit: (b) => (((blocks(b, 2)[1]!.content as Body[])[1]!.source as Body).data = ''), says: /base64\.data: image data must not be empty/ },
  { name: 'an image of more than 5 MB', edit: (b) => (((blocks(b, 2)[1]!.content as Body[])[1]!.source as Body).data = 'A'.repeat(7_000_004)), says: /image exceeds 5 MB maximum: 7000004 bytes > 5242880 bytes/ },
  { name: 'an image of 4 MB decoded, 5.3 MB as base64 (the limit is on the base64 text)', edit: (b) => (((blocks(b, 2)[1]!.content as Body[])[1]!.source as Body).data = 'A'.repeat(5_592_408)), says: /image exceeds 5 MB maximum: 5592408 bytes > 5242880 bytes/ },
  { name: '101 images in one request', edit: (b) => blocks(b, 0).push(...Array.from({ length: 100 }, () => image(PNG))), says: /Too many images in the request: 101 > 100/ },
  { name: 'a PNG 8001 px wide', edit: (b) => blocks(b, 0).push(image(big.png8001)), says: /messages\.0\.content\.1\.image\.source\.base64\.data: At least one of the image dimensions exceed max allowed size: 8000 pixels \(the image is 8001×1\)/ },
  { name: 'a JPEG 8001 px high', edit: (b) => blocks(b, 0).push({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: big.jpeg8001 } }), says: /exceed max allowed size: 8000 pixels \(the image is 1×8001\)/ },
  { name: 'a PNG 2001 px wide among 21 images', edit: (b) => blocks(b, 0).push(image(big.png2001), ...Array.from({ length: 19 }, () => image(PNG))), says: /exceed max allowed size for many-image requests: 2000 pixels \(the image is 2001×1, in a request of 21 images\)/ },
  { name: 'an unknown body parameter', edit: (b) => (b.temperature_boost = 1), says: /^temperature_boost: Extra inputs are not permitted$/ },
  { name: 'an OpenAI body parameter', edit: (b) => (b.stream_options = { include_usage: true }), says: /^stream_options: Extra inputs are not permitted$/ },
  { name: 'a document with no source', edit: (b) => blocks(b, 0).push({ type: 'document' }), says: /messages\.0\.content\.1\.document\.source: Field required/ },
  { name: 'a base64 document that is HTML', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'base64', media_type: 'text/html', data: PDF } }), says: /document\.source\.base64\.media_type: Input should be 'application\/pdf' \(got "text\/html"\)/ },
  { name: 'a base64 "PDF" that is not one', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: Buffer.from('<html></html>').toString('base64') } }), says: /The PDF specified was not valid/ },
  { name: 'a PDF of 101 pages', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: Buffer.from(`%PDF-1.4\n${'<< /Type /Page >>\n'.repeat(101)}`).toString('base64') } }), says: /A maximum of 100 PDF pages may be provided \(found 101\)/ },
  { name: 'a PDF whose data is not base64', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: '%PDF-1.4 raw' } }), says: /base64\.data: Invalid base64 data/ },
  { name: 'a text document of media_type text/markdown', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'text', media_type: 'text/markdown', data: '# x' } }), says: /document\.source\.text\.media_type: Input should be 'text\/plain'/ },
  { name: 'a url document naming a file path', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'url', url: '/tmp/a.pdf' } }), says: /document\.source\.url\.url: Input should be an http\(s\) URL/ },
  { name: 'a document source of an unknown type', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'path', path: '/tmp/a.pdf' } }), says: /expected tags: 'base64', 'text', 'url', 'content', 'file'/ },
  { name: 'a content document holding a tool_use block', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'content', content: [{ type: 'tool_use', id: 'x', name: 'ls', input: {} }] } }), says: /document\.source\.content\.content\.0: Input tag "tool_use"/ },
  { name: 'a document in a tool result that is not a PDF', edit: (b) => (blocks(b, 2)[1]!.content as Body[]).push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'AAAA' } }), says: /messages\.2\.content\.1\.content\.2: The PDF specified was not valid/ },
  { name: 'a document title that is not a string', edit: (b) => blocks(b, 0).push({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' }, title: 7 }), says: /document\.title: Input should be a valid string/ },
  { name: 'an image block with no source', edit: (b) => blocks(b, 0).push({ type: 'image' }), says: /messages\.0\.content\.1\.image\.source: Field required/ },
  { name: 'an image source of an unknown type', edit: (b) => blocks(b, 0).push({ type: 'image', source: { type: 'path', path: '/tmp/a.png' } }), says: /does not match any of the expected tags: 'base64', 'url', 'file'/ },
  { name: 'an OpenAI image_url part', edit: (b) => ((blocks(b, 2)[1]!.content as Body[])[1] = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }), says: /content\.1: Input tag "image_url".*'text', 'image'/ },
  { name: 'no max_tokens', edit: (b) => delete b.max_tokens, says: /max_tokens: Field required/ },
  { name: 'max_tokens of 0', edit: (b) => (b.max_tokens = 0), says: /max_tokens: Input should be an integer greater than or equal to 1/ },
  { name: 'no messages', edit: (b) => (b.messages = []), says: /at least one message is required/ },
  { name: 'a tool_use with string input', edit: (b) => (blocks(b, 1)[1]!.input = '{"path":"a.txt"}'), says: /messages\.1\.content\.1\.input: Input should be a valid dictionary/ },
];

const openaiInvalid: Case[] = [
  { name: 'a tool message whose id matches no call', edit: (b) => (msgs(b)[3]!.tool_call_id = 'call_9'), says: /role 'tool' must be a response to a preceeding message with 'tool_calls'.*call_9/, param: 'messages.[3].role' },
  { name: 'a tool message with no call before it', edit: (b) => msgs(b).splice(1, 0, { role: 'tool', tool_call_id: 'call_1', content: 'x' }), says: /must be a response to a preceeding message with 'tool_calls'/, param: 'messages.[1].role' },
  { name: 'a tool message answering the same call twice', edit: (b) => msgs(b).splice(4, 0, { role: 'tool', tool_call_id: 'call_1', content: 'again' }), says: /must be a response to a preceeding message.*call_1/ },
  { name: 'a call left without its tool message', edit: (b) => msgs(b).splice(4, 1), says: /must be followed by tool messages responding to each 'tool_call_id'.*call_2/, param: 'messages.[2].role' },
  { name: 'a user message between the call and its answer', edit: (b) => msgs(b).splice(3, 0, { role: 'user', content: 'stop' }), says: /did not have response messages: call_1, call_2/ },
  { name: 'the last call left unanswered', edit: (b) => msgs(b).push({ role: 'assistant', content: null, tool_calls: [{ id: 'call_4', type: 'function', function: { name: 'ls', arguments: '{}' } }, { id: 'call_5', type: 'function', function: { name: 'ls', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_4', content: 'x' }), says: /did not have response messages: call_5/ },
  { name: 'an empty tool_calls list', edit: (b) => (msgs(b)[6]!.tool_calls = []), says: /messages\[6\]\.tool_calls': empty array/, code: 'empty_array' },
  { name: 'an assistant message with neither content nor calls', edit: (b) => msgs(b).push({ role: 'assistant', content: null }, { role: 'user', content: 'go' }), says: /messages\[8\]\.content': expected a string, got null/ },
  { name: 'an empty tools array', edit: (b) => (b.tools = []), says: /Invalid 'tools': empty array/, param: 'tools', code: 'empty_array' },
  { name: 'more than 128 tools', edit: (b) => (b.tools = Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `t${i}`, parameters: { type: 'object', properties: {} } } }))), says: /maximum length 128, but got an array with length 129/, code: 'array_above_max_length' },
  { name: 'a function name with a dot', edit: (b) => (((b.tools as Body[])[0]!.function as Body).name = 'mcp.read'), says: /tools\[0\]\.function\.name': string does not match pattern.*mcp\.read/, param: 'tools[0].function.name' },
  { name: 'a function name with a colon', edit: (b) => (((b.tools as Body[])[1]!.function as Body).name = 'server:ls'), says: /tools\[1\]\.function\.name'.*pattern/ },
  { name: 'a function name of 65 characters', edit: (b) => (((b.tools as Body[])[1]!.function as Body).name = 'a'.repeat(65)), says: /tools\[1\]\.function\.name'.*at most 64/ },
  { name: 'parameters of type string', edit: (b) => (((b.tools as Body[])[0]!.function as Body).parameters = { type: 'string' }), says: /Invalid schema for function 'read_file': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'/, code: 'invalid_function_parameters' },
  { name: 'parameters with no type', edit: (b) => (((b.tools as Body[])[0]!.function as Body).parameters = { properties: {} }), says: /schema must be a JSON Schema of 'type: "object"', got 'type: "undefined"'/ },
  { name: 'parameters as anyOf at the root', edit: (b) => (((b.tools as Body[])[0]!.function as Body).parameters = { anyOf: [{ type: 'object' }] }), says: /schema must be a JSON Schema of 'type: "object"'/ },
  { name: 'a strict function whose object allows more properties', edit: (b) => Object.assign((b.tools as Body[])[0]!.function as Body, { strict: true }), says: /In context=root, 'additionalProperties' is required to be supplied and to be false/ },
  { name: 'a strict function with an optional property', edit: (b) => Object.assign((b.tools as Body[])[0]!.function as Body, { strict: true, parameters: { type: 'object', properties: { path: { type: 'string' }, n: { type: 'number' } }, required: ['path'], additionalProperties: false } }), says: /array including every key in properties. Missing 'n'/ },
  { name: 'a strict function with a loose nested object', edit: (b) => Object.assign((b.tools as Body[])[0]!.function as Body, { strict: true, parameters: { type: 'object', properties: { o: { type: 'object', properties: {} } }, required: ['o'], additionalProperties: false } }), says: /context=\('properties', 'o'\), 'additionalProperties'/ },
  { name: 'an image_url part with no url', edit: (b) => (blocks(b, 5)[1]!.image_url = {}), says: /Missing required parameter: 'messages\[5\]\.content\[1\]\.image_url\.url'/ },
  { name: 'an image_url given as a string', edit: (b) => (blocks(b, 5)[1]!.image_url = `data:image/png;base64,${PNG}`), says: /image_url\.url/ },
  { name: 'an image_url data URL of a PDF', edit: (b) => (blocks(b, 5)[1]!.image_url = { url: 'data:application/pdf;base64,JVBERi0=' }), says: /unsupported MIME type 'application\/pdf'/ },
  { name: 'an image_url data URL that is not base64', edit: (b) => (blocks(b, 5)[1]!.image_url = { url: 'data:image/png,raw' }), says: /Expected a base64-encoded data URL/ },
  { name: 'an image_url data URL with no data', edit: (b) => (blocks(b, 5)[1]!.image_url = { url: 'data:image/png;base64,' }), says: /carries no image data/ },
  { name: 'an image_url of a file path', edit: (b) => (blocks(b, 5)[1]!.image_url = { url: '/tmp/b.png' }), says: /Expected a valid URL or a base64-encoded data URL/ },
  { name: 'an image_url detail outside auto|low|high', edit: (b) => ((blocks(b, 5)[1]!.image_url as Body).detail = 'max'), says: /Supported values are: 'auto', 'low', and 'high'/ },
  { name: 'an Anthropic image block in a user message', edit: (b) => (blocks(b, 5)[1] = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }), says: /Invalid value: 'image'\. Supported values are: 'text', 'image_url'/ },
  { name: 'an image part in a tool message', edit: (b) => (msgs(b)[7]!.content = [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }]), says: /Invalid value: 'image_url'\. Supported values are: 'text'\./, param: 'messages[7].content[0].type' },
  { name: 'an empty content list', edit: (b) => (msgs(b)[1]!.content = []), says: /messages\[1\]\.content': empty array/, code: 'empty_array' },
  { name: 'an unknown role', edit: (b) => msgs(b).push({ role: 'model', content: 'x' }), says: /Invalid value: 'model'\. Supported values are/ },
  { name: 'no messages', edit: (b) => (b.messages = []), says: /Invalid 'messages': empty array/, code: 'empty_array' },
  { name: 'an unknown body parameter', edit: (b) => (b.temperature_boost = 1), says: /^Unrecognized request argument supplied: temperature_boost$/ },
  { name: 'an Anthropic body parameter (system)', edit: (b) => (b.system = 'Be brief.'), says: /^Unrecognized request argument supplied: system$/ },
  { name: 'an image over 20 MB', edit: (b) => (blocks(b, 5)[1] = dataUrl('A'.repeat(28_000_000))), says: /the image is 21000000 bytes; at most 20971520 bytes are allowed per image/ },
  { name: '501 images in one request', edit: (b) => blocks(b, 5).push(...Array.from({ length: 500 }, () => dataUrl(PNG))), says: /too many images in the request \(501\); at most 500/ },
  { name: 'images adding up to more than 50 MB', edit: (b) => blocks(b, 5).push(...Array.from({ length: 3 }, () => dataUrl('A'.repeat(24_000_000)))), says: /the images add up to 54000\d+ bytes; at most 52428800 bytes of images/ },
  { name: 'a file part with no file', edit: (b) => blocks(b, 5).push({ type: 'file' }), says: /Missing required parameter: 'messages\[5\]\.content\[2\]\.file'/ },
  { name: 'a file part with neither file_data nor file_id', edit: (b) => blocks(b, 5).push({ type: 'file', file: { filename: 'a.pdf' } }), says: /one of 'file_data' or 'file_id' must be provided/ },
  { name: 'a file part whose data is a path', edit: (b) => blocks(b, 5).push({ type: 'file', file: { filename: 'a.pdf', file_data: '/tmp/a.pdf' } }), says: /file\.file_data'\. Expected a base64-encoded data URL/ },
  { name: 'a file part of a text file', edit: (b) => blocks(b, 5).push({ type: 'file', file: { filename: 'a.txt', file_data: 'data:text/plain;base64,aGk=' } }), says: /unsupported MIME type 'text\/plain'; only PDF files are supported/ },
  { name: 'an input_audio part of format ogg', edit: (b) => blocks(b, 5).push({ type: 'input_audio', input_audio: { data: 'AAAA', format: 'ogg' } }), says: /Invalid value: 'ogg'\. Supported values are: 'wav' and 'mp3'/ },
  { name: 'an input_audio part with no data', edit: (b) => blocks(b, 5).push({ type: 'input_audio', input_audio: { format: 'wav' } }), says: /Missing required parameter: 'messages\[5\]\.content\[2\]\.input_audio\.data'/ },
];

describe('provider validation: the valid shapes pass', () => {
  it('accepts an Anthropic request with four breakpoints, a tool round trip and an image in a tool result', () => {
    const body = anthropicValid();
    expect(validateAnthropicRequest(body)).toBeUndefined();
    blocks(body, 0)[0]!.cache_control = { type: 'ephemeral' }; // the fourth
    expect(validateAnthropicRequest(body)).toBeUndefined();
  });

  it('accepts what Anthropic documents as allowed: consecutive same-role turns, an assistant first turn, a final empty assistant prefill', () => {
    const body = anthropicValid();
    msgs(body).push({ role: 'user', content: 'one more' }, { role: 'assistant', content: [] });
    msgs(body).unshift({ role: 'assistant', content: 'Hello, how can I help?' });
    expect(validateAnthropicRequest(body)).toBeUndefined();
  });

  it('accepts an OpenAI request with tool round trips and an image after the tool messages', () => {
    expect(validateOpenAIRequest(openaiValid())).toBeUndefined();
  });

  it('accepts the document sources Anthropic documents (base64 PDF, text, url, content, file) and 100 images of 2000 px', () => {
    const body = anthropicValid();
    blocks(body, 0).push(
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'a.pdf', citations: { enabled: true } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain text' } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
      { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'a' }, image(PNG)] } },
      { type: 'document', source: { type: 'file', file_id: 'file_1' } },
    );
    expect(validateAnthropicRequest(body)).toBeUndefined();
    // 8001 px is refused, 8000 would not be; with more than 20 images the edge is 2000 px (2001 refused, below).
    blocks(body, 0).push(...Array.from({ length: 97 }, () => image(PNG)));
    expect(validateAnthropicRequest(body)).toBeUndefined(); // 100 images, counting the tool result's and the content document's
  });

  it('accepts OpenAI file (a PDF) and input_audio parts', () => {
    const body = openaiValid();
    blocks(body, 5).push({ type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` } }, { type: 'file', file: { file_id: 'file-1' } }, { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } });
    expect(validateOpenAIRequest(body)).toBeUndefined();
  });

  it('reads image dimensions from PNG, JPEG, GIF and WebP headers', async () => {
    const of = async (mime: string, w: number, h: number) => imageDimensions(await new Jimp(w, h).getBufferAsync(mime));
    expect(await of(Jimp.MIME_PNG, 300, 20)).toEqual({ width: 300, height: 20 });
    expect(await of(Jimp.MIME_JPEG, 30, 200)).toEqual({ width: 30, height: 200 });
    expect(await of(Jimp.MIME_GIF, 17, 9)).toEqual({ width: 17, height: 9 });
    // WebP: the three chunk kinds (lossy VP8, lossless VP8L, extended VP8X), from their documented header layouts.
    const riff = (chunk: string, payload: number[]) => Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBP'), Buffer.from(chunk), Buffer.alloc(4), Buffer.from(payload), Buffer.alloc(16)]);
    expect(imageDimensions(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x1f, 0xd0, 0x07]))).toEqual({ width: 8000, height: 2000 });
    expect(imageDimensions(riff('VP8L', [0x2f, 0x3f, 0xdf, 0xf3, 0x01]))).toEqual({ width: 8000, height: 2000 });
    expect(imageDimensions(riff('VP8X', [0, 0, 0, 0, 0x3f, 0x1f, 0x00, 0xcf, 0x07, 0x00]))).toEqual({ width: 8000, height: 2000 });
    expect(imageDimensions(Buffer.from('not an image'))).toBeNull();
  });

  it('accepts a strict OpenAI function that follows the Structured Outputs rules, and loose schemas on non-strict ones', () => {
    const body = openaiValid();
    Object.assign((body.tools as Body[])[0]!.function as Body, {
      strict: true,
      parameters: { type: 'object', properties: { path: { type: 'string' }, o: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false } }, required: ['path', 'o'], additionalProperties: false },
    });
    ((body.tools as Body[])[1]!.function as Body).parameters = { type: 'object', properties: { n: { type: 'integer', minimum: 0, format: 'int32' } }, patternProperties: { '^x': {} } };
    expect(validateOpenAIRequest(body)).toBeUndefined();
  });
});

describe('provider validation: each invalid shape is refused with the provider error', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer({ expectRefusals: 'each case sends an invalid body to see it refused' });
  });
  afterEach(() => server.close());

  async function post(path: string, body: Body): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${server.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it.each(anthropicInvalid)('anthropic: $name', async (c) => {
    const body = anthropicValid();
    c.edit(body);
    expect(validateAnthropicRequest(body)?.message).toMatch(c.says);
    server.enqueue(reply().text('never sent'));
    const { status, json } = await post('/messages', body);
    expect(status).toBe(400);
    expect(json).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(c.says) } });
    // Refused before the script: the scripted reply is still there for the next, valid request.
    expect(server.pending).toBe(1);
    expect(server.refused).toHaveLength(1);
    expect(validateAnthropicRequest(anthropicValid())).toBeUndefined(); // the edit made it invalid, not the base
  });

  it.each(openaiInvalid)('openai: $name', async (c) => {
    const body = openaiValid();
    c.edit(body);
    expect(validateOpenAIRequest(body)?.message).toMatch(c.says);
    server.enqueue(reply().text('never sent'));
    const { status, json } = await post('/chat/completions', body);
    expect(status).toBe(400);
    expect(json).toEqual({
      error: {
        message: expect.stringMatching(c.says),
        type: 'invalid_request_error',
        param: c.param ?? expect.toSatisfy((p: unknown) => p === null || typeof p === 'string'),
        code: c.code ?? expect.toSatisfy((p: unknown) => p === null || typeof p === 'string'),
      },
    });
    expect(server.pending).toBe(1);
    expect(server.refused).toHaveLength(1);
  });

  it('answers the next valid request with the scripted reply after a refusal', async () => {
    server.enqueue(reply().text('hi'));
    expect((await post('/messages', { ...anthropicValid(), max_tokens: undefined })).status).toBe(400);
    const ok = await fetch(`${server.baseURL}/messages`, { method: 'POST', body: JSON.stringify({ ...anthropicValid(), stream: false }) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { content: { text: string }[] }).content[0]!.text).toBe('hi');
  });

  it('takes invalid bodies only where a test says why, and wants the reason', async () => {
    await expect(startModelServer({ acceptInvalidRequestsBecause: ' ' })).rejects.toThrow(/needs the reason/);
    const lax = await startModelServer({ acceptInvalidRequestsBecause: 'this test sends a broken body on purpose' });
    try {
      lax.enqueue(reply().text('taken'));
      const res = await fetch(`${lax.baseURL}/messages`, { method: 'POST', body: JSON.stringify({ ...anthropicValid(), max_tokens: undefined, stream: false }) });
      expect(res.status).toBe(200);
      expect(lax.refused).toEqual([]);
    } finally {
      await lax.close();
    }
  });
});

describe('provider validation: what the real runtime sends with the whole tool set passes', () => {
  let server: ModelServer;
  let store: Store;
  let dataDir: string;
  let work: string;
  beforeEach(async () => {
    server = await startModelServer();
    dataDir = tempDir('deskhand-data-');
    work = tempDir('deskhand-work-');
    store = new Store(dataDir);
  });
  afterEach(async () => {
    store.close();
    await server.close();
  });

  const providers: Record<string, () => ProviderConfig> = {
    anthropic: () => ({ provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test' }),
    openai: () => ({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' }),
    'openai-compatible': () => ({ provider: 'openai-compatible', model: 'llama-test', baseURL: server.baseURL, apiKey: null }),
    'openai-responses': () => ({ provider: 'openai', openaiApi: 'responses', model: 'gpt-5', baseURL: server.baseURL, apiKey: 'sk-test' }),
  };

  it.each(Object.keys(providers))('%s: tool calls, a refused argument, a denied, a stopped and an abandoned approval, an image, more turns', async (name) => {
    writeFileSync(join(work, 'a.txt'), 'hello\n');
    writeFileSync(join(work, 'b.png'), Buffer.from(PNG, 'base64'));
    const rt = new Runtime({ store, dataDir, tools: builtinTools({ dataDir }), retryBaseMs: 10, idleTimeoutMs: 5000 });
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const opts = { provider: providers[name]!(), interactive: false };
    server.enqueue(
      // Reasoning first (an Anthropic thinking block, a compatible server's reasoning_content, a Responses reasoning item).
      reply().thinking('Read it first.').text('Looking.').tool('read_file', { path: 'a.txt' }).tool('ls', {}),
      reply().tool('read_file', { path: 'a.txt', sinceByte: 6 }),
      reply().tool('write_file', { path: 'c.txt', content: 'x' }),
    );
    const first = await rt.sendMessage(conv.id, 'read a.txt, write c.txt, show b.png', opts);
    expect(first.status).toBe('parked');
    // Denied: the call gets its result, the run goes on.
    server.enqueue(reply().tool('read_media_file', { path: 'b.png' }), reply().text('Done.'));
    const denied = await rt.decideApproval(first.approvalIds[0]!, { approved: false, reason: 'not now' }, opts);
    expect(denied?.status).toBe('finished');
    // Stopped while parked: the open call gets a "not run" result.
    server.enqueue(reply().tool('write_file', { path: 'd.txt', content: 'y' }));
    const parked = await rt.sendMessage(conv.id, 'write d.txt', opts);
    expect(parked.status).toBe('parked');
    rt.stopParked(parked.runId);
    // Parked and left: the next message closes that run first.
    server.enqueue(reply().text('Checking the time.').tool('get_time', {}), reply().tool('write_file', { path: 'e.txt', content: 'z' }));
    expect((await rt.sendMessage(conv.id, 'the time, then write e.txt', opts)).status).toBe('parked');
    server.enqueue(reply().text('Later.'));
    expect((await rt.sendMessage(conv.id, 'never mind', opts)).status).toBe('finished');

    expect(server.refused.map((r) => r.refusal.message)).toEqual([]);
    expect(server.requests).toHaveLength(9);
    for (const request of server.requests) {
      const refusal =
        request.protocol === 'anthropic'
          ? validateAnthropicRequest(request.body)
          : request.protocol === 'openai-responses'
            ? validateOpenAIResponsesRequest(request.body)
            : validateOpenAIRequest(request.body);
      expect(refusal).toBeUndefined();
    }
  });

  it.each(['anthropic', 'openai', 'openai-responses'])('%s: an empty model reply, a stream stopped mid-text and mid-tool-call, a broken stream, more turns', async (name) => {
    const rt = new Runtime({ store, dataDir, tools: builtinTools({ dataDir }), retryBaseMs: 10, idleTimeoutMs: 5000 });
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const opts = { provider: providers[name]!(), interactive: false };
    const statuses: string[] = [];
    server.enqueue(reply());
    statuses.push((await rt.sendMessage(conv.id, 'one', opts)).status);
    // Stopped while text streams, then while a step's tool calls stream.
    // The stop comes once the server holds the request, while its reply streams (each event waits 300 ms).
    const stopWhileStreaming = () => {
      const stop = new AbortController();
      const sent = server.requests.length + 1;
      const poll = setInterval(() => {
        if (server.requests.length < sent) return;
        clearInterval(poll);
        setTimeout(() => stop.abort(), 450);
      }, 20);
      return stop.signal;
    };
    server.enqueue(reply().text('a').text('b').text('c').delay(300));
    statuses.push((await rt.sendMessage(conv.id, 'two', { ...opts, signal: stopWhileStreaming() })).status);
    server.enqueue(reply().tool('ls', {}).tool('get_time', {}).delay(300));
    statuses.push((await rt.sendMessage(conv.id, 'three', { ...opts, signal: stopWhileStreaming() })).status);
    // A stream broken after a tool call (retried), then the turn goes on.
    server.enqueue(reply().tool('ls', {}), reply().tool('ls', {}).streamError(), reply().tool('ls', {}), reply().text('listed'));
    statuses.push((await rt.sendMessage(conv.id, 'four', opts)).status);
    server.enqueue(reply().text('five done'));
    statuses.push((await rt.sendMessage(conv.id, 'five', opts)).status);
    expect(statuses).toEqual(['finished', 'aborted', 'aborted', 'finished', 'finished']);
    expect(server.refused.map((r) => r.refusal.message)).toEqual([]);
    expect(server.requests.length).toBeGreaterThanOrEqual(8);
  });
});

describe('provider validation: the images and audio endpoints', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer({ expectRefusals: 'each case sends an invalid body to see it refused' });
  });
  afterEach(() => server.close());

  const image = (extra: Body): Body => ({ model: 'gpt-image-1', prompt: 'a red square', n: 1, size: '1024x1024', ...extra });
  const imageCases: { name: string; body: Body; says: RegExp }[] = [
    { name: 'no prompt', body: image({ prompt: undefined }), says: /Missing required parameter: 'prompt'/ },
    { name: 'an unknown parameter', body: image({ seed: 3 }), says: /Unrecognized request argument supplied: seed/ },
    { name: 'a size dall-e-3 does not make', body: image({ model: 'dall-e-3', size: '512x512' }), says: /Invalid value: '512x512'\. Supported values are: '1024x1024', '1792x1024', '1024x1792'/ },
    { name: 'a size the GPT image models do not make', body: image({ size: '1792x1024' }), says: /Supported values are: '1024x1024', '1536x1024', '1024x1536', 'auto'/ },
    { name: 'a size that is no size (another server\'s model)', body: image({ model: 'draw-a', size: 'big' }), says: /Invalid value: 'big'/ },
    { name: 'a dall-e-2 prompt of 1001 characters', body: image({ model: 'dall-e-2', size: '512x512', prompt: 'x'.repeat(1001) }), says: /maximum length 1000, but got a string with length 1001/ },
    { name: 'a dall-e-3 prompt of 4001 characters', body: image({ model: 'dall-e-3', prompt: 'x'.repeat(4001) }), says: /maximum length 4000/ },
    { name: 'a GPT image prompt of 32001 characters', body: image({ prompt: 'x'.repeat(32001) }), says: /maximum length 32000/ },
    { name: 'two dall-e-3 images', body: image({ model: 'dall-e-3', n: 2 }), says: /dall-e-3 takes n from 1 to 1/ },
    { name: 'eleven images', body: image({ n: 11 }), says: /takes n from 1 to 10/ },
    { name: 'a response_format of png', body: image({ response_format: 'png' }), says: /Supported values are: 'url' and 'b64_json'/ },
  ];
  it.each(imageCases)('images: $name', async (c) => {
    const res = await fetch(`${server.baseURL}/images/generations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.body) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(c.says);
    expect(server.refused.map((r) => r.path)).toEqual(['/v1/images/generations']);
  });

  const speech = (extra: Body): Body => ({ model: 'gpt-4o-mini-tts', input: 'Hello.', voice: 'alloy', response_format: 'mp3', ...extra });
  const speechCases: { name: string; body: Body; says: RegExp }[] = [
    { name: 'an input of 4097 characters', body: speech({ input: 'x'.repeat(4097) }), says: /maximum length 4096, but got a string with length 4097/ },
    { name: 'no input', body: speech({ input: undefined }), says: /'loc': \('body', 'input'\)/ },
    { name: 'no voice', body: speech({ voice: undefined }), says: /'loc': \('body', 'voice'\)/ },
    { name: 'no model', body: speech({ model: undefined }), says: /'loc': \('body', 'model'\)/ },
    { name: 'a voice OpenAI does not have', body: speech({ model: 'tts-1', voice: 'robot' }), says: /Invalid value: 'robot'/ },
    { name: 'a response_format of ogg', body: speech({ response_format: 'ogg' }), says: /Invalid value: 'ogg'\. Supported values are: 'mp3', 'opus'/ },
    { name: 'a speed of 5', body: speech({ speed: 5 }), says: /Expected a number from 0\.25 to 4\.0/ },
    { name: 'an unknown parameter', body: speech({ language: 'en' }), says: /Unrecognized request argument supplied: language/ },
  ];
  it.each(speechCases)('speech: $name', async (c) => {
    const res = await fetch(`${server.baseURL}/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.body) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(c.says);
    expect(server.refused.map((r) => r.path)).toEqual(['/v1/audio/speech']);
  });

  const form = (fields: Record<string, string>, file: { name: string; bytes: number } | null) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    if (file) f.append('file', new File([new Uint8Array(file.bytes)], file.name, { type: 'audio/wav' }));
    return f;
  };
  const transcriptionCases: { name: string; body: () => FormData; says: RegExp }[] = [
    { name: 'a file of 25 MB and one byte', body: () => form({ model: 'whisper-1' }, { name: 'audio.wav', bytes: 25 * 1024 * 1024 + 1 }), says: /Maximum content size limit \(26214400\) exceeded \(26214401 bytes read\)/ },
    { name: 'a file of a type OpenAI does not take', body: () => form({ model: 'whisper-1' }, { name: 'audio.aiff', bytes: 100 }), says: /Invalid file format\. Supported formats:.*audio\.aiff/ },
    { name: 'no model', body: () => form({}, { name: 'audio.wav', bytes: 100 }), says: /you must provide a model parameter/ },
    { name: 'no file', body: () => form({ model: 'whisper-1' }, null), says: /you must provide a file parameter/ },
    { name: 'an unknown field', body: () => form({ model: 'whisper-1', voice: 'alloy' }, { name: 'audio.wav', bytes: 100 }), says: /Unrecognized request argument supplied: voice/ },
    { name: 'a response_format of xml', body: () => form({ model: 'whisper-1', response_format: 'xml' }, { name: 'audio.wav', bytes: 100 }), says: /Invalid value: 'xml'/ },
    { name: 'verbose_json from gpt-4o-transcribe', body: () => form({ model: 'gpt-4o-transcribe', response_format: 'verbose_json' }, { name: 'audio.wav', bytes: 100 }), says: /not compatible with model 'gpt-4o-transcribe'/ },
  ];
  it.each(transcriptionCases)('transcription: $name', async (c) => {
    const res = await fetch(`${server.baseURL}/audio/transcriptions`, { method: 'POST', body: c.body() });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(c.says);
    expect(server.refused.map((r) => r.path)).toEqual(['/v1/audio/transcriptions']);
  });

  it('takes the valid shapes of all three', async () => {
    const post = (path: string, body: Body) => fetch(`${server.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/images/generations', image({ response_format: 'b64_json', model: 'dall-e-2', size: '256x256' }))).status).toBe(200);
    expect((await post('/images/generations', image({ model: 'draw-a', size: '640x480' }))).status).toBe(200);
    expect((await post('/audio/speech', speech({ input: 'x'.repeat(4096), speed: 1.5, instructions: 'calm' }))).status).toBe(200);
    const heard = await fetch(`${server.baseURL}/audio/transcriptions`, { method: 'POST', body: form({ model: 'whisper-1', response_format: 'verbose_json', 'timestamp_granularities[]': 'segment' }, { name: 'audio.wav', bytes: 25 * 1024 * 1024 }) });
    expect(heard.status).toBe(200);
    expect(server.refused).toEqual([]);
  });
});

describe('provider validation: a refused request fails the test that caused it', () => {
  it('records every refusal no test expected, for the check after each test (setup-env.ts)', async () => {
    const server = await startModelServer();
    try {
      const res = await fetch(`${server.baseURL}/messages`, { method: 'POST', body: JSON.stringify({ ...anthropicValid(), max_tokens: undefined }) });
      expect(res.status).toBe(400);
      // Taken here, so this test (which caused it on purpose) passes; left, the check after the test would fail it.
      expect(takeUnexpectedRefusals()).toEqual([`${server.url}/v1/messages: max_tokens: Field required`]);
      expect(takeUnexpectedRefusals()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('fails a vitest test whose server refused a request, and passes one that expects it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'refusal-fixture-'));
    const support = join(process.cwd(), 'test/support');
    const fixture = (expect: string) => `
import { it } from 'vitest';
import { startModelServer } from '${support}/model-server';
it('sends a body without max_tokens', async () => {
  const server = await startModelServer(${expect});
  await fetch(server.baseURL + '/messages', { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
  await server.close();
});
`;
    writeFileSync(join(dir, 'refused.test.ts'), fixture(''));
    writeFileSync(join(dir, 'expected.test.ts'), fixture("{ expectRefusals: 'on purpose' }"));
    writeFileSync(join(dir, 'vitest.config.ts'), `export default { test: { root: ${JSON.stringify(dir)}, include: ['*.test.ts'], setupFiles: [${JSON.stringify(join(support, 'setup-env.ts'))}] } };`);
    const runFile = (file: string) => spawnSync(process.execPath, [join(process.cwd(), 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(dir, 'vitest.config.ts'), file], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    const refused = runFile('refused.test.ts');
    expect(refused.status, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/refused 1 request\(s\) during this test[\s\S]*max_tokens: Field required/);
    const expected = runFile('expected.test.ts');
    expect(expected.status, expected.stdout + expected.stderr).toBe(0);
  }, 150_000);
});
