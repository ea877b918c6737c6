/**
 * The contract's memory and goals methods through the dispatch both transports use (what the Memory, Lessons and Goal
 * views call): the person accepts, edits, rejects and deletes; each leaves a receipt; bad ids get a usage error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { openHarness, type Harness } from '../host/helpers';
import { tempDir } from '../support/tool-context';

let h: Harness | null = null;
afterEach(() => h?.close());

describe('memory and goals over the contract', () => {
  it('lists, accepts, edits, rejects and deletes with receipts; lists goals', async () => {
    h = openHarness({ dataDir: tempDir('deskhand-data-') });
    const work = tempDir('deskhand-work-');
    const m = h.runtime.memory;
    const a = m.add({ scope: 'workspace', topic: 'tests', body: 'Run vitest.', quote: 'run vitest' }, { folder: work, actor: 'x', status: 'proposed', source: 'extraction' }).record;
    const b = m.add({ scope: 'user', topic: 'lesson', body: 'Check the plan.', quote: null }, { folder: work, actor: 'x', kind: 'lesson', status: 'proposed', source: 'lesson' }).record;
    const dispatch = createDispatch(h.service, h.log);
    const call = async (method: string, params: unknown) => {
      const r = await dispatch(method, params, { source: 'test', bytes: 10 });
      if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
      return r.result as { records: { id: string; status: string; body: string; receipts: { action: string; diff: string }[] }[]; extraction: boolean };
    };
    const listed = await call('listMemory', {});
    expect(listed.records.map((r) => [r.id, r.status])).toEqual(expect.arrayContaining([[a.id, 'proposed'], [b.id, 'proposed']]));
    expect(listed.extraction).toBe(false); // DESKHAND_MEMORY_EXTRACTION=off in tests
    await call('changeMemory', { action: 'accept', id: a.id });
    const edited = await call('changeMemory', { action: 'edit', id: a.id, topic: 'tests', body: 'Run vitest with --run.' });
    const rec = edited.records.find((r) => r.id === a.id)!;
    expect(rec.status).toBe('active');
    expect(rec.receipts.map((r) => r.action)).toEqual(['propose', 'accept', 'update']);
    expect(rec.receipts[2]!.diff).toContain('-Run vitest.\n+Run vitest with --run.');
    await call('changeMemory', { action: 'reject', id: b.id });
    expect(m.get(b.id)!.status).toBe('rejected');
    await call('changeMemory', { action: 'delete', id: a.id });
    expect(m.get(a.id)).toBeUndefined();
    const bad = await dispatch('changeMemory', { action: 'accept', id: 'nope' }, { source: 'test', bytes: 10 });
    expect(bad.ok).toBe(false);
    const again = await dispatch('changeMemory', { action: 'accept', id: b.id }, { source: 'test', bytes: 10 });
    expect(again.ok ? null : again.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('is rejected, not proposed') });

    const conv = h.runtime.createConversation({ folder: work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['memory'], true); // loaded from the first request, as a person enabling them would
    h.runtime.goals.create(conv.id, { objective: 'Ship', criteria: ['green'], budget: { turns: 2 } });
    const goals = await dispatch('listGoals', { conversationId: conv.id }, { source: 'test', bytes: 10 });
    expect(goals.ok && (goals.result as { goals: { objective: string; status: string }[] }).goals).toEqual([expect.objectContaining({ objective: 'Ship', status: 'active' })]);
  });
});
