/**
 * Fewer, larger SSE events for the provider SDK (issue 54, item 1; src/main/services/providers/sse-coalesce.ts): runs
 * of text-only events in one network read are joined before the AI SDK parses them. Proved by effects:
 * - through the real providers (OpenAI-compatible, OpenAI chat, Anthropic) against the scripted model server, a burst
 *   of deltas reaches the runtime as far fewer parts, with the same text, reasoning (and Anthropic's signature), tool
 *   calls with their assembled arguments, and usage;
 * - paced deltas (one per read) are passed on one by one, nothing held for a later read;
 * - the transform alone: every event that is not a text-only delta (tool calls, finish, usage, `[DONE]`, comments,
 *   other line ends) is passed on byte for byte in its place, and the stream's text is the same whatever the byte
 *   boundaries of the reads (mid-event, mid-UTF-8 character).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepPart } from '../../src/main/runtime/loop/model-call';
import type { ProviderName } from '../../src/main/services/providers/providers';
import { coalesceEvents, coalesceSseBody } from '../../src/main/services/providers/sse-coalesce';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { providerStep } from '../support/provider-step';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

const step = (provider: ProviderName): Promise<StepPart[]> => providerStep(provider, server.baseURL);

const TEXT = Array.from({ length: 300 }, (_, i) => (i % 17 === 16 ? `wörd${i} ✓\n\n` : `w${i} "q" \\ `));
const THINKING = Array.from({ length: 120 }, (_, i) => `think${i} `);

describe('coalesced provider streams', () => {
  for (const provider of ['openai-compatible', 'openai', 'anthropic'] as const) {
    it(`${provider}: a burst arrives as fewer parts with the same text, reasoning, tool calls and usage`, async () => {
      let r = reply();
      // OpenAI's own chat wire carries no reasoning text (the SDK reads none there).
      const thinking = provider === 'openai' ? [] : THINKING;
      for (const t of thinking) r = r.thinking(t);
      for (const t of TEXT) r = r.text(t);
      server.enqueue(r.tool('lookup', { q: 'a "quoted" ünïcode query that is long enough to be sent in several pieces' }).tool('lookup', { q: 'second' }).usage({ input: 123, output: 456 }));
      const parts = await step(provider);
      const text = parts.filter((p) => p.type === 'text');
      const reasoning = parts.filter((p) => p.type === 'reasoning');
      expect(text.map((p) => p.delta).join('')).toBe(TEXT.join(''));
      expect(reasoning.map((p) => p.delta).join('')).toBe(thinking.join(''));
      // One write of the whole reply: a few reads at most, not one part per delta.
      expect(text.length).toBeLessThan(TEXT.length / 10);
      expect(reasoning.length).toBeLessThanOrEqual(thinking.length / 10);
      const calls = parts.filter((p) => p.type === 'tool-call');
      expect(calls.map((c) => JSON.parse(c.input))).toEqual([{ q: 'a "quoted" ünïcode query that is long enough to be sent in several pieces' }, { q: 'second' }]);
      const finish = parts.find((p) => p.type === 'finish');
      expect(finish).toMatchObject({ inputTokens: 123, outputTokens: 456 });
      if (provider === 'anthropic') {
        // The thinking block's signature still comes with its end (replaying it needs it).
        const end = parts.find((p) => p.type === 'reasoning-end');
        expect(JSON.stringify(end?.type === 'reasoning-end' ? end.providerOptions : null)).toContain('signature');
      }
    });
  }

  it('paced deltas are passed on one by one', async () => {
    const paced = ['one ', 'two ', 'three ', 'four ', 'five'];
    server.enqueue({ text: paced, delayMs: 15 });
    const parts = await step('openai-compatible');
    expect(parts.filter((p) => p.type === 'text').map((p) => p.delta)).toEqual(paced);
  });
});

const enc = new TextEncoder();
const chunk = (delta: object, extra: object = {}): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: null }], usage: null, ...extra })}`;

describe('coalesceEvents', () => {
  it('joins runs of text deltas and passes every other event byte for byte in its place', () => {
    const events = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'a' }),
      chunk({ content: 'b' }),
      ': a comment',
      chunk({ reasoning_content: 'r1' }),
      chunk({ reasoning_content: 'r2' }),
      chunk({ content: 'c' }),
      chunk({ tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'x', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({ content: 'd' }),
      `data: ${JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: { content: 'e' }, finish_reason: 'stop' }] })}`,
      `data: ${JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } })}`,
      'data: [DONE]',
    ];
    const out = coalesceEvents(events.join('\n\n')).split('\n\n');
    expect(out).toEqual([
      events[0],
      chunk({ content: 'ab' }),
      events[3],
      chunk({ reasoning_content: 'r1r2' }),
      events[6],
      events[7],
      events[8],
      events[9],
      events[10],
      events[11],
      events[12],
      events[13],
    ]);
  });

  it('joins escaped text as it is, and events that differ elsewhere (another id) by their parsed text', () => {
    const escaped = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"caf\\u00e9 \\"q\\" \\\\"}}]}';
    const events = [chunk({ content: 'x' }), escaped.replace('"c1"', '"c2"'), chunk({ content: 'y' }), escaped];
    const out = coalesceEvents(events.join('\n\n'));
    const parsed = JSON.parse(out.slice(6)) as { choices: { delta: { content: string } }[] };
    expect(out.split('\n\n')).toHaveLength(1);
    expect(parsed.choices[0]!.delta.content).toBe('xcafé "q" \\ycafé "q" \\');
  });

  it('finds each event of a run from the one before (its closing quote, then the joint), never inside a string', () => {
    // Text that spells the joint itself (an event's end, the blank line, the next event's start), escaped quotes and a
    // backslash before the closing quote: all text. A run event that differs after its string (a finish reason) ends the
    // run and is passed as it came.
    const [before, after] = chunk({ content: 'SPLIT' }).split('SPLIT') as [string, string];
    const spelled = `${after}\n\n${before}`;
    const texts = ['a', spelled, 'end\\', 'q"uo"te', '\\"', 'b'];
    const finished = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'z' }, logprobs: null, finish_reason: 'stop' }], usage: null })}`;
    const events = [...texts.map((t) => chunk({ content: t })), finished, chunk({ content: 'c' }), chunk({ content: 'd' })];
    const out = coalesceEvents(events.join('\n\n')).split('\n\n');
    expect(out).toEqual([chunk({ content: texts.join('') }), finished, chunk({ content: 'cd' })]);
  });

  it('joins Anthropic text and thinking deltas of one block, never across blocks or kinds', () => {
    const ev = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}`;
    const d = (index: number, delta: object): string => ev('content_block_delta', { index, delta });
    const events = [
      d(0, { type: 'thinking_delta', thinking: 'x' }),
      d(0, { type: 'thinking_delta', thinking: 'y' }),
      d(0, { type: 'signature_delta', signature: 'sig' }),
      ev('content_block_stop', { index: 0 }),
      d(1, { type: 'text_delta', text: 'a' }),
      d(1, { type: 'text_delta', text: 'b' }),
      d(2, { type: 'text_delta', text: 'c' }),
      d(2, { type: 'input_json_delta', partial_json: '{"q"' }),
      d(2, { type: 'input_json_delta', partial_json: ':1}' }),
    ];
    expect(coalesceEvents(events.join('\n\n')).split('\n\n')).toEqual([
      d(0, { type: 'thinking_delta', thinking: 'xy' }),
      events[2],
      events[3],
      d(1, { type: 'text_delta', text: 'ab' }),
      events[6],
      events[7],
      events[8],
    ]);
  });
});

async function through(bytes: Uint8Array, cuts: number[]): Promise<string> {
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    pieces.push(bytes.slice(at, c));
    at = c;
  }
  const stream = coalesceSseBody(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const p of pieces) controller.enqueue(p);
        controller.close();
      },
    }),
  );
  let out = '';
  const dec = new TextDecoder();
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) out += dec.decode(c, { stream: true });
  return out + dec.decode();
}

/** The text of every content delta in an SSE body, in order. */
const contentOf = (body: string): string =>
  body
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => (JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');

describe('coalesceSseBody', () => {
  it('keeps the text whatever the read boundaries (mid-event, mid-character), holding only an incomplete event', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `wört${i}✓ `);
    const body = `${words.map((w) => chunk({ content: w })).join('\n\n')}\n\ndata: [DONE]\n\n`;
    const bytes = enc.encode(body);
    let seed = 3;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    for (let round = 0; round < 40; round++) {
      const cuts = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 12) }, () => 1 + Math.floor(rand() * (bytes.length - 1))))].sort((a, b) => a - b);
      const out = await through(bytes, cuts);
      expect(contentOf(out)).toBe(words.join(''));
      expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
    }
  });

  it('joins a read of many deltas into one event per run, the string bodies byte for byte (escapes, multi-byte text, another id)', async () => {
    const words = Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? `"q${i}"\\ ` : i % 5 === 0 ? `ü€😀${i}\n\n` : `w${i} `));
    const events = words.map((w, i) => (i === 250 ? chunk({ content: w }).replace('"id":"c1"', '"id":"c2"') : chunk({ content: w })));
    const out = await through(enc.encode(`${events.join('\n\n')}\n\ndata: [DONE]\n\n`), []);
    expect(contentOf(out)).toBe(words.join(''));
    // One event for the run (the event with another id is joined by its text), then [DONE].
    expect(out.split('\n\n').filter((e) => e.startsWith('data: {'))).toHaveLength(1);
  });

  it('passes the bytes of an event it does not join as they came, even bytes that are not UTF-8', async () => {
    const head = enc.encode(`${chunk({ content: 'a' })}\n\n: `);
    const tail = enc.encode(`\n\n${chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] })}\n\ndata: [DONE]\n\n`);
    const bytes = new Uint8Array([...head, 0xff, 0xfe, 0xc3, ...tail]);
    for (const cuts of [[], [head.length + 1], [head.length + 2, head.length + 5]]) {
      const pieces: Uint8Array[] = [];
      const stream = coalesceSseBody(
        new ReadableStream<Uint8Array>({
          start(controller) {
            let at = 0;
            for (const c of [...cuts, bytes.length]) {
              controller.enqueue(bytes.slice(at, c));
              at = c;
            }
            controller.close();
          },
        }),
      );
      for await (const c of stream as unknown as AsyncIterable<Uint8Array>) pieces.push(c);
      expect(Buffer.concat(pieces).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it('passes a stream with \\r line ends through untouched', async () => {
    const body = `${chunk({ content: 'a' })}\r\n\r\n${chunk({ content: 'b' })}\r\n\r\ndata: [DONE]\r\n\r\n`;
    expect(await through(enc.encode(body), [10, 40])).toBe(body);
  });

  it('hands on each read\'s events before the next read arrives (a paced token is not held)', async () => {
    let push: ((b: Uint8Array) => void) | null = null;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (b) => controller.enqueue(b);
      },
    });
    const reader = coalesceSseBody(source).getReader();
    push!(enc.encode(`${chunk({ content: 'Hel' })}\n\n`));
    const first = await reader.read();
    expect(contentOf(new TextDecoder().decode(first.value))).toBe('Hel');
    push!(enc.encode(`${chunk({ content: 'lo' })}\n\n`));
    expect(contentOf(new TextDecoder().decode((await reader.read()).value))).toBe('lo');
  });

  it('cancelling it cancels the body, and the body\'s error (an abort, a broken connection) is its error', async () => {
    let cancelled: unknown = null;
    const source = new ReadableStream<Uint8Array>({
      pull() {
        return new Promise<void>(() => undefined);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    await coalesceSseBody(source).cancel('stopped by the person');
    expect(cancelled).toBe('stopped by the person');

    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(enc.encode(`${chunk({ content: 'a' })}\n\n`));
        controller.error(new Error('terminated'));
      },
    });
    const reader = coalesceSseBody(broken).getReader();
    await expect(reader.read()).rejects.toThrow('terminated');
  });
});
