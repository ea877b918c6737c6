/** Full-text message search (FTS5, kept by triggers): what people read is found; input is never FTS syntax. */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Store } from '../../src/main/services/store/store';
import { ftsQuery, searchMessages } from '../../src/main/host/app/message-search';
import { recordsOf } from '../../src/main/runtime/records';
import { tempDir } from '../support/tool-context';

function seeded() {
  const store = new Store(tempDir('deskhand-search-'));
  store.createConversation({ id: 'c1', title: 'Deploy', folder: '/tmp', policy: 'read-only' });
  store.createConversation({ id: 'c2', title: 'Other', folder: '/tmp', policy: 'read-only' });
  store.createRun({ id: 'r1', conversation_id: 'c1', policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  store.addMessage('c1', 'r1', 'user', 'Please deploy to staging tonight');
  store.addMessage('c1', 'r1', 'assistant', [{ type: 'tool-call', toolCallId: 'x', toolName: 'execute_command', input: { command: 'kubectl rollout' } }]);
  store.addMessage('c1', 'r1', 'tool', [{ type: 'tool-result', toolCallId: 'x', toolName: 'execute_command', output: { type: 'text', value: 'rollout secretword done' } }]);
  store.addMessage('c1', 'r1', 'assistant', [{ type: 'text', text: 'The rollout to Staging finished; café reopened.' }]);
  store.addMessage('c2', null, 'user', 'unrelated words about lunch');
  return store;
}

describe('message search', () => {
  it('finds user and assistant text by word prefix and accent-insensitively, newest first, with marked snippets', () => {
    const store = seeded();
    const r = searchMessages(recordsOf(store), 'stag', 10);
    expect(r.matches.map((m) => [m.conversationId, m.role])).toEqual([
      ['c1', 'assistant'],
      ['c1', 'user'],
    ]);
    expect(r.matches[0]!.snippet).toContain('\u0002Staging\u0003');
    expect(r.matches[0]!.conversationTitle).toBe('Deploy');
    expect(searchMessages(recordsOf(store), 'cafe', 10).matches).toHaveLength(1);
    // Tool calls and tool output are not message text people read in the transcript.
    expect(searchMessages(recordsOf(store), 'secretword', 10).matches).toEqual([]);
    expect(searchMessages(recordsOf(store), 'kubectl', 10).matches).toEqual([]);
    store.close();
  });

  it('treats FTS syntax in the input as words, and finds nothing for punctuation alone', () => {
    const store = seeded();
    expect(ftsQuery('"deploy" OR NEAR(a b) *')).toBe('"deploy"* "OR"* "NEAR"* "a"* "b"*');
    expect(() => searchMessages(recordsOf(store), 'deploy" OR "x', 10)).not.toThrow();
    expect(searchMessages(recordsOf(store), '"*()', 10).matches).toEqual([]);
    expect(searchMessages(recordsOf(store), 'deploy tonight', 10).matches.map((m) => m.conversationId)).toEqual(['c1']);
    store.close();
  });

  it('indexes no empty document for a message without text (a step of tool calls only)', () => {
    const store = seeded();
    const db = new Database(join(store.dataDir, 'deskhand.db'), { readonly: true });
    // Seeded: two user messages and one assistant text are indexed; the tool-call-only assistant message is not.
    expect((db.prepare('SELECT count(*) AS n FROM messages_fts').get() as { n: number }).n).toBe(3);
    store.addMessage('c1', 'r1', 'assistant', [{ type: 'tool-call', toolCallId: 'y', toolName: 'stat', input: { path: 'a' } }]);
    store.addMessage('c1', 'r1', 'assistant', [{ type: 'text', text: '' }]);
    expect((db.prepare('SELECT count(*) AS n FROM messages_fts').get() as { n: number }).n).toBe(3);
    store.addMessage('c1', 'r1', 'assistant', [{ type: 'text', text: 'Deployment verified' }, { type: 'tool-call', toolCallId: 'z', toolName: 'stat', input: {} }]);
    expect((db.prepare('SELECT count(*) AS n FROM messages_fts').get() as { n: number }).n).toBe(4);
    expect(searchMessages(recordsOf(store), 'verified', 10).matches).toHaveLength(1);
    db.close();
    store.close();
  });

  it('forgets the messages of a deleted conversation', () => {
    const store = seeded();
    store.deleteConversation('c1');
    expect(searchMessages(recordsOf(store), 'staging', 10).matches).toEqual([]);
    expect(searchMessages(recordsOf(store), 'lunch', 10).matches).toHaveLength(1);
    store.close();
  });
});
