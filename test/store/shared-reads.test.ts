/**
 * What a step reads again and again is read once where that cannot change the answer (docs/performance.md, "Issue
 * 54, fifth round"): `Sql.oneShared` answers a point read repeated in the same synchronous stretch with no write in
 * between from the first read, and a run's call keys are read from where the last read ended. Each is proven to see
 * every change it must: a write of this connection, a transaction rolled back, another connection's commit (another
 * process, the CLI), a new step's calls.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { extensionsModule } from '../../src/main/services/store/modules/extensions';
import { subagentsModule } from '../../src/main/services/store/modules/subagents';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';

let store: Store;
let other: Store;

beforeEach(() => {
  store = new Store(tempDir('deskhand-shared-reads-'));
  // A second connection to the same data folder: what another process (the CLI, another window) writes through.
  other = new Store(store.dataDir);
});

afterEach(() => {
  other.close();
  store.close();
});

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

it('a profile read twice in a row is read once; a write of this connection in between is seen at once', () => {
  const conv = store.createConversation({ id: 'c1', title: 't', folder: '/tmp', policy: 'read-only' });
  const q = store.module(extensionsModule);
  expect(q.conversationProfile(conv.id)).toBeNull();
  q.setConversationProfile(conv.id, 'first');
  expect(q.conversationProfile(conv.id)).toBe('first');
  q.setConversationProfile(conv.id, 'second');
  expect(q.conversationProfile(conv.id)).toBe('second');
});

it("another connection's commit is seen by the next stretch of code (never kept past it)", async () => {
  const conv = store.createConversation({ id: 'c1', title: 't', folder: '/tmp', policy: 'read-only' });
  const q = store.module(extensionsModule);
  expect(q.conversationProfile(conv.id)).toBeNull();
  other.module(extensionsModule).setConversationProfile(conv.id, 'from-the-cli');
  // The same stretch may answer from its first read (as if both reads came before the other commit)…
  await tick();
  // …the next one reads it fresh.
  expect(q.conversationProfile(conv.id)).toBe('from-the-cli');
  other.module(extensionsModule).setConversationProfile(conv.id, 'again');
  await Promise.resolve();
  await Promise.resolve();
  expect(q.conversationProfile(conv.id)).toBe('again');
});

it('rows read inside a transaction that is rolled back are not kept', () => {
  const conv = store.createConversation({ id: 'c1', title: 't', folder: '/tmp', policy: 'read-only' });
  const q = store.module(extensionsModule);
  expect(() =>
    store.transaction(() => {
      q.setConversationProfile(conv.id, 'rolled-back');
      expect(q.conversationProfile(conv.id)).toBe('rolled-back');
      expect(q.conversationProfile(conv.id)).toBe('rolled-back');
      throw new Error('undo');
    }),
  ).toThrow('undo');
  expect(q.conversationProfile(conv.id)).toBeNull();
});

it('each caller gets its own copy of a shared row', () => {
  const parent = store.createConversation({ id: 'p1', title: 'p', folder: '/tmp', policy: 'read-only' });
  const child = store.createConversation({ id: 'c2', title: 'c', folder: '/tmp', policy: 'read-only' });
  const q = store.module(subagentsModule);
  q.insert({
    id: 'sa_1', parent_conversation_id: parent.id, root_conversation_id: parent.id, parent_run_id: null, parent_call_id: null, conversation_id: child.id, task_id: null,
    type: 'general', description: 'd', prompt: 'p', background: 0, policy: 'low-risk', tools: '[]', result_schema: null, limits: '{}',
  } as never);
  const a = q.byConversation(child.id)!;
  (a as { status: string }).status = 'changed-by-a-caller';
  expect(q.byConversation(child.id)!.status).toBe('queued');
  expect(q.byConversation(parent.id)).toBeUndefined();
});

it("a run's call keys: each step's new calls are read, after the ones read before", () => {
  const conv = store.createConversation({ id: 'c1', title: 't', folder: '/tmp', policy: 'read-only' });
  const run = store.createRun({ id: 'run_1', conversation_id: conv.id, policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  const call = (step: number, position: number, callId: string) =>
    store.insertToolCall({ id: `tc_${step}_${position}`, run_id: run.id, step, position, call_id: callId, tool: 'stat', args: `{"n":${step}}`, args_sha256: 'x', risk: null, decision: null, reasons: '[]', status: 'pending' });
  expect(store.callKeysForRun(run.id)).toEqual([]);
  call(1, 0, 'a');
  call(1, 1, 'b');
  expect(store.callKeysForRun(run.id).map((r) => `${r.step}:${r.call_id}`)).toEqual(['1:a', '1:b']);
  call(2, 0, 'c');
  // A caller changing what it got changes nothing kept.
  const got = store.callKeysForRun(run.id);
  got.length = 0;
  // Written by another connection (a run resumed elsewhere): read all the same.
  other.insertToolCall({ id: 'tc_3_0', run_id: run.id, step: 3, position: 0, call_id: 'd', tool: 'stat', args: '{}', args_sha256: 'x', risk: null, decision: null, reasons: '[]', status: 'pending' });
  // Read from the next stretch of code on (the stretch's read snapshot): its end, here at once.
  store.settle();
  expect(store.callKeysForRun(run.id).map((r) => `${r.step}:${r.call_id}`)).toEqual(['1:a', '1:b', '2:c', '3:d']);
  // Outputs and statuses change; the keys do not.
  store.updateToolCall('tc_1_0', { status: 'done', output: 'x', is_error: 0 });
  expect(store.callKeysForRun(run.id).map((r) => `${r.step}:${r.call_id}:${r.args}`)).toEqual(['1:a:{"n":1}', '1:b:{"n":1}', '2:c:{"n":2}', '3:d:{}']);
});
