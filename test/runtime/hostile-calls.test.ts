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
import { reply, startModelServer, type ModelServer, type ReplyBuilder } from '../support/model-server';
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

/** One hostile step (or two) the scripted model plays, and what the run must show afterwards. */
interface Case {
  name: string;
  replies: ReplyBuilder[];
  /** The model is asked this many times in all (the last request holds the answers to the hostile calls). */
  requests: number;
  check(protocol: 'openai' | 'anthropic', last: string): void;
}

const nested = (kind: string, make: (n: number) => string): Case => ({
  name: `arguments nested 200,000 deep (${kind}) get a tool error; the run goes on`,
  replies: [reply().toolRaw('loose', make(200_000)), reply().text('ok')],
  requests: 2,
  check: (_p, last) => {
    expect(last).toMatch(/nested (more than|too)|not valid JSON/);
    expect(runs).toBe(0);
  },
});

const CASES: Case[] = [
  {
    name: 'a tool-call id reused within a step: the repeat gets a tool error, the first runs, the run goes on',
    replies: [reply().tool('echo', { text: 'one' }, { id: 'call_same' }).tool('echo', { text: 'two' }, { id: 'call_same' }), reply().text('ok')],
    requests: 2,
    check: (protocol, last) => {
      expect(last).toContain('echo: one');
      if (protocol === 'anthropic') {
        expect(last).toMatch(/Two calls in this reply had the tool-call id call_same/);
        expect(runs).toBe(1);
      } else {
        // The OpenAI stream parser gives a second call at a new index an id of its own: both run, each answered once.
        expect(last).toContain('echo: two');
        expect(runs).toBe(2);
      }
    },
  },
  {
    name: 'a tool-call id reused from an earlier step (a provider that numbers per reply) just runs; both results stay',
    replies: [reply().tool('echo', { text: 'first' }, { id: 'call_1' }), reply().tool('echo', { text: 'second' }, { id: 'call_1' }), reply().tool('echo', { text: 'third' }, { id: 'call_1' }), reply().text('ok')],
    requests: 4,
    check: (_p, last) => {
      expect(last).toContain('echo: first');
      expect(last).toContain('echo: second');
      expect(last).toContain('echo: third');
      expect(last).not.toMatch(/already used|had the tool-call id/);
      expect(runs).toBe(3);
    },
  },
  nested('arrays', (n) => `{"value": ${'['.repeat(n)}${']'.repeat(n)}}`),
  nested('objects', (n) => `{"value": ${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  nested('unterminated', (n) => `{"value": ${'['.repeat(n)}`),
];

describe.each(['openai', 'anthropic'] as const)('hostile tool calls over %s', (protocol) => {
  it.each(CASES)('$name', async (c) => {
    server.enqueue(...c.replies);
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const out = await rt.sendMessage(conv.id, 'go', { provider: provider(protocol), interactive: false });
    expect(out.status).toBe('finished');
    expect(server.requests).toHaveLength(c.requests);
    c.check(protocol, nextRequest(c.requests - 1));
  });

  it('a provider restarted between messages sends call_1 again: the new run calls the tool, the history stays paired', async () => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const opts = { provider: provider(protocol), interactive: false };
    server.enqueue(reply().tool('echo', { text: 'before' }, { id: 'call_1' }), reply().text('one'));
    expect((await rt.sendMessage(conv.id, 'first', opts)).status).toBe('finished');
    server.enqueue(reply().tool('echo', { text: 'after' }, { id: 'call_1' }), reply().text('two'));
    expect((await rt.sendMessage(conv.id, 'second', opts)).status).toBe('finished');
    expect(runs).toBe(2);
    const last = nextRequest(3);
    expect(last).toContain('echo: before');
    expect(last).toContain('echo: after');
    expect(server.refused).toEqual([]);
  });
});
