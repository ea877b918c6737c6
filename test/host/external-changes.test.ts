/**
 * What another process writes (`deskhand run`, `deskhand runs approve`, `deskhand tower teardown`) reaches every UI
 * of a running host: its conversation and approval lists are published again, without a reload or a poll.
 */
import { afterEach, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let h: Harness | undefined;
afterEach(async () => {
  await h?.service.shutdown();
  h?.close();
});

it('publishes the conversation list again when another process adds a conversation', async () => {
  const dataDir = tempDir('deskhand-external-');
  h = openHarness({ dataDir });
  const other = new Store(dataDir);
  try {
    other.createConversation({ id: 'conv_fromcli', title: 'Started from the CLI', folder: dataDir, policy: 'read-only' });
  } finally {
    other.close();
  }
  const list = await h.waitFor((e) => e.event === 'conversationsChanged' && e.payload.conversations.some((c) => c.id === 'conv_fromcli') && e.payload.conversations, 15_000);
  expect(list.find((c) => c.id === 'conv_fromcli')?.title).toBe('Started from the CLI');
});
