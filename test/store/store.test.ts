import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Store } from '../../src/main/services/store/store';
import { MIGRATIONS } from '../../src/main/services/store/migrations';
import { tempDir } from '../support/tool-context';

describe('store', () => {
  it('opens with WAL, synchronous=FULL and the latest schema version', () => {
    const store = new Store(tempDir());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    store.close();
  });

  it('keeps rows across reopen and refuses a schema from the future', () => {
    const dir = tempDir();
    const store = new Store(dir);
    const conv = store.createConversation({ id: 'c1', title: 't', folder: '/tmp', policy: 'read-only' });
    store.addMessage(conv.id, null, 'user', 'hello');
    store.close();
    const again = new Store(dir);
    expect(again.listMessages('c1').map((m) => JSON.parse(m.content))).toEqual(['hello']);
    again.close();
    const raw = new Database(join(dir, 'deskhand.db'));
    raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    raw.close();
    expect(() => new Store(dir)).toThrow(/newer Deskhand/);
  });

  it('decides an approval once only', () => {
    const store = new Store(tempDir());
    store.createConversation({ id: 'c', title: 't', folder: '/tmp', policy: 'none' });
    store.createRun({ id: 'r', conversation_id: 'c', policy: 'none', provider: 'openai', model: 'm', base_url: null });
    store.insertToolCall({ id: 'tc', run_id: 'r', step: 1, position: 0, call_id: 'x', tool: 'rm', args: '{}', args_sha256: 'h', risk: 'high-risk', decision: 'ask', reasons: '[]', status: 'awaiting_approval' });
    store.insertApproval({ id: 'a', run_id: 'r', tool_call_id: 'tc', tool: 'rm', args_sha256: 'h', risk: 'high-risk', reasons: '[]', description: 'd', preview: null, always_pattern: null });
    expect(store.decideApproval('a', 'approved', false, null)).toBe(true);
    expect(store.decideApproval('a', 'denied', false, null)).toBe(false);
    expect(store.getApproval('a')!.status).toBe('approved');
    store.close();
  });
});
