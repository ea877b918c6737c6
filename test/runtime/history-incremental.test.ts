/**
 * The model's view of a conversation is kept between steps: a step reads only the messages appended since the last
 * one (never the whole history again), the size estimate that decides compaction is updated as messages arrive and
 * equals a from-scratch estimate, compaction still happens exactly when that estimate reaches the threshold, and a
 * deletion made behind the runtime's back (another connection) is noticed.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { estimateTokens } from '../../src/main/runtime/context/compaction';
import { historyReads, IMAGE_PART_CHARS, messageChars } from '../../src/main/runtime/context/history-cache';
import { contextModule } from '../../src/main/services/store/modules/context';
import { reply } from '../support/model-server';
import { messagesOf, openSubHarness, textOf, type SubHarness } from '../subagents/harness';

let h: SubHarness;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
});

/** The estimate computed the slow way: every stored message after the latest compaction, parsed and measured. */
function freshChars(h: SubHarness, conversationId: string): number {
  const upto = h.store.module(contextModule).latest(conversationId)?.upto_message_id ?? 0;
  const chars = h.store
    .listMessages(conversationId)
    .filter((m) => m.id > upto)
    .reduce((n, m) => n + messageChars(JSON.parse(m.content) as unknown, m.content), 0);
  return chars;
}
const freshTokens = (h: SubHarness, conversationId: string) => estimateTokens(freshChars(h, conversationId)) + 1500;

describe('incremental history', () => {
  it('reads each stored message once across a run of many steps, and the model still gets the whole history', async () => {
    h = await openSubHarness();
    writeFileSync(join(h.work, 'a.txt'), 'hello\n');
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    const STEPS = 25;
    // Two spellings of the path in turn: the same call step after step would meet the repeat guard (model-step.ts).
    h.server.enqueue(...Array.from({ length: STEPS }, (_, i) => reply().tool('stat', { path: i % 2 ? 'a.txt' : './a.txt' })), reply().text('done'));
    const listAll = vi.spyOn(h.store, 'listMessages');
    const after = vi.spyOn(h.store, 'messagesAfter');
    const rowsBefore = historyReads.rows;
    const outcome = await h.runtime.sendMessage(conv.id, 'stat it many times', { provider: h.provider(), interactive: false });
    expect(outcome.status).toBe('finished');

    // Nothing read the whole history during the run.
    expect(listAll).not.toHaveBeenCalled();
    const stored = h.store.listMessages(conv.id);
    expect(stored.length).toBe(1 + 2 * STEPS + 1); // the question, STEPS × (call, result), the answer
    // Every read asked only for what came after the last message already seen: the rows read add up to the
    // messages that existed before the last model call (each read once), not to a sum growing with every step.
    const rowsRead = after.mock.results.reduce((n, r) => n + (r.value as unknown[]).length, 0);
    expect(rowsRead).toBe(stored.length - 1);
    expect(historyReads.rows - rowsBefore).toBe(rowsRead);
    expect(after.mock.calls.filter(([, afterId]) => afterId === 0).length).toBeLessThanOrEqual(1);
    // One look per model step: the compaction check's view serves the request too when nothing was written between.
    expect(after.mock.calls.length).toBeLessThanOrEqual(STEPS + 1);
    // And the last request carried the whole history: system, the question, every call and result.
    const last = h.server.requests.at(-1)!;
    expect(messagesOf(last).length).toBe(1 + stored.length - 1);
    expect(textOf(messagesOf(last)[1]!.content)).toContain('stat it many times');
  });

  it('keeps the size estimate equal to a fresh one and compacts exactly when it reaches the threshold', async () => {
    h = await openSubHarness({ contextWindow: 6000 });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    const threshold = h.runtime.contextFigures(conv.id).compactAtTokens;
    h.server.setFallback((req) =>
      textOf(messagesOf(req)[0]?.content).startsWith('You compact an agent') ? reply().text('SUMMARY') : reply().text('noted'),
    );
    let compactedAt = -1;
    for (let turn = 1; turn <= 12 && compactedAt < 0; turn++) {
      const message = `TURN-${turn} ${'lorem ipsum dolor sit amet '.repeat(60)}`;
      // What the check before the model call will see: the history so far plus this message.
      const predicted = estimateTokens(freshChars(h, conv.id) + message.length) + 1500;
      const before = h.store.module(contextModule).count(conv.id);
      await h.runtime.sendMessage(conv.id, message, { provider: h.provider(), interactive: false });
      const compacted = h.store.module(contextModule).count(conv.id) > before;
      expect(compacted).toBe(predicted >= threshold);
      const figure = h.runtime.contextFigures(conv.id).contextTokens;
      if (compacted) {
        compactedAt = turn;
        // After it: the kept turns plus the summary's stand-in message, under the threshold again.
        expect(figure).toBeGreaterThan(freshTokens(h, conv.id));
        expect(figure).toBeLessThan(threshold);
      } else {
        // The running figure is the fresh one.
        expect(figure).toBe(freshTokens(h, conv.id));
      }
    }
    expect(compactedAt).toBeGreaterThan(1);
  });

  it('counts an attached image as an image (1,600 tokens), not as its base64: a photo does not compact the conversation', async () => {
    h = await openSubHarness({ contextWindow: 8000 });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.server.setFallback(() => reply().text('a photo of noise'));
    // 600 KB behind a PNG signature: 800,000 characters of base64, 200,000 tokens if counted as text.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(600_000, 7)]);
    await h.runtime.sendMessage(conv.id, 'What is in this picture?', { provider: h.provider(), interactive: false, attachments: [{ name: 'noise.png', mediaType: 'image/png', data: png.toString('base64') }] });
    const stored = h.store.listMessages(conv.id);
    expect(stored[0]!.content.length).toBeGreaterThan(800_000);
    expect(h.store.module(contextModule).count(conv.id)).toBe(0);
    const figure = h.runtime.contextFigures(conv.id).contextTokens;
    expect(figure).toBe(freshTokens(h, conv.id));
    expect(figure).toBeGreaterThanOrEqual(1500 + IMAGE_PART_CHARS / 4);
    expect(figure).toBeLessThan(1500 + IMAGE_PART_CHARS / 4 + 300);
    // The model got the image itself.
    expect(JSON.stringify(messagesOf(h.server.requests.at(-1)!))).toContain(png.toString('base64').slice(0, 64));
  });

  it('notices a message deleted by another connection and sends the history without it', async () => {
    h = await openSubHarness();
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.server.enqueue(reply().text('first answer'), reply().text('second answer'));
    await h.runtime.sendMessage(conv.id, 'FIRST-QUESTION', { provider: h.provider(), interactive: false });
    const other = new Database(join(h.dataDir, 'deskhand.db'));
    try {
      const first = h.store.listMessages(conv.id)[0]!;
      other.prepare('DELETE FROM messages WHERE id = ?').run(first.id);
    } finally {
      other.close();
    }
    await h.runtime.sendMessage(conv.id, 'SECOND-QUESTION', { provider: h.provider(), interactive: false });
    const texts = messagesOf(h.server.requests.at(-1)!).map((m) => textOf(m.content)).join('\n');
    expect(texts).toContain('SECOND-QUESTION');
    expect(texts).toContain('first answer');
    expect(texts).not.toContain('FIRST-QUESTION');
  });
});
