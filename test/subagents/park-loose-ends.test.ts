/**
 * Parking through descendants in one process (the real runtime, the scripted model server): what happens to a parked
 * tree besides the answer — a parent stopped while parked ends its parked children (their runs and requests too), and
 * a parked child's usage after the park is counted in its spend like before it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../support/model-server';
import { firstUser, lastMessage, openSubHarness, route, textOf, type SubHarness } from './harness';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

async function parkedTree(): Promise<{ parentRun: string; childRun: string; approvalId: string; subagentId: string }> {
  route(
    h,
    { 'CHILD WRITE': [reply().usage({ input: 1000, output: 100 }).tool('write_file', { path: 'a.txt', content: 'x\n' }), reply().usage({ input: 7000, output: 700 }).text('wrote a.txt')] },
    [reply().tool('spawn_subagent', { prompt: 'CHILD WRITE: create a.txt', description: 'writer' }), reply().text('parent done')],
  );
  const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
  h.runtime.setFamilies(conv.id, ['subagents'], true);
  const out = await h.runtime.sendMessage(conv.id, 'PARENT: delegate', { provider: h.provider(), interactive: false });
  expect(out.status).toBe('parked');
  const [row] = h.runtime.subagents.list(conv.id);
  expect(row!.status).toBe('parked');
  const childRun = h.store.latestRunForConversation(row!.conversation_id)!;
  expect(childRun.status).toBe('parked');
  return { parentRun: out.runId, childRun: childRun.id, approvalId: out.status === 'parked' ? out.approvalIds[0]! : '', subagentId: row!.id };
}

describe('a parked tree', () => {
  it('a parent stopped while parked ends its parked child: row cancelled, its run ended, its request no longer pending', async () => {
    h = await openSubHarness();
    const t = await parkedTree();
    h.runtime.stopParked(t.parentRun);
    expect(h.store.getRun(t.parentRun)!.status).toBe('aborted');
    const row = h.runtime.subagents.get(t.subagentId)!;
    expect(row.status).toBe('cancelled');
    expect(row.error).toMatch(/parent/);
    expect(h.store.getRun(t.childRun)!.status).not.toBe('parked');
    expect(h.store.pendingApprovals().map((a) => a.id)).not.toContain(t.approvalId);
    // Nothing is left to answer: the request is refused as no longer open, and nothing was written.
    await expect(h.runtime.decideApproval(t.approvalId, { approved: true, by: 'test' }, { provider: h.provider(), interactive: false })).rejects.toThrow();
    expect(existsSync(join(h.work, 'a.txt'))).toBe(false);
  });

  it('a parent replaced by a new message while parked ends its parked child too', async () => {
    h = await openSubHarness();
    const t = await parkedTree();
    const conv = h.store.getRun(t.parentRun)!.conversation_id;
    route(h, {}, [reply().text('new turn')]);
    const next = await h.runtime.sendMessage(conv, 'PARENT: never mind', { provider: h.provider(), interactive: false });
    expect(next.status).toBe('finished');
    expect(h.runtime.subagents.get(t.subagentId)!.status).toBe('cancelled');
    expect(h.store.getRun(t.childRun)!.status).not.toBe('parked');
    expect(h.store.pendingApprovals()).toHaveLength(0);
  });

  it("a parked child's usage after the answer is added to its spend", async () => {
    h = await openSubHarness();
    const t = await parkedTree();
    const before = h.runtime.subagents.get(t.subagentId)!;
    expect(before.input_tokens).toBe(1000);
    const out = await h.runtime.decideApproval(t.approvalId, { approved: true, by: 'test' }, { provider: h.provider(), interactive: false });
    expect(out?.status).toBe('finished');
    const after = h.runtime.subagents.get(t.subagentId)!;
    expect(after.status).toBe('finished');
    expect(after.input_tokens).toBe(8000);
    expect(after.output_tokens).toBe(800);
    expect(h.store.getRun(t.childRun)!.input_tokens).toBe(8000);
  });
});

describe('a background child of an unattended run', () => {
  it('parks on its request; wait_subagents parks its parent with it, and the answer resumes both: the child writes, the parent finishes', async () => {
    h = await openSubHarness();
    route(
      h,
      { 'BG WRITE': [reply().tool('write_file', { path: 'bg.txt', content: 'from the background child\n' }), reply().text('wrote bg.txt')] },
      [reply().tool('spawn_subagent', { prompt: 'BG WRITE: create bg.txt', description: 'bg writer', background: true }), reply().tool('wait_subagents', { until: 'all' }), reply().text('parent done')],
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true);
    const out = await h.runtime.sendMessage(conv.id, 'PARENT: start it and wait', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('parked');
    const [row] = h.runtime.subagents.list(conv.id);
    expect(row!.status).toBe('parked');
    const request = h.store.pendingApprovals().find((a) => a.tool === 'write_file')!;
    expect(out.approvalIds).toEqual([request.id]);
    // Its task outlives its process: recovery (as another process would run it) leaves a parked child's task running.
    h.store.tasks.updateTask(row!.task_id!, { owner_pid: 2_147_483_000, owner_start: '1' });
    await h.runtime.tasks.recover();
    expect(h.store.tasks.getTask(row!.task_id!)!.status).toBe('running');
    expect(existsSync(join(h.work, 'bg.txt'))).toBe(false);

    const done = await h.runtime.decideApproval(request.id, { approved: true, by: 'test' }, { provider: h.provider(), interactive: false });
    expect(done?.status).toBe('finished');
    expect(done?.runId).toBe(out.runId);
    expect(readFileSync(join(h.work, 'bg.txt'), 'utf8')).toBe('from the background child\n');
    expect(h.runtime.subagents.get(row!.id)!.status).toBe('finished');
    const parentLast = h.server.requests.filter((r) => firstUser(r).includes('PARENT')).at(-1)!;
    expect(textOf(lastMessage(parentLast).content)).toContain('wrote bg.txt');
  });
});
