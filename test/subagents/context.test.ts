/**
 * Context that never silently loses the work, through the real loop: automatic compaction at the threshold keeps the
 * plan, todos and the last turns (checked in the next model request), summarize_context does it on demand, a 5 MB
 * result is offloaded and read back in pages, context_info reports the figures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/main/runtime/tool';
import { readOffloaded } from '../../src/main/runtime/loop/offload';
import { contextModule } from '../../src/main/services/store/modules/context';
import { reply, type RecordedRequest } from '../support/model-server';
import { allText, lastMessage, messagesOf, openSubHarness, textOf, type SubHarness } from './harness';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

const isSummaryCall = (req: RecordedRequest) => textOf(messagesOf(req)[0]?.content).startsWith('You compact an agent');
const filler = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(120)}`;

describe('compaction', () => {
  it('compacts a long conversation at the threshold and keeps the plan, todos and the last turn verbatim', async () => {
    h = await openSubHarness({ contextWindow: 4000 });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents', 'results'], true); // loaded from the first request, as a person enabling them would
    // Turn 1 pins a plan and todos.
    h.server.enqueue(
      reply()
        .tool('update_work_state', { patch: { plan: 'PLAN-STEP-1 read, PLAN-STEP-2 write' } })
        .tool('manage_todos', { todos: [{ title: 'TODO-ALPHA', status: 'in_progress' }, { title: 'TODO-BETA', status: 'pending' }] }),
      reply().text('planned'),
    );
    await h.runtime.sendMessage(conv.id, 'make a plan', { provider: h.provider(), interactive: false });
    h.server.setFallback((req) => (isSummaryCall(req) ? reply().text('SUMMARY-OF-EARLIER: planned, discussed turns 1-4') : reply().text('noted')));
    for (let i = 1; i <= 5; i++) await h.runtime.sendMessage(conv.id, filler(`TURN-${i}`), { provider: h.provider(), interactive: false });

    const records = h.store.module(contextModule).list(conv.id);
    expect(records.length).toBeGreaterThanOrEqual(1);
    const summaryReq = h.server.requests.find(isSummaryCall)!;
    expect(allText(summaryReq)).toContain('TURN-1');
    // The request right after the latest summary call: summary + pinned state + the kept turns.
    const idx = h.server.requests.lastIndexOf(h.server.requests.filter(isSummaryCall).at(-1)!);
    const next = h.server.requests[idx + 1]!;
    const msgs = messagesOf(next);
    const head = textOf(msgs[1]!.content);
    expect(head).toContain('Deskhand compacted this conversation');
    expect(head).toContain('SUMMARY-OF-EARLIER');
    expect(head).toContain('PLAN-STEP-1 read, PLAN-STEP-2 write');
    expect(head).toMatch(/\[~\] t1: TODO-ALPHA\n\[ \] t2: TODO-BETA/);
    // The system instructions are still first, the newest turn is verbatim, the oldest filler is gone.
    expect(textOf(msgs[0]!.content)).toContain('You are Deskhand');
    expect(textOf(lastMessage(next).content)).toContain(filler('TURN-5').slice(0, 200));
    // The person's old message keeps only its start (pinned), never the whole paste.
    expect(allText(next)).toContain('TURN-1 lorem');
    expect(allText(next)).not.toContain(filler('TURN-1'));
    // The record says what was dropped.
    const last = records.at(-1)!;
    expect(last.reason).toBe('auto');
    expect(last.dropped_messages).toBeGreaterThan(0);
    expect((JSON.parse(last.dropped) as { role: string }[]).length).toBe(last.dropped_messages);
    expect(last.tokens_before).toBeGreaterThanOrEqual(3200);
    // Nothing was deleted: the store still holds every message.
    expect(h.store.listMessages(conv.id).some((m) => m.content.includes('TURN-1 lorem'))).toBe(true);
  });

  it('summarize_context compacts on demand; context_info reports the window, the use and the threshold', async () => {
    h = await openSubHarness({ contextWindow: 100_000 });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents', 'results'], true); // loaded from the first request, as a person enabling them would
    h.server.setFallback(() => reply().text('ok'));
    for (let i = 1; i <= 3; i++) await h.runtime.sendMessage(conv.id, filler(`OLD-${i}`), { provider: h.provider(), interactive: false });
    h.server.setFallback(undefined);
    h.server.enqueue(reply().tool('context_info', {}), reply().tool('summarize_context', { focus: 'the OLD turns' }), reply().text('EARLIER: three OLD turns'), reply().tool('context_info', {}), reply().text('done'));
    await h.runtime.sendMessage(conv.id, 'compact now', { provider: h.provider(), interactive: false });
    const before = JSON.parse(textOf(lastMessage(h.server.requests[4]!).content).replace(/^.*?(\{.*\}).*$/s, '$1')) as Record<string, number>;
    expect(before).toMatchObject({ contextWindow: 100_000, compactAtTokens: 80_000, compactions: 0 });
    expect(before.contextTokens).toBeGreaterThan(2000);
    const s = h.server.requests.findIndex(isSummaryCall);
    expect(allText(h.server.requests[s]!)).toContain('Keep in particular: the OLD turns');
    expect(textOf(lastMessage(h.server.requests[s + 1]!).content)).toMatch(/Compacted: \d+ older messages/);
    const after = JSON.parse(textOf(lastMessage(h.server.requests[s + 2]!).content).replace(/^.*?(\{.*\}).*$/s, '$1')) as Record<string, number>;
    expect(after.compactions).toBe(1);
    expect(after.contextTokens).toBeLessThan(before.contextTokens!);
    expect(allText(h.server.requests[s + 2]!)).toContain('EARLIER: three OLD turns');
    expect(h.store.module(contextModule).latest(conv.id)!.reason).toBe('tool');
  });

  it('still compacts, with an outline, when the summary call fails', async () => {
    h = await openSubHarness({ contextWindow: 4000, maxRetries: 0 });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents', 'results'], true); // loaded from the first request, as a person enabling them would
    h.server.setFallback((req) => (isSummaryCall(req) ? { status: 400, message: 'nope' } : reply().text('ok')));
    for (let i = 1; i <= 5; i++) await h.runtime.sendMessage(conv.id, filler(`T${i}`), { provider: h.provider(), interactive: false });
    const rec = h.store.module(contextModule).list(conv.id)[0]!;
    expect(rec.summary).toMatch(/The summary model call failed: .*Mechanical outline/s);
    expect(rec.summary).toContain('- user: T1 lorem');
  });
});

describe('offloaded results', () => {
  it('stores a 5 MB result in full, gives the model a head, a tail and the id, and pages it back exactly', async () => {
    h = await openSubHarness();
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 5 * 1024 * 1024; i++) size += lines.push(`line ${String(i).padStart(7, '0')} ${'x'.repeat(80)}`) && 93;
    const big = lines.join('\n');
    h.runtime.registry.add([
      defineTool({ name: 'big_dump', description: 'Dump everything.', params: z.object({}).strict(), risk: 'read-only', disclosure: 'internal', execute: async () => ({ output: big }) }),
    ]);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents', 'results'], true); // loaded from the first request, as a person enabling them would
    h.server.enqueue(reply().tool('big_dump', {}));
    // The model reads the id from the cut result, then pages: start, middle, last page.
    let id = '';
    const mid = 2_500_000;
    h.server.setFallback((req) => {
      const last = textOf(lastMessage(req).content);
      const n = h.server.requests.length;
      if (n === 2) {
        id = /(res_[0-9a-f]{12})/.exec(last)![1]!;
        return reply().tool('retrieve_tool_result', { id, offset: 0, length: 100_000 });
      }
      if (n === 3) return reply().tool('retrieve_tool_result', { id, offset: mid, length: 50_000 });
      if (n === 4) return reply().tool('retrieve_tool_result', { id, offset: big.length - 1000, length: 100_000 });
      return reply().text('read it');
    });
    await h.runtime.sendMessage(conv.id, 'dump', { provider: h.provider(), interactive: false });
    const cut = textOf(lastMessage(h.server.requests[1]!).content);
    expect(cut.length).toBeLessThan(20_000);
    expect(cut.startsWith(big.slice(0, 1000))).toBe(true);
    expect(cut).toContain(big.slice(-2000));
    expect(cut).toMatch(new RegExp(`stored in full: retrieve_tool_result \\{"id":"${id}","offset":\\d+\\}`));
    const page = (n: number) => textOf(lastMessage(h.server.requests[n]!).content);
    expect(page(2)).toContain(`[${id} (big_dump): characters 0–100000 of ${big.length}. Next page: retrieve_tool_result {"id":"${id}","offset":100000}.]\n${big.slice(0, 100_000)}`);
    expect(page(3)).toContain(big.slice(mid, mid + 50_000));
    expect(page(4)).toContain(`This is the end of the result.]\n${big.slice(-1000)}`);
    // Every page joined is the whole result, byte for byte.
    let joined = '';
    for (let at: number | null = 0; at !== null; ) {
      const p = readOffloaded(h.dataDir, conv.id, id, at, 100_000);
      joined += p.text;
      at = p.nextOffset;
    }
    expect(joined).toBe(big);
  }, 60_000);

  it('refuses an unknown or foreign id in words the model can act on', async () => {
    h = await openSubHarness();
    h.server.enqueue(reply().tool('retrieve_tool_result', { id: 'res_000000000000' }), reply().tool('retrieve_tool_result', { id: '../etc' }), reply().text('ok'));
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents', 'results'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'x', { provider: h.provider(), interactive: false });
    expect(textOf(lastMessage(h.server.requests[1]!).content)).toContain('No stored result res_000000000000 in this conversation');
    expect(textOf(lastMessage(h.server.requests[2]!).content)).toContain('is not a stored result id');
  });
});
