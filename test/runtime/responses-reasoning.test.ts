/**
 * Issue 48, item 2: OpenAI reasoning items over the Responses API, through the real runtime, the real `@ai-sdk/openai`
 * responses model and the scripted server speaking the Responses wire (POST /v1/responses, its SSE events). The
 * server's validation refuses what OpenAI refuses with `store: false` (a reasoning item without its encrypted content,
 * a changed one, an output without its call…), so a wrong replay fails these tests with OpenAI's 400.
 */
import { recordsOf } from '../../src/main/runtime/records';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { providerFromFlags } from '../../src/main/host/assembly/provider-choice';
import { projectMessages, toolPresenter } from '../../src/main/host/app/projections';
import { Runtime } from '../../src/main/runtime/runtime';
import { replayReasoning } from '../../src/main/runtime/loop/reasoning';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { usageModule } from '../../src/main/services/store/modules/usage';
import { Store } from '../../src/main/services/store/store';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type ModelServer, type OpenAIResponsesItem, type OpenAIResponsesRequest } from '../support/model-server';
import { reasoningEncryptedContent, validateOpenAIResponsesRequest } from '../support/provider-validation';
import { tempDir } from '../support/tool-context';

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  params: z.object({ text: z.string().describe('Text to echo.'), loud: z.boolean().optional().describe('Shout.') }).strict(),
  risk: 'read-only',
  disclosure: 'public',
  async execute({ text }) {
    return { output: `echo: ${text}` };
  },
});

let server: ModelServer;
let store: Store;
let dataDir: string;
let work: string;
beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-responses-data-');
  work = tempDir('deskhand-responses-work-');
  store = new Store(dataDir);
});
afterEach(async () => {
  store.close();
  await server.close();
});

const runtime = () => new Runtime({ store, dataDir, tools: [echo] as ToolDefinition[], retryBaseMs: 2, maxRetryDelayMs: 20, idleTimeoutMs: 5000 });
const responses = (extra: Partial<ProviderConfig> = {}): ProviderConfig => ({ provider: 'openai', openaiApi: 'responses', model: 'gpt-5', baseURL: server.baseURL, apiKey: 'sk-test', ...extra });

async function send(rt: Runtime, provider: ProviderConfig, text: string, conversationId?: string) {
  const events: RunEvent[] = [];
  const id = conversationId ?? rt.createConversation({ folder: work, policy: 'read-only' }).id;
  const out = await rt.sendMessage(id, text, { provider, interactive: false, onEvent: (e) => events.push(e) });
  return { out, events, id };
}

const bodyOf = (i: number) => server.requests[i]!.body as OpenAIResponsesRequest;
const items = (i: number) => bodyOf(i).input as OpenAIResponsesItem[];

describe('OpenAI Responses: reasoning items', () => {
  it('a two-step tool-use turn: the summary shows as thinking, the second request carries the first step\'s reasoning item with its encrypted content', async () => {
    const rt = runtime();
    server.enqueue(reply().thinking('I should ').thinking('echo it.').tool('echo', { text: 'hi' }), reply().thinking('Answer now.').text('Echoed.'));
    const { out, events, id } = await send(rt, responses({ thinking: 'high' }), 'echo hi');
    expect(out.status, out.error).toBe('finished');
    expect(server.requests.map((r) => [r.protocol, r.path])).toEqual([
      ['openai-responses', '/v1/responses'],
      ['openai-responses', '/v1/responses'],
    ]);
    // What Deskhand asks for: nothing stored, the encrypted reasoning back, the effort of the thinking setting, summaries.
    expect(bodyOf(0)).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'high', summary: 'auto' }, stream: true });
    // One prompt-cache key per conversation, as on Chat Completions.
    expect(bodyOf(1).prompt_cache_key).toEqual(expect.any(String));
    expect(bodyOf(1).prompt_cache_key).toBe(bodyOf(0).prompt_cache_key);
    // Tools are sent non-strict (the Responses API makes a function strict unless told otherwise).
    expect(bodyOf(0).tools!.every((t) => t.strict === false)).toBe(true);
    // The summary streamed as thinking, never as the reply.
    expect(events.filter((e) => e.type === 'thinking').map((e) => (e as { delta: string }).delta).join('')).toBe('I should echo it.Answer now.');
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Echoed.');
    // The second request: the reasoning item (id, summary, encrypted content) right before the call it led to, then its output.
    const second = items(1).filter((i) => i.type !== undefined);
    expect(second).toEqual([
      { type: 'reasoning', id: 'rs_1', encrypted_content: reasoningEncryptedContent('rs_1'), summary: [{ type: 'summary_text', text: 'I should echo it.' }] },
      { type: 'function_call', call_id: 'call_1_0', name: 'echo', arguments: '{"text":"hi"}' },
      expect.objectContaining({ type: 'function_call_output', call_id: 'call_1_0' }),
    ]);
    // Stored with the message: a later turn replays both steps' items.
    server.enqueue(reply().text('Again.'));
    const again = await send(rt, responses({ thinking: 'high' }), 'and now?', id);
    expect(again.out.status, again.out.error).toBe('finished');
    expect(items(2).filter((i) => i.type === 'reasoning').map((i) => [i.id, i.encrypted_content])).toEqual([
      ['rs_1', reasoningEncryptedContent('rs_1')],
      ['rs_2', reasoningEncryptedContent('rs_2')],
    ]);
    // Reasoning tokens reach the usage ledger.
    const ledger = store.module(usageModule).groups({ rootConversationId: id });
    expect(ledger.reduce((n, g) => n + g.reasoning_tokens, 0)).toBeGreaterThan(0);
    // The transcript shows each step's summary on the reply it led to.
    const shown = projectMessages(recordsOf(store), id, toolPresenter(rt.registry)).filter((i) => i.kind === 'assistant').map((i) => (i as { thinking?: string }).thinking);
    expect(shown).toEqual(['I should echo it.', 'Answer now.', undefined]);
    expect(server.refused).toEqual([]);
  });

  it('a reasoning item with no summary (what a low effort often sends) is still stored and replayed, with an empty summary', async () => {
    const rt = runtime();
    server.enqueue(reply().thinking('').tool('echo', { text: 'x' }), reply().text('ok'));
    const { out, events } = await send(rt, responses({ thinking: 'low' }), 'go');
    expect(out.status, out.error).toBe('finished');
    expect(events.some((e) => e.type === 'thinking')).toBe(false);
    expect(items(1).find((i) => i.type === 'reasoning')).toEqual({ type: 'reasoning', id: 'rs_1', encrypted_content: reasoningEncryptedContent('rs_1'), summary: [] });
    expect(server.refused).toEqual([]);
  });

  it('the wire redactor applies: a secret in a tool result and in a reasoning summary never reaches the Responses request', async () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
    const rt = runtime();
    server.enqueue(reply().thinking(`The token is ${token}`).tool('echo', { text: token }), reply().text('ok'));
    const { out } = await send(rt, responses(), `remember ${token}`);
    expect(out.status, out.error).toBe('finished');
    const sent = JSON.stringify(bodyOf(1));
    expect(sent).not.toContain(token);
    expect(sent).toContain('[redacted');
    // The reasoning item still goes back whole (its encrypted content is OpenAI's, passed through).
    expect(items(1).find((i) => i.type === 'reasoning')?.encrypted_content).toBe(reasoningEncryptedContent('rs_1'));
    expect(server.refused).toEqual([]);
  });

  it('a conversation that moves between wires: Chat Completions and Anthropic get none of OpenAI\'s reasoning items, and back on Responses they go again', async () => {
    const rt = runtime();
    server.enqueue(reply().thinking('secret plan').tool('echo', { text: 'a' }), reply().text('one'));
    const first = await send(rt, responses(), 'go');
    expect(first.out.status, first.out.error).toBe('finished');
    server.enqueue(reply().text('two'));
    const chat = await send(rt, responses({ openaiApi: 'chat' }), 'on chat', first.id);
    expect(chat.out.status, chat.out.error).toBe('finished');
    expect(server.requests[2]!.protocol).toBe('openai');
    expect(JSON.stringify(server.requests[2]!.body)).not.toMatch(/secret plan|gAAAAA/);
    server.enqueue(reply().text('three'));
    const claude = await send(rt, { provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant', thinking: 'low' }, 'on claude', first.id);
    expect(claude.out.status, claude.out.error).toBe('finished');
    expect(JSON.stringify(server.requests[3]!.body)).not.toMatch(/secret plan|gAAAAA/);
    server.enqueue(reply().text('four'));
    const back = await send(rt, responses(), 'back', first.id);
    expect(back.out.status, back.out.error).toBe('finished');
    expect(items(4).filter((i) => i.type === 'reasoning').map((i) => i.id)).toEqual(['rs_1']);
    expect(server.refused).toEqual([]);
  });

  it('a non-streamed request gets the response object, usage and reasoning included', async () => {
    server.enqueue(reply().thinking('t').text('hello'));
    const res = await fetch(`${server.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'gpt-5', input: 'hi', store: false, include: ['reasoning.encrypted_content'] }),
    });
    const body = (await res.json()) as { object: string; output: { type: string; encrypted_content?: string }[]; usage: { output_tokens_details: { reasoning_tokens: number } } };
    expect(body.object).toBe('response');
    expect(body.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(body.output[0]!.encrypted_content).toBe(reasoningEncryptedContent('rs_1'));
    expect(body.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });
});

describe('the scripted server refuses what OpenAI refuses on the Responses wire', () => {
  const call = { type: 'function_call', call_id: 'call_1', name: 'echo', arguments: '{}' };
  const output = { type: 'function_call_output', call_id: 'call_1', output: 'ok' };
  const reasoning = (extra: object = {}) => ({ type: 'reasoning', id: 'rs_9', summary: [], encrypted_content: reasoningEncryptedContent('rs_9'), ...extra });
  const req = (input: unknown[], extra: object = {}) => ({ model: 'gpt-5', store: false, input: [{ role: 'user', content: 'go' }, ...input], ...extra });
  it.each([
    ['an output without its call', req([output]), /No tool call found for function call output with call_id call_1/],
    ['a call without its output', req([call, { role: 'user', content: 'next' }]), /No tool output found for function call call_1/],
    ['a reasoning item without encrypted content (store false)', req([reasoning({ encrypted_content: undefined }), call, output]), /Items are not persisted when `store` is set to false/],
    ['an item reference (store false)', req([{ type: 'item_reference', id: 'rs_9' }, call, output]), /Items are not persisted/],
    ['changed encrypted content', req([reasoning({ encrypted_content: 'gAAAAAforged' }), call, output]), /could not be verified/],
    ['encrypted content of another item', req([reasoning({ id: 'rs_other' }), call, output]), /could not be verified/],
    ['a reasoning item without its following item', req([reasoning()]), /without its required following item/],
    ['a reasoning item without summary', req([reasoning({ summary: undefined }), call, output]), /summary/],
    ['a strict tool (the default) with an optional parameter', req([], { tools: [{ type: 'function', name: 'echo', parameters: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }] }), /'required' is required/],
    ['an unknown body parameter', req([], { messages: [] }), /Unrecognized request argument supplied: messages/],
    ['an unknown reasoning effort', req([], { reasoning: { effort: 'max' } }), /Supported values are/],
  ])('refuses %s', (_name, body, message) => {
    expect(validateOpenAIResponsesRequest(body)?.message).toMatch(message);
  });
  it('takes the well-formed replay, and a reasoning item without encrypted content when store is on', () => {
    expect(validateOpenAIResponsesRequest(req([reasoning(), call, output]))).toBeUndefined();
    expect(validateOpenAIResponsesRequest(req([reasoning({ encrypted_content: undefined }), call, output], { store: true }))).toBeUndefined();
    expect(validateOpenAIResponsesRequest(req([], { tools: [{ type: 'function', name: 'echo', strict: false, parameters: { type: 'object', properties: { a: { type: 'string' } } } }] }))).toBeUndefined();
  });
});

describe('the replay rule and the setting', () => {
  it('replays to the Responses wire only OpenAI items with encrypted content (every summary part of one)', () => {
    const item = (text: string, enc?: string) => ({ type: 'reasoning', text, providerOptions: { openai: { itemId: 'rs_1', ...(enc ? { reasoningEncryptedContent: enc } : {}) } } });
    const stored = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [item('part one'), item('part two', 'ENC'), { type: 'reasoning', text: 'signed', providerOptions: { anthropic: { signature: 's' } } }, { type: 'reasoning', text: 'plain' }, { type: 'tool-call', toolCallId: 'c', toolName: 'echo', input: {} }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'no enc', providerOptions: { openai: { itemId: 'rs_2' } } }, { type: 'text', text: 'a' }] },
    ];
    const texts = (provider: string) => replayReasoning(stored, provider).map((m) => (Array.isArray(m.content) ? (m.content as { type: string; text?: string }[]).map((p) => (p.type === 'reasoning' ? `reasoning:${p.text}` : p.type)) : m.content));
    expect(texts('openai.responses')).toEqual(['q', ['reasoning:part one', 'reasoning:part two', 'tool-call'], ['text']]);
    expect(texts('openai.chat')).toEqual(['q', ['tool-call'], ['text']]);
    expect(texts('anthropic.messages')).toEqual(['q', ['reasoning:signed', 'tool-call'], ['text']]);
  });

  it('--openai-api reaches the provider config; a wrong value or another provider is a usage error', () => {
    const env = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY };
    process.env.OPENAI_API_KEY = 'sk-test';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
    try {
      expect(providerFromFlags({ provider: 'openai', 'openai-api': 'responses' }).openaiApi).toBe('responses');
      expect(providerFromFlags({ provider: 'openai' })).not.toHaveProperty('openaiApi');
      expect(() => providerFromFlags({ provider: 'openai', 'openai-api': 'completions' })).toThrow(/--openai-api must be chat or responses/);
      expect(() => providerFromFlags({ provider: 'anthropic', 'openai-api': 'responses' })).toThrow(/--openai-api applies to --provider openai only/);
    } finally {
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
