/**
 * A model reply's text deltas reach the stream redactor about twice per network read (model-step.ts): the first
 * delta of a turn of the event loop at once, the rest of that turn joined. The first delta is shown while the server
 * still holds the rest (ordering, not timing). A secret split across deltas is still redacted whole, whether its pieces
 * arrive in one read (a burst) or in several (paced), and what the events carry joins to what the store keeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/main/runtime/runtime';
import { Store } from '../../src/main/services/store/store';
import type { RunEvent } from '../../src/shared/events';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

const SECRET = 'tok_5f8a1c9e3b7d2f4a6c0e';

let server: ModelServer;
let store: Store;

beforeEach(async () => {
  server = await startModelServer();
  store = new Store(tempDir('deskhand-data-'));
  process.env.TEST_STREAM_TOKEN = SECRET;
});

afterEach(async () => {
  delete process.env.TEST_STREAM_TOKEN;
  store.close();
  await server.close();
});

const provider = (): ProviderConfig => ({ provider: 'openai-compatible', model: 'llama-test', baseURL: server.baseURL, apiKey: null });

/** The secret cut into pieces of 1 to 3 characters, inside ordinary words. */
function tokensWithSplitSecret(): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < SECRET.length; ) {
    const n = 1 + (i % 3);
    pieces.push(SECRET.slice(i, i + n));
    i += n;
  }
  const words = Array.from({ length: 300 }, (_, i) => `word${i} `);
  return [...words.slice(0, 150), 'the token ', ...pieces, ' is set. ', ...words.slice(150)];
}

async function run(text: string[], delayMs?: number): Promise<{ deltas: string[]; stored: string }> {
  server.enqueue(delayMs ? { text, delayMs } : { text });
  const rt = new Runtime({ store, dataDir: store.dataDir, tools: [], idleTimeoutMs: 10_000 });
  const conv = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  const events: RunEvent[] = [];
  const outcome = await rt.sendMessage(conv.id, 'go', { provider: provider(), interactive: false, onEvent: (e) => events.push(e) });
  expect(outcome.status).toBe('finished');
  const deltas = events.flatMap((e) => (e.type === 'text' ? [e.delta] : []));
  const assistant = store.listMessages(conv.id).find((m) => m.role === 'assistant')!;
  const stored = (JSON.parse(assistant.content) as { type: string; text: string }[]).map((p) => p.text).join('');
  return { deltas, stored };
}

describe('streamed model text in batches', () => {
  it('a burst: the secret split across deltas of one read never reaches an event; far fewer events than deltas', async () => {
    const tokens = tokensWithSplitSecret();
    const { deltas, stored } = await run(tokens);
    for (const d of deltas) expect(d).not.toContain(SECRET.slice(0, 8));
    expect(deltas.join('')).not.toContain(SECRET);
    expect(deltas.join('')).toContain('the token [redacted:TEST_STREAM_TOKEN] is set.');
    expect(deltas.join('')).toBe(stored);
    expect(stored).not.toContain(SECRET);
    // One write by the server: a few reads, about two pushes each (it was one event per delta).
    expect(deltas.length).toBeLessThan(tokens.length / 10);
  });

  it('the first delta reaches an event at once: the server holds the rest of the reply until the test has seen it', async () => {
    // A batcher that kept text back until the reply ended would never show the first words here: the server sends them,
    // then holds everything else (the rest of the text and the finish) until the first text event exists.
    server.enqueue(reply().text('First words. ').text('The rest ').text('of the reply.').hold('first'));
    const rt = new Runtime({ store, dataDir: store.dataDir, tools: [], idleTimeoutMs: 60_000 });
    const conv = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
    const events: RunEvent[] = [];
    let seeFirst!: (delta: string) => void;
    const first = new Promise<string>((resolve) => (seeFirst = resolve));
    const outcome = rt.sendMessage(conv.id, 'go', {
      provider: provider(),
      interactive: false,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'text') seeFirst(e.delta);
      },
    });
    await server.held('first');
    const ended = outcome.then(() => 'the run ended' as const);
    // The reply cannot end while held: whatever comes first here is the first text event (a deadlock is bounded only
    // by the test's own timeout).
    expect(await Promise.race([first, ended])).toBe('First words. ');
    expect(events.filter((e) => e.type === 'text')).toHaveLength(1);
    server.release('first');
    expect((await outcome).status).toBe('finished');
    expect(events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('')).toBe('First words. The rest of the reply.');
  });

  it('the last text is handed on before the step is written: a batch per turn of the event loop goes out first', async () => {
    // The web host sends events in one batch per turn (EventBatcher, a setImmediate). Writing the step (redacting and
    // storing the whole reply) before that turn came kept the last words off the screen for as long as the write took.
    server.enqueue({ text: Array.from({ length: 400 }, (_, i) => `word${i} `).concat('last') });
    const rt = new Runtime({ store, dataDir: store.dataDir, tools: [], idleTimeoutMs: 10_000 });
    const conv = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
    const order: string[] = [];
    let batchPending = false;
    let text = '';
    const outcome = await rt.sendMessage(conv.id, 'go', {
      provider: provider(),
      interactive: false,
      onEvent: (e) => {
        if (e.type === 'text') {
          text += e.delta;
          if (!batchPending) {
            batchPending = true;
            setImmediate(() => {
              batchPending = false;
              order.push(`batch:${text.length}`);
            });
          }
        } else if (e.type === 'usage') order.push(`usage:${batchPending ? 'a batch pending' : 'nothing pending'}`);
      },
    });
    expect(outcome.status).toBe('finished');
    expect(text.endsWith('word399 last')).toBe(true);
    // The batch holding the last word went out before the step's usage (emitted once the step is written).
    expect(order.slice(-2)).toEqual([`batch:${text.length}`, 'usage:nothing pending']);
    const assistant = store.listMessages(conv.id).find((m) => m.role === 'assistant')!;
    expect((JSON.parse(assistant.content) as { text: string }[])[0]!.text).toBe(text);
  });

  it('paced: the secret split across deltas of separate reads never reaches an event', async () => {
    const pieces = tokensWithSplitSecret().slice(148, 170);
    const { deltas, stored } = await run(pieces, 5);
    for (const d of deltas) expect(d).not.toContain(SECRET.slice(0, 8));
    for (let i = 0; i < SECRET.length - 4; i++) expect(deltas.some((d) => d.includes(SECRET.slice(i, i + 4)))).toBe(false);
    expect(deltas.join('')).toContain('the token [redacted:TEST_STREAM_TOKEN] is set.');
    expect(deltas.join('')).toBe(stored);
  });
});
