/**
 * Issue 48, item 3: a conversation survives switching providers at any point, in both directions. Tool-call ids an
 * OpenAI-compatible server made up (`functions.read_file:0`), ids a provider numbers per reply (`call_1` again), and
 * an assistant reply of whitespace only (written by an earlier version) replay to each wire in a shape that wire's
 * API takes: the scripted server validates every request as the provider would (provider-validation.ts) and refuses
 * what the provider refuses.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/main/runtime/runtime';
import { Store } from '../../src/main/services/store/store';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { ANTHROPIC_CALL_ID, wireHistory } from '../../src/main/runtime/loop/call-ids';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { validateAnthropicRequest, validateOpenAIRequest } from '../support/provider-validation';
import { tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';

let server: ModelServer;
let store: Store;
let dataDir: string;
let work: string;
beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-ids-data-');
  work = tempDir('deskhand-ids-work-');
  store = new Store(dataDir);
});
afterEach(async () => {
  store.close();
  await server.close();
});

const wires: Record<string, () => ProviderConfig> = {
  anthropic: () => ({ provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test' }),
  openai: () => ({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' }),
  'openai-compatible': () => ({ provider: 'openai-compatible', model: 'qwen-test', baseURL: server.baseURL, apiKey: null }),
};

describe('a mixed history replays to every wire', () => {
  it.each([
    ['openai-compatible', 'anthropic', 'openai-compatible', 'openai', 'anthropic'],
    ['anthropic', 'openai-compatible', 'anthropic', 'openai', 'openai-compatible'],
  ])('%s → %s → %s → %s → %s', async (...order) => {
    writeFileSync(join(work, 'a.txt'), 'alpha\n');
    const rt = new Runtime({ store, dataDir, tools: builtinTools({ dataDir }), retryBaseMs: 1, idleTimeoutMs: 5000 });
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    // A whitespace-only assistant reply as an earlier version stored it (the runtime no longer writes one).
    store.addMessage(conv.id, null, 'user', 'hi');
    store.addMessage(conv.id, null, 'assistant', [{ type: 'text', text: ' \n\n ' }]);
    const odd = ['functions.read_file:0', 'call 1', 'functions.read_file:0', 'call_1', 'call_1'];
    for (const [turn, name] of order.entries()) {
      server.enqueue(
        // Every turn: a whitespace-only preamble, a call with an odd or reused id, then a text reply.
        reply().text('\n  ').tool('read_file', { path: 'a.txt' }, { id: odd[turn]! }),
        reply().tool('ls', {}, { id: odd[turn]! }),
        reply().text(` turn ${turn} done`),
      );
      const out = await rt.sendMessage(conv.id, `turn ${turn}`, { provider: wires[name!]!(), interactive: false });
      expect(out.status, `${name}: ${out.error ?? ''}`).toBe('finished');
    }
    expect(server.refused.map((r) => r.refusal.message)).toEqual([]);
    expect(server.requests).toHaveLength(order.length * 3);
    for (const request of server.requests) {
      expect(request.protocol === 'anthropic' ? validateAnthropicRequest(request.body) : validateOpenAIRequest(request.body)).toBeUndefined();
    }
    // Every call ran (no "already used" refusals), and every result is in the last request, paired with its call.
    const last = JSON.stringify(server.requests.at(-1)!.body);
    expect(last).not.toMatch(/already used|had the tool-call id/);
    expect(last.match(/alpha/g)?.length ?? 0).toBeGreaterThanOrEqual(order.length);
    const anthropicIds = server.requests
      .filter((r) => r.protocol === 'anthropic')
      .flatMap((r) => (r.body as { messages: { content: unknown }[] }).messages)
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; id?: string }[]) : []))
      .filter((b) => b.type === 'tool_use')
      .map((b) => b.id!);
    expect(anthropicIds.length).toBeGreaterThan(0);
    for (const id of anthropicIds) expect(id).toMatch(ANTHROPIC_CALL_ID);
  });
});

describe('wireHistory', () => {
  const call = (id: string, name = 'read_file') => ({ type: 'tool-call', toolCallId: id, toolName: name, input: {} });
  const result = (id: string) => ({ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: id } });
  type M = { role: 'user' | 'assistant' | 'tool'; content: unknown };
  const history: M[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'text', text: '  ' }, call('functions.read_file:0'), call('functions_read_file_0')] },
    { role: 'tool', content: [result('functions.read_file:0'), result('functions_read_file_0')] },
    { role: 'assistant', content: [call('call_1')] },
    { role: 'tool', content: [result('call_1')] },
    // An older history with an id repeated across steps: each result still follows its own call.
    { role: 'assistant', content: [{ type: 'text', text: 'again' }, call('call_1')] },
    { role: 'tool', content: [result('call_1')] },
    { role: 'assistant', content: [{ type: 'text', text: '\n\t ' }] },
    { role: 'assistant', content: '   ' },
    { role: 'user', content: 'next' },
  ];
  const ids = (ms: M[]) => ms.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; toolCallId?: string }[]) : []).filter((p) => p.toolCallId).map((p) => `${p.type}:${p.toolCallId}`));

  it('anthropic: ids cleaned, unique, each result following its call; whitespace-only text and messages left out', () => {
    const out = wireHistory(history, 'anthropic');
    expect(ids(out)).toEqual([
      expect.stringMatching(/^tool-call:functions_read_file_0_[0-9a-f]{8}$/),
      'tool-call:functions_read_file_0',
      expect.stringMatching(/^tool-result:functions_read_file_0_[0-9a-f]{8}$/),
      'tool-result:functions_read_file_0',
      'tool-call:call_1',
      'tool-result:call_1',
      'tool-call:call_1_2',
      'tool-result:call_1_2',
    ]);
    expect(ids(out)[0]!.slice('tool-call:'.length)).toBe(ids(out)[2]!.slice('tool-result:'.length));
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(out)).not.toMatch(/"text":"\s*"/);
    // Deterministic: the same history maps the same way on every request (the prompt cache keeps matching).
    expect(wireHistory(history, 'anthropic')).toEqual(out);
  });

  it('openai: ids kept as the provider sent them unless repeated; untouched messages are the same objects', () => {
    const out = wireHistory(history, 'openai');
    expect(ids(out)).toEqual([
      'tool-call:functions.read_file:0',
      'tool-call:functions_read_file_0',
      'tool-result:functions.read_file:0',
      'tool-result:functions_read_file_0',
      'tool-call:call_1',
      'tool-result:call_1',
      'tool-call:call_1_2',
      'tool-result:call_1_2',
    ]);
    expect(out[0]).toBe(history[0]);
    expect(out[3]).toBe(history[3]);
  });
});
