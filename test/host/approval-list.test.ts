/**
 * The approval list every UI shows is kept from the runtime's events (issue 44; src/main/host/app/approval-list.ts):
 * a request asked, approved, denied or parked changes the published list without reading the pending requests whole
 * from SQLite again; a change another process commits (no event reaches this one) reads them again, so the list is
 * still right after `deskhand runs approve` elsewhere.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;
let wholeReads: MockInstance;

const listOf = (n: number) => (e: ContractEvent): PendingApproval[] | undefined => (e.event === 'approvalsChanged' && e.payload.approvals.length === n ? e.payload.approvals : undefined);
const finished = (runId: string) => (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload.runId === runId && e.payload;
const published = () => h.events.filter((e) => e.event === 'approvalsChanged').length;

beforeEach(async () => {
  // Installed before the store opens: the records facade binds the method when the runtime is built.
  wholeReads = vi.spyOn(Store.prototype, 'pendingApprovalsWithContext');
  server = await startModelServer();
  dataDir = tempDir('deskhand-approval-list-');
  work = tempDir('deskhand-approval-list-work-');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
});

afterEach(async () => {
  h.close();
  await server.close();
  wholeReads.mockRestore();
});

describe('the approval list follows the events', () => {
  it('asked, approved, asked again, denied: each change published, the pending requests read whole once', async () => {
    server.enqueue(reply().tool('write_file', { path: 'a.txt', content: 'a' }));
    server.enqueue(reply().text('written'));
    server.enqueue(reply().tool('write_file', { path: 'b.txt', content: 'b' }));
    server.enqueue(reply().text('understood'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });

    const first = await h.service.sendMessage({ conversationId: c.id, text: 'write a' });
    const [asked] = await h.waitFor(listOf(1));
    expect(asked).toMatchObject({ tool: 'write_file', runStatus: 'running', conversationId: c.id, args: { path: 'a.txt', content: 'a' } });
    expect((await h.service.listPendingApprovals({})).approvals).toEqual([asked]);
    await h.service.decideApproval({ approvalId: asked!.approvalId, decision: 'approve' });
    await h.waitFor(listOf(0));
    await h.waitFor(finished(first.runId));

    const second = await h.service.sendMessage({ conversationId: c.id, text: 'write b' });
    const [again] = await h.waitFor(listOf(1));
    expect(again).toMatchObject({ tool: 'write_file', args: { path: 'b.txt', content: 'b' } });
    expect(again!.approvalId).not.toBe(asked!.approvalId);
    await h.service.decideApproval({ approvalId: again!.approvalId, decision: 'deny', reason: 'not now' });
    await h.waitFor(listOf(0));
    await h.waitFor(finished(second.runId));

    expect((await h.service.listPendingApprovals({})).approvals).toEqual([]);
    expect(h.store.pendingApprovals()).toEqual([]);
    // Four list changes reached the UIs; the pending requests were read whole once (the first publication).
    expect(published()).toBeGreaterThanOrEqual(4);
    expect(wholeReads).toHaveBeenCalledTimes(1);
  });

  it('a parked request shows as parked, and leaves the list when another process answers it', async () => {
    server.enqueue(reply().tool('write_file', { path: 'c.txt', content: 'c' }));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    // A run nobody waits on parks on its request (as `deskhand run` does); its events reach this host.
    const outcome = await h.runtime.sendMessage(c.id, 'write c', { provider: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null }, interactive: false });
    expect(outcome.status).toBe('parked');
    const parked = await h.waitFor((e) => listOf(1)(e)?.find((a) => a.runStatus === 'parked'));
    expect(parked).toMatchObject({ tool: 'write_file', conversationId: c.id });
    const readsBefore = wholeReads.mock.calls.length;

    // Another process denies it (`deskhand runs deny`): no event of this process says so; its commit does.
    const other = new Store(dataDir);
    try {
      expect(other.decideApproval(parked.approvalId, 'denied', false, 'from another process')).toBe(true);
    } finally {
      other.close();
    }
    await h.waitFor(listOf(0));
    expect((await h.service.listPendingApprovals({})).approvals).toEqual([]);
    expect(wholeReads.mock.calls.length).toBeGreaterThan(readsBefore);
  });
});
