/**
 * Security round three (issue 29), from item 15: tool calls a model (or a provider in the middle) can shape to break
 * the run — a reused tool-call id, arguments nested 200,000 deep — get a tool error the model can act on, and the run
 * goes on. Through the runtime with the scripted model server; the model's next request holds the error text.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Runtime } from '../../src/main/runtime/runtime';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { Store } from '../../src/main/services/store/store';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let runs = 0;
const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  params: z.object({ text: z.string().describe('Text to echo.') }).strict(),
  risk: 'read-only',
  disclosure: 'public',
  async execute({ text }) {
    runs++;
    return { output: `echo: ${text}` };
  },
});
const loose = defineTool({
  name: 'loose',
  description: 'Takes any JSON value.',
  params: z.object({ value: z.unknown() }).strict(),
  risk: 'read-only',
  disclosure: 'public',
  async execute() {
    runs++;
    return { output: 'took it' };
  },
});

let server: ModelServer;
let store: Store;
let dataDir: string;
let work: string;
beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-hostile-data-');
  work = tempDir('deskhand-hostile-work-');
  store = new Store(dataDir);
  runs = 0;
});
afterEach(async () => {
  store.close();
  await server.close();
});

const provider = (protocol: 'openai' | 'anthropic'): ProviderConfig =>
  protocol === 'openai' ? { provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' } : { provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test' };
const runtime = () => new Runtime({ store, dataDir, tools: [echo, loose] as ToolDefinition[], retryBaseMs: 10, idleTimeoutMs: 5000 });
const nextRequest = (i: number) => JSON.stringify(server.requests[i]!.body);

describe.each(['openai', 'anthropic'] as const)('hostile tool calls over %s', (protocol) => {
  it('a tool-call id reused within a step: the repeat gets a tool error, the first runs, the run goes on', async () => {
    server.enqueue(reply().tool('echo', { text: 'one' }, { id: 'call_same' }).tool('echo', { text: 'two' }, { id: 'call_same' }));
    server.enqueue(reply().text('ok'));
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const out = await rt.sendMessage(conv.id, 'go', { provider: provider(protocol), interactive: false });
    expect(out.status).toBe('finished');
    expect(server.requests).toHaveLength(2);
    expect(nextRequest(1)).toContain('echo: one');
    if (protocol === 'anthropic') {
      expect(nextRequest(1)).toMatch(/tool-call id call_same was already used/);
      expect(runs).toBe(1);
    } else {
      // The OpenAI stream parser gives a second call at a new index an id of its own: both run, each answered once.
      expect(nextRequest(1)).toContain('echo: two');
      expect(runs).toBe(2);
    }
  });

  it('a tool-call id reused from an earlier step gets a tool error; the earlier result stays', async () => {
    server.enqueue(reply().tool('echo', { text: 'first' }, { id: 'call_again' }));
    server.enqueue(reply().tool('echo', { text: 'second' }, { id: 'call_again' }));
    server.enqueue(reply().text('ok'));
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const out = await rt.sendMessage(conv.id, 'go', { provider: provider(protocol), interactive: false });
    expect(out.status).toBe('finished');
    expect(server.requests).toHaveLength(3);
    expect(nextRequest(2)).toContain('echo: first');
    expect(nextRequest(2)).toMatch(/tool-call id call_again was already used/);
    expect(runs).toBe(1);
  });

  it.each([
    ['arrays', (n: number) => `{"value": ${'['.repeat(n)}${']'.repeat(n)}}`],
    ['objects', (n: number) => `{"value": ${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`],
    ['unterminated', (n: number) => `{"value": ${'['.repeat(n)}`],
  ])('arguments nested 200,000 deep (%s) get a tool error; the run goes on', async (_kind, make) => {
    server.enqueue(reply().toolRaw('loose', make(200_000)));
    server.enqueue(reply().text('ok'));
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const out = await rt.sendMessage(conv.id, 'go', { provider: provider(protocol), interactive: false });
    expect(out.status).toBe('finished');
    expect(server.requests).toHaveLength(2);
    expect(nextRequest(1)).toMatch(/nested (more than|too)|not valid JSON/);
    expect(runs).toBe(0);
  });
});
