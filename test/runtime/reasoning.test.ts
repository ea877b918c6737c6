/**
 * Issue 48, item 2: reasoning models end to end, through the real runtime and the scripted server speaking each wire.
 * The server streams thinking as each provider does (Anthropic: thinking deltas then a signature_delta, and
 * redacted_thinking; OpenAI-compatible: reasoning_content deltas), and its provider validation refuses the replays
 * each API refuses (a tool-use turn without its thinking block while thinking is on, a changed thinking block, a
 * DeepSeek tool-call turn without its reasoning_content): a wrong replay fails these tests with the provider's 400.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { providerFromFlags } from '../../src/main/host/assembly/provider-choice';
import { Runtime } from '../../src/main/runtime/runtime';
import { parseThinking, replayReasoning } from '../../src/main/runtime/loop/reasoning';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { Store } from '../../src/main/services/store/store';
import { projectMessages, toolPresenter } from '../../src/main/host/app/projections';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { thinkingSignature, validateAnthropicRequest, validateOpenAIRequest } from '../support/provider-validation';
import { tempDir } from '../support/tool-context';

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  params: z.object({ text: z.string().describe('Text to echo.') }).strict(),
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
  dataDir = tempDir('deskhand-reasoning-data-');
  work = tempDir('deskhand-reasoning-work-');
  store = new Store(dataDir);
});
afterEach(async () => {
  store.close();
  await server.close();
});

const runtime = () => new Runtime({ store, dataDir, tools: [echo] as ToolDefinition[], retryBaseMs: 2, maxRetryDelayMs: 20, idleTimeoutMs: 5000 });
const anthropic = (extra: Partial<ProviderConfig> = {}): ProviderConfig => ({ provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test', ...extra });
const compatible = (model: string): ProviderConfig => ({ provider: 'openai-compatible', model, baseURL: server.baseURL, apiKey: null });

async function send(rt: Runtime, provider: ProviderConfig, text: string, conversationId?: string) {
  const events: RunEvent[] = [];
  const id = conversationId ?? rt.createConversation({ folder: work, policy: 'read-only' }).id;
  const out = await rt.sendMessage(id, text, { provider, interactive: false, onEvent: (e) => events.push(e) });
  return { out, events, id };
}

type Block = { type: string; thinking?: string; signature?: string; data?: string; text?: string };
const assistantBlocks = (body: unknown): Block[][] =>
  (body as { messages: { role: string; content: Block[] | string }[] }).messages.filter((m) => m.role === 'assistant').map((m) => (Array.isArray(m.content) ? m.content : []));

describe('Anthropic thinking', () => {
  it('sends the thinking setting: an effort level as adaptive thinking, a number as a budget, off as disabled', async () => {
    const rt = runtime();
    server.enqueue(reply().text('a'), reply().text('b'), reply().text('c'));
    await send(rt, anthropic({ thinking: 'high' }), 'one');
    await send(rt, anthropic({ thinking: 4096 }), 'two');
    await send(rt, anthropic({ thinking: 'off' }), 'three');
    const bodies = server.requests.map((r) => r.body as unknown as { thinking?: unknown; output_config?: unknown; max_tokens: number });
    expect(bodies[0]).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    expect(bodies[1]!.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(bodies[1]!.max_tokens).toBeGreaterThan(4096);
    expect(bodies[2]!.thinking).toEqual({ type: 'disabled' });
  });

  it('shows thinking as it streams and replays the thinking block with its signature and the redacted block unchanged across tool-use turns', async () => {
    const rt = runtime();
    server.enqueue(
      reply().thinking('I should echo ').thinking('the word.').redactedThinking('EncRyPtEd==').tool('echo', { text: 'hi' }),
      reply().thinking('Now answer.').text('Echoed.'),
    );
    const { out, events, id } = await send(rt, anthropic({ thinking: 'medium' }), 'echo hi');
    expect(out.status, out.error).toBe('finished');
    // Shown as it streamed, as thinking (never as the reply's text).
    const thinking = events.filter((e) => e.type === 'thinking').map((e) => (e as { delta: string }).delta).join('');
    expect(thinking).toBe('I should echo the word.Now answer.');
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Echoed.');
    // The second request (after the tool result) carried the first turn's blocks first, byte for byte.
    const [turn] = assistantBlocks(server.requests[1]!.body);
    expect(turn!.slice(0, 3)).toEqual([
      { type: 'thinking', thinking: 'I should echo the word.', signature: thinkingSignature('I should echo the word.') },
      { type: 'redacted_thinking', data: 'EncRyPtEd==' },
      expect.objectContaining({ type: 'tool_use', name: 'echo' }),
    ]);
    // A later turn replays both turns' blocks too (the API accepts them; the last tool-use turn requires its own).
    server.enqueue(reply().text('Again.'));
    const again = await send(rt, anthropic({ thinking: 'medium' }), 'and now?', id);
    expect(again.out.status, again.out.error).toBe('finished');
    expect(assistantBlocks(server.requests[2]!.body).map((b) => b[0]!.type)).toEqual(['thinking', 'thinking']);
    expect(server.refused).toEqual([]);
  });

  it('thinking is redacted like text: in its events and in what is stored', async () => {
    const rt = runtime();
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
    server.enqueue(reply().thinking(`The token is ${token.slice(0, 20)}`).thinking(`${token.slice(20)}, do not say it.`).text('No.'));
    const { out, events } = await send(rt, anthropic({ thinking: 'low' }), 'what is the token?');
    expect(out.status, out.error).toBe('finished');
    const shown = events.filter((e) => e.type === 'thinking').map((e) => (e as { delta: string }).delta).join('');
    expect(shown).toContain('[redacted');
    expect(shown).not.toContain(token);
    const stored = JSON.stringify(store.listMessages(store.getRun(out.runId)!.conversation_id));
    expect(stored).toContain('do not say it');
    expect(stored).not.toContain(token);
  });

  it('a conversation that switches wires replays to each what it takes: reasoning_content on a compatible server\'s tool-call turns, signed blocks only to Anthropic, none to OpenAI', async () => {
    const rt = runtime();
    server.enqueue(reply().thinking('signed thought').tool('echo', { text: 'x' }), reply().text('done'));
    const first = await send(rt, anthropic({ thinking: 'low' }), 'go');
    expect(first.out.status, first.out.error).toBe('finished');
    server.enqueue(reply().thinking('compatible thought').tool('echo', { text: 'y' }), reply().text('done too'));
    const second = await send(rt, compatible('qwen3'), 'again', first.id);
    expect(second.out.status, second.out.error).toBe('finished');
    // Every tool-call turn carries its reasoning as reasoning_content (what DeepSeek requires of them).
    const compatibleBody = server.requests[3]!.body as unknown as { messages: { role: string; reasoning_content?: string; tool_calls?: unknown }[] };
    expect(compatibleBody.messages.filter((m) => m.tool_calls).map((m) => m.reasoning_content)).toEqual(['signed thought', 'compatible thought']);
    server.enqueue(reply().text('back'));
    const third = await send(rt, anthropic({ thinking: 'low' }), 'back to claude', first.id);
    expect(third.out.status, third.out.error).toBe('finished');
    // Anthropic gets its own signed block back and no unsigned reasoning (the API takes no thinking without a signature).
    const back = JSON.stringify(server.requests[4]!.body);
    expect(back).toContain('signed thought');
    expect(back).not.toContain('compatible thought');
    server.enqueue(reply().text('on openai'));
    const fourth = await send(rt, { provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' }, 'to openai', first.id);
    expect(fourth.out.status, fourth.out.error).toBe('finished');
    expect(JSON.stringify(server.requests[5]!.body)).not.toMatch(/signed thought|compatible thought/);
    expect(server.refused).toEqual([]);
  });
});

describe('the transcript shows thinking collapsed, on the reply it led to', () => {
  it('stored: a step that went straight to a tool call gets a text-less reply carrying its thinking; the answer carries its own', async () => {
    const rt = runtime();
    server.enqueue(reply().thinking('Plan: echo.').tool('echo', { text: 'hi' }), reply().thinking('Now answer.').text('Echoed.'));
    const { out, id } = await send(rt, anthropic({ thinking: 'medium' }), 'echo hi');
    expect(out.status, out.error).toBe('finished');
    const items = projectMessages(rt.records, id, toolPresenter(rt.registry));
    const replies = items.filter((i) => i.kind === 'assistant').map((i) => ({ text: (i as { text: string }).text, thinking: (i as { thinking?: string }).thinking }));
    expect(replies).toEqual([{ text: '', thinking: 'Plan: echo.' }, { text: 'Echoed.', thinking: 'Now answer.' }]);
    // In order: the first thinking, then the tool call it led to, then the answer.
    expect(items.filter((i) => i.kind !== 'user').map((i) => i.kind)).toEqual(['assistant', 'tool', 'assistant']);
  });
});

describe('the scripted server refuses what Anthropic refuses', () => {
  const base = { model: 'claude-test', max_tokens: 2048, thinking: { type: 'adaptive' } };
  const toolTurn = (first: object[]) => [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [...first, { type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
  ];
  it.each([
    ['a tool-use turn without its thinking block', toolTurn([]), /Expected `thinking` or `redacted_thinking`, but found `tool_use`/],
    ['a changed thinking block', toolTurn([{ type: 'thinking', thinking: 'edited', signature: thinkingSignature('original') }]), /Invalid `signature` in `thinking` block/],
    ['a thinking block without its signature', toolTurn([{ type: 'thinking', thinking: 'x' }]), /signature: Field required/],
    ['an empty redacted block', toolTurn([{ type: 'redacted_thinking', data: '' }]), /redacted_thinking.data: Field required/],
  ])('refuses %s', (_name, messages, message) => {
    expect(validateAnthropicRequest({ ...base, messages })?.message).toMatch(message);
  });
  it('takes the same turn with its thinking block, or with thinking off without one; refuses a budget under 1024', () => {
    expect(validateAnthropicRequest({ ...base, messages: toolTurn([{ type: 'thinking', thinking: 't', signature: thinkingSignature('t') }]) })).toBeUndefined();
    expect(validateAnthropicRequest({ ...base, thinking: { type: 'disabled' }, messages: toolTurn([]) })).toBeUndefined();
    expect(validateAnthropicRequest({ ...base, thinking: { type: 'enabled', budget_tokens: 512 }, messages: toolTurn([]) })?.message).toMatch(/greater than or equal to 1024/);
  });
});

describe('reasoning_content from OpenAI-compatible servers', () => {
  it('DeepSeek: shown, and passed back on tool-call turns (the server refuses a tool-call turn without it); dropped from plain answers', async () => {
    const rt = runtime();
    server.enqueue(reply().thinking('Let me ').thinking('call echo.').tool('echo', { text: 'z' }), reply().thinking('Done thinking.').text('All done.'));
    const { out, events, id } = await send(rt, compatible('deepseek-v4-flash'), 'echo z');
    expect(out.status, out.error).toBe('finished');
    expect(events.filter((e) => e.type === 'thinking').map((e) => (e as { delta: string }).delta).join('')).toBe('Let me call echo.Done thinking.');
    server.enqueue(reply().text('Next.'));
    const next = await send(rt, compatible('deepseek-v4-flash'), 'next', id);
    expect(next.out.status, next.out.error).toBe('finished');
    const assistants = (server.requests[2]!.body as unknown as { messages: { role: string; reasoning_content?: string; tool_calls?: unknown }[] }).messages.filter((m) => m.role === 'assistant');
    expect(assistants.map((m) => [Boolean(m.tool_calls), m.reasoning_content])).toEqual([
      [true, 'Let me call echo.'],
      [false, undefined],
    ]);
    expect(server.refused).toEqual([]);
  });

  it('the validation refuses a DeepSeek tool-call turn without reasoning_content and takes it with', () => {
    const messages = (reasoning?: string) => [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, ...(reasoning ? { reasoning_content: reasoning } : {}), tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ];
    expect(validateOpenAIRequest({ model: 'deepseek-v4-pro', messages: messages() })?.message).toMatch(/reasoning_content. in the thinking mode must be passed back/);
    expect(validateOpenAIRequest({ model: 'deepseek-v4-pro', messages: messages('thought') })).toBeUndefined();
  });
});

describe('the replay rules and the setting', () => {
  const stored = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'signed', providerOptions: { anthropic: { signature: 's' } } }, { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'd' } } }, { type: 'tool-call', toolCallId: 'c', toolName: 'echo', input: {} }] },
    { role: 'tool', content: [] },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'plain' }, { type: 'text', text: 'answer' }] },
  ];
  it('keeps per wire what its API takes', () => {
    const types = (provider: string) => replayReasoning(stored, provider).map((m) => (Array.isArray(m.content) ? (m.content as { type: string; text?: string }[]).map((p) => (p.type === 'reasoning' ? `reasoning:${p.text}` : p.type)) : m.content));
    expect(types('anthropic.messages')).toEqual(['q', ['reasoning:signed', 'reasoning:', 'tool-call'], [], ['text']]);
    expect(types('openai-compatible.chat')).toEqual(['q', ['reasoning:signed', 'tool-call'], [], ['text']]);
    expect(types('openai.chat')).toEqual(['q', ['tool-call'], [], ['text']]);
  });
  it('--thinking reaches the provider config, and a wrong value is a usage error naming what is taken', () => {
    const env = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
    try {
      expect(providerFromFlags({ provider: 'anthropic', thinking: '16000' }).thinking).toBe(16000);
      expect(providerFromFlags({ provider: 'anthropic', thinking: 'max' }).thinking).toBe('max');
      expect(providerFromFlags({ provider: 'anthropic' })).not.toHaveProperty('thinking');
      expect(() => providerFromFlags({ provider: 'anthropic', thinking: 'very' })).toThrow(/--thinking: thinking is off, low, medium, high, max or a budget/);
    } finally {
      if (env === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = env;
    }
  });
  it.each([['off', 'off'], ['HIGH', 'high'], ['2048', 2048]] as const)('parses %s', (text, value) => expect(parseThinking(text)).toBe(value));
  it.each(['500', 'lots', ''])('refuses %s with what it takes', (text) => expect(() => parseThinking(text)).toThrow(/off, low, medium, high, max or a budget|at least 1024/));
});
