/**
 * `deskhand runs approve ID --always` on a write outside the workspace roots: it says exactly what it saves (the folder
 * becomes a workspace root of this conversation) before saving, the approved write runs, the next write in that folder
 * runs without asking, and the conversation's persisted roots include the folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { PersistentConversationState } from '../../src/main/runtime/context/conversation-state';
import { Store } from '../../src/main/services/store/store';
import { ROOT_OFFER_PREFIX } from '../../src/shared/always-allow';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { requireBuild, runCli } from '../support/cli';

let server: ModelServer;

beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server.close());

describe('runs approve --always on a write outside the roots', () => {
  it('adds the folder as a workspace root of the conversation, saying so first', async () => {
    const dataDir = tempDir('deskhand-cli-data-');
    const work = realpathSync(tempDir('deskhand-cli-work-'));
    const outside = realpathSync(tempDir('deskhand-cli-outside-'));
    server.enqueue(reply().tool('write_file', { path: join(outside, 'a.txt'), content: 'first' }));
    const parked = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'test-model', '--policy', 'high-risk', '--cwd', work, '--data-dir', dataDir, '--json', 'write it']);
    expect(parked.code, parked.stderr).toBe(3);
    const asked = parked.events.find((e) => e.type === 'approval.requested')!;
    expect(asked.alwaysPattern).toBe(`${ROOT_OFFER_PREFIX}${outside}`);
    expect(existsSync(join(outside, 'a.txt'))).toBe(false);

    server.enqueue(reply().tool('write_file', { path: join(outside, 'b.txt'), content: 'second' }), reply().text('done'));
    const approved = await runCli(['runs', 'approve', String(asked.approvalId), '--always', '--data-dir', dataDir, '--base-url', server.baseURL]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain(`Always: add ${outside} as a workspace root of this conversation`);
    expect(readFileSync(join(outside, 'a.txt'), 'utf8')).toBe('first');
    expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('second');

    const store = new Store(dataDir);
    try {
      const conv = store.listConversations()[0]!;
      expect(new PersistentConversationState(conv.folder, conv.state).workspaceRoots).toEqual([work, outside]);
      expect(store.hasRule('write_file', `${ROOT_OFFER_PREFIX}${outside}`)).toBe(false);
    } finally {
      store.close();
    }
  });
});
