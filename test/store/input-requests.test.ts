import { describe, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import { rawGet } from '../support/raw-db';
import { tempDir } from '../support/tool-context';

function storeWithCall(): { store: Store; dataDir: string } {
  const dataDir = tempDir();
  const store = new Store(dataDir);
  store.createConversation({ id: 'c', title: 't', folder: '/tmp', policy: 'none' });
  store.createRun({ id: 'r', conversation_id: 'c', policy: 'none', provider: 'openai', model: 'm', base_url: null });
  store.insertToolCall({ id: 'tc', run_id: 'r', step: 1, position: 0, call_id: 'x', tool: 'ask_user_question', args: '{}', args_sha256: 'h', risk: 'low-risk', decision: 'ask', reasons: '[]', status: 'awaiting_approval' });
  return { store, dataDir };
}

const base = { run_id: 'r', tool_call_id: 'tc', tool: 'ask_user_question', args_sha256: 'h', risk: 'low-risk' as const, reasons: '[]', description: 'd', preview: null, always_pattern: null };

describe('input requests', () => {
  it('stores any kind with its request, and answers it once', () => {
    const { store, dataDir } = storeWithCall();
    const request = JSON.stringify({ schema: { type: 'object' }, prompt: 'Which colour?', data: { options: ['red', 'blue'] } });
    expect(store.insertApproval({ ...base, id: 'q1', kind: 'question', request })).toMatchObject({ kind: 'question', request, answer: null, status: 'pending' });
    expect(rawGet(dataDir, "SELECT kind, request, answer, status FROM approvals WHERE id = 'q1'")).toEqual({ kind: 'question', request, answer: null, status: 'pending' });
    expect(store.answerApproval('q1', 'approved', '{"answers":{"Which colour?":"red"}}', null)).toBe(true);
    expect(store.answerApproval('q1', 'approved', '{"answers":{"Which colour?":"blue"}}', null)).toBe(false);
    expect(store.decideApproval('q1', 'denied', false, 'late')).toBe(false);
    expect(rawGet(dataDir, "SELECT answer, status, reason FROM approvals WHERE id = 'q1'")).toEqual({ answer: '{"answers":{"Which colour?":"red"}}', status: 'approved', reason: null });
    store.close();
  });

  it('defaults to an approval without request, and a denied answer keeps its reason', () => {
    const { store, dataDir } = storeWithCall();
    store.insertApproval({ ...base, id: 'a1' });
    expect(rawGet(dataDir, "SELECT kind, request FROM approvals WHERE id = 'a1'")).toEqual({ kind: 'approval', request: null });
    store.insertApproval({ ...base, id: 'f1', kind: 'file_pick', request: '{"prompt":"pick"}' });
    expect(store.answerApproval('f1', 'denied', null, 'no file')).toBe(true);
    expect(store.latestApprovalForCall('tc')).toMatchObject({ id: 'f1', status: 'denied', reason: 'no file', answer: null });
    expect(store.expireApproval('a1', 'stopped')).toBe(true);
    expect(store.answerApproval('a1', 'approved', '{}', null)).toBe(false);
    expect(store.approvalsForRun('r').map((a) => [a.id, a.status])).toEqual([
      ['a1', 'expired'],
      ['f1', 'denied'],
    ]);
    store.close();
  });
});
