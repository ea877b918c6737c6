import { describe, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import { MODULES_USER_VERSION } from '../../src/main/services/store/migrate';
import { STORE_MODULES } from '../../src/main/services/store/modules/index';
import { tempDir } from '../support/tool-context';
import { rawAll, withRawDb } from '../support/raw-db';

describe('store', () => {
  it('opens with WAL, synchronous=FULL and every module at its latest migration', () => {
    const dir = tempDir();
    const store = new Store(dir);
    withRawDb(dir, (db) => {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(MODULES_USER_VERSION);
    });
    const books = rawAll<{ name: string; version: number }>(dir, 'SELECT name, version FROM schema_modules ORDER BY name');
    expect(books).toEqual(STORE_MODULES.map((m) => ({ name: m.name, version: m.migrations.length })).sort((a, b) => a.name.localeCompare(b.name)));
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
    withRawDb(dir, (db) => db.prepare("UPDATE schema_modules SET version = version + 1 WHERE name = 'runs'").run());
    expect(() => new Store(dir)).toThrow(/newer Deskhand/);
    // A database of the shared-counter era past its last version is from a build this one does not know either.
    const other = tempDir();
    withRawDb(other, (db) => db.pragma(`user_version = ${MODULES_USER_VERSION + 3}`));
    expect(() => new Store(other)).toThrow(/newer Deskhand/);
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
