/**
 * Issue 48, item 3: a provider's bad day. Through the real runtime and the scripted server speaking each wire: retries
 * honour `retry-after` / `retry-after-ms` (bounded) and say so in `run.retry`; a stream cut mid-reply starts the step
 * again without doubling text or tool calls; a context-length refusal (each provider's body) compacts once and asks
 * again; a fallback model takes over on overload and the run names it; the repeat guard tells the model, then stops.
 * Waits are made short with the runtime's options (retryBaseMs, maxRetryDelayMs), never by sleeping in the test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Runtime } from '../../src/main/runtime/runtime';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { Store } from '../../src/main/services/store/store';
import { contextModule } from '../../src/main/services/store/modules/context';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let runs: string[] = [];
const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  params: z.object({ text: z.string().describe('Text to echo.') }).strict(),
  risk: 'read-only',
  disclosure: 'public',
  async execute({ text }) {
    runs.push(text);
    return { output: `echo: ${text}` };
  },
});
const waiter = defineTool({
  name: 'poll',
  description: 'Poll.',
  params: z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'public',
  repeats: 'expected',
  async execute() {
    runs.push('poll');
    return { output: 'still running' };
  },
});

let server: ModelServer;
let store: Store;
let dataDir: string;
let work: string;
beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-badday-data-');
  work = tempDir('deskhand-badday-work-');
  store = new Store(dataDir);
  runs = [];
});
afterEach(async () => {
  store.close();
  await server.close();
});

type Wire = 'anthropic' | 'openai' | 'openai-responses';
const provider = (wire: Wire, extra: Partial<ProviderConfig> = {}): ProviderConfig =>
  wire === 'anthropic'
    ? { provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test', ...extra }
    : { provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test', ...(wire === 'openai-responses' ? { openaiApi: 'responses' as const } : {}), ...extra };
const runtime = (opts: { maxRetryDelayMs?: number; retryBaseMs?: number; contextWindow?: number } = {}) =>
  new Runtime({ store, dataDir, tools: [echo, waiter] as ToolDefinition[], retryBaseMs: opts.retryBaseMs ?? 2, maxRetryDelayMs: opts.maxRetryDelayMs ?? 50, idleTimeoutMs: 5000, ...(opts.contextWindow ? { contextWindow: opts.contextWindow } : {}) });
const retries = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { type: 'run.retry' }> => e.type === 'run.retry');
const modelOf = (body: unknown) => (body as { model: string }).model;

describe.each(['anthropic', 'openai', 'openai-responses'] as const)('a bad day over %s', (wire) => {
  async function send(rt: Runtime, text: string, extra: Partial<ProviderConfig> = {}, conversationId?: string) {
    const events: RunEvent[] = [];
    const id = conversationId ?? rt.createConversation({ folder: work, policy: 'read-only' }).id;
    const out = await rt.sendMessage(id, text, { provider: provider(wire, extra), interactive: false, onEvent: (e) => events.push(e) });
    return { out, events, id };
  }

  it('529 / 503 / 429 are retried; retry-after-ms and retry-after are honoured and bounded; each wait is a run.retry with the reason', async () => {
    // Backoff alone would wait at least 500 ms (retryBaseMs 1000): the delays below can only come from the headers.
    const rt = runtime({ retryBaseMs: 1000, maxRetryDelayMs: 40 });
    server.enqueue(
      reply().status(529, { retryAfterMs: 7 }),
      reply().status(503, { retryAfterSeconds: 0 }),
      reply().status(429, { retryAfterSeconds: 30 }),
      reply().text('made it'),
    );
    const { out, events } = await send(rt, 'hi');
    expect(out.status, out.error).toBe('finished');
    const seen = retries(events);
    expect(seen.map((r) => r.delayMs)).toEqual([7, 0, 40]);
    expect(seen.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(seen[0]!.reason).toMatch(/overloaded \(529\)/);
    expect(seen[1]!.reason).toMatch(/overloaded \(503\)/);
    expect(seen[2]!.reason).toMatch(/rate limiting requests \(429\).*It asked to wait 30 s/);
    expect(server.requests).toHaveLength(4);
  });

  it('retries are bounded: after maxRetries the run fails with the provider error, not a hang', async () => {
    const rt = runtime();
    server.enqueue(...Array.from({ length: 4 }, () => reply().status(529)));
    const { out, events } = await send(rt, 'hi');
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/overloaded \(529\)/);
    expect(retries(events)).toHaveLength(3);
    expect(server.requests).toHaveLength(4);
  });

  it('backoff without retry-after grows and has jitter, within its bound', async () => {
    const rt = runtime({ retryBaseMs: 8, maxRetryDelayMs: 1000 });
    server.enqueue(reply().status(500), reply().status(500), reply().status(500), reply().text('ok'));
    const { out, events } = await send(rt, 'hi');
    expect(out.status).toBe('finished');
    const delays = retries(events).map((r) => r.delayMs);
    // Attempt n waits between half and all of retryBaseMs × 2^n.
    delays.forEach((d, n) => {
      expect(d).toBeGreaterThanOrEqual(4 * 2 ** n);
      expect(d).toBeLessThanOrEqual(8 * 2 ** n);
    });
  });

  it('a stream cut mid-text starts the step again: the reply is stored once, the retry says the shown text is void', async () => {
    const rt = runtime();
    // Cut after the first text deltas (the Responses wire sends four events before its first delta).
    server.enqueue(reply().text('Hello, ').text('wor').text('ld.').cutAfter(wire === 'openai-responses' ? 6 : 4), reply().text('Hello, ').text('world.'));
    const { out, events, id } = await send(rt, 'greet');
    expect(out.status, out.error).toBe('finished');
    const texts = store.listMessages(id).filter((m) => m.role === 'assistant').map((m) => m.content);
    expect(texts).toEqual([JSON.stringify([{ type: 'text', text: 'Hello, world.' }])]);
    // Order on the event stream: the cut attempt's text, the retry (which voids it), then the whole reply.
    const kinds = events.filter((e) => e.type === 'text' || e.type === 'run.retry').map((e) => (e.type === 'text' ? 'text' : 'retry'));
    expect(kinds.indexOf('retry')).toBeGreaterThan(0);
    const after = events.slice(events.findIndex((e) => e.type === 'run.retry'));
    expect(after.filter((e): e is Extract<RunEvent, { type: 'text' }> => e.type === 'text').map((e) => e.delta).join('')).toBe('Hello, world.');
    expect(retries(events)[0]!.reason).toMatch(/connection|broke|terminated/i);
  });

  it('a stream cut in the middle of a tool call runs the call once, from the retried reply', async () => {
    const rt = runtime();
    server.enqueue(reply().tool('echo', { text: 'first try' }).cutAfter(4), reply().tool('echo', { text: 'once' }), reply().text('done'));
    const { out, id } = await send(rt, 'echo');
    expect(out.status, out.error).toBe('finished');
    expect(runs).toEqual(['once']);
    expect(store.toolCallsForConversation(id)).toHaveLength(1);
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain('first try');
  });

  it('a context-length refusal compacts once and asks again; the next request carries the summary', async () => {
    const rt = runtime();
    const { id } = await (async () => {
      const rtConv = rt.createConversation({ folder: work, policy: 'read-only' });
      for (let i = 0; i < 4; i++) {
        server.enqueue(reply().text(`answer ${i} ${'x'.repeat(1500)}`));
        await rt.sendMessage(rtConv.id, `question ${i} ${'y'.repeat(1500)}`, { provider: provider(wire), interactive: false });
      }
      return { id: rtConv.id };
    })();
    const before = server.requests.length;
    server.enqueue(reply().contextLengthError(), reply().text('SUMMARY-OF-EARLIER'), reply().text('answered'));
    const { out, events } = await send(rt, 'one more', {}, id);
    expect(out.status, out.error).toBe('finished');
    const seen = retries(events);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.reason).toMatch(wire === 'anthropic' ? /prompt is too long/ : /maximum context length/);
    expect(seen[0]!.reason).toMatch(/Compacted/);
    expect(store.module(contextModule).latest(id)).toMatchObject({ reason: 'refused' });
    // The refused request, the summary call, the request asked again (shorter, with the summary).
    expect(server.requests).toHaveLength(before + 3);
    const retried = JSON.stringify(server.requests.at(-1)!.body);
    expect(retried).toContain('SUMMARY-OF-EARLIER');
    expect(retried.length).toBeLessThan(JSON.stringify(server.requests[before]!.body).length);
    expect(server.refused).toEqual([]);
  });

  it('a second context-length refusal in the same step fails with words to act on (compacts once, not forever)', async () => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    for (let i = 0; i < 4; i++) {
      server.enqueue(reply().text(`answer ${i} ${'x'.repeat(1500)}`));
      await rt.sendMessage(conv.id, `question ${i} ${'y'.repeat(1500)}`, { provider: provider(wire), interactive: false });
    }
    server.enqueue(reply().contextLengthError(), reply().text('summary'), reply().contextLengthError());
    const { out } = await send(rt, 'again', {}, conv.id);
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/longer than the model's context.*Lower the context window in Settings → Providers/);
    expect(store.module(contextModule).count(conv.id)).toBe(1);
  });

  it('overloaded with a fallback model: the step goes to the fallback at once, the rest of the run stays there, the run names it', async () => {
    const rt = runtime();
    server.enqueue(reply().status(529), reply().tool('echo', { text: 'on fallback' }), reply().text('done'));
    const { out, events } = await send(rt, 'work', { fallbackModel: 'small-model' });
    expect(out.status, out.error).toBe('finished');
    expect(server.requests.map((r) => modelOf(r.body))).toEqual([provider(wire).model, 'small-model', 'small-model']);
    expect(retries(events)[0]!.reason).toMatch(/Switching to the fallback model small-model/);
    expect(store.getRun(out.runId)!.model).toBe('small-model');
    // The next message starts on the person's model again.
    server.enqueue(reply().text('back'));
    await send(rt, 'next', { fallbackModel: 'small-model' }, out.conversationId);
    expect(modelOf(server.requests.at(-1)!.body)).toBe(provider(wire).model);
  });

  it('without a fallback model, overload is retried on the same model', async () => {
    const rt = runtime();
    server.enqueue(reply().status(529), reply().text('ok'));
    const { out } = await send(rt, 'work');
    expect(out.status).toBe('finished');
    expect(server.requests.map((r) => modelOf(r.body))).toEqual([provider(wire).model, provider(wire).model]);
  });

  it('the repeat guard: the third identical call is not run and the model is told why; the fifth stops the run', async () => {
    const rt = runtime();
    const same = () => reply().tool('echo', { text: 'again' });
    server.enqueue(same(), same(), same(), same(), same(), reply().text('never asked'));
    const { out } = await send(rt, 'loop');
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/called echo with the same arguments 5 times in a row/);
    expect(runs).toEqual(['again', 'again']);
    expect(server.requests).toHaveLength(5);
    const fourth = JSON.stringify(server.requests[3]!.body);
    expect(fourth).toMatch(/Not run: this is the 3rd call in a row of echo with the same arguments.*Use that result, change the arguments/);
    expect(server.pending).toBe(1);
  });

  it('the repeat guard counts steps: one call made four times in one step (in parallel) all run', async () => {
    const rt = runtime();
    let r = reply();
    for (let i = 0; i < 4; i++) r = r.tool('echo', { text: 'same' });
    server.enqueue(r, reply().text('done'));
    const { out } = await send(rt, 'parallel');
    expect(out.status, out.error).toBe('finished');
    expect(runs).toEqual(['same', 'same', 'same', 'same']);
  });

  it('the repeat guard: other arguments reset the count, and a tool that declares repeats expected is never refused', async () => {
    const rt = runtime();
    server.enqueue(
      reply().tool('echo', { text: 'a' }),
      reply().tool('echo', { text: 'a' }),
      reply().tool('echo', { text: 'b' }),
      reply().tool('echo', { text: 'a' }),
      reply().tool('echo', { text: 'a' }),
      ...Array.from({ length: 6 }, () => reply().tool('poll', {})),
      reply().text('done'),
    );
    const { out } = await send(rt, 'mixed');
    expect(out.status, out.error).toBe('finished');
    expect(runs).toEqual(['a', 'a', 'b', 'a', 'a', ...Array.from({ length: 6 }, () => 'poll')]);
  });
});
