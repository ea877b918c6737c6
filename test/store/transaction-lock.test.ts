/**
 * A transaction that reads and then writes while another process commits in between must not fail. With a deferred
 * BEGIN it did, at once and whatever busy_timeout said ("database is locked", SQLITE_BUSY_SNAPSHOT): the job worker's
 * commit between a run's read and its write failed the run (`deskhand runs approve` ended "Internal error: database
 * is locked" on a loaded machine). The store's transactions take the write lock first, so the other process waits.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import { rawGet } from '../support/raw-db';
import { storeChild, type StoreChild } from '../support/store-child';
import { tempDir } from '../support/tool-context';

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const committed = (dataDir: string, id: string) => rawGet(dataDir, 'SELECT id FROM conversations WHERE id = ?', id) !== undefined;

let child: StoreChild | undefined;
afterEach(() => child?.proc.kill('SIGKILL'));

describe('a store transaction and another process writing', () => {
  it('a commit by another process between the read and the write waits for the transaction instead of failing it', async () => {
    const dataDir = tempDir();
    const store = new Store(dataDir);
    child = storeChild('write', dataDir, 'writer');
    await child.printed('ready');

    let slippedIn = false;
    let attempted = false;
    const count = store.transaction(() => {
      const before = store.listConversations().length; // the read
      child!.send('from_child');
      // The child says (by a file: this thread is blocked, it cannot read the child's output) that it is about to
      // write; from then on, long enough for its commit to land if nothing holds it back.
      for (let waited = 0; waited < 30_000 && !attempted; waited += 20) {
        pause(20);
        attempted = existsSync(join(dataDir, 'writing-from_child'));
      }
      for (let waited = 0; waited < 1500 && !slippedIn; waited += 50) {
        pause(50);
        slippedIn = committed(dataDir, 'from_child');
      }
      store.createConversation({ id: 'from_parent', title: 'p', folder: '/tmp', policy: 'read-only' }); // the write
      return before;
    });

    expect(attempted).toBe(true); // the child did try to write while the transaction was open
    expect(slippedIn).toBe(false); // and waited for the write lock
    expect(count).toBe(0);
    await child.printed('wrote from_child'); // and then committed
    expect(committed(dataDir, 'from_parent')).toBe(true);
    expect(committed(dataDir, 'from_child')).toBe(true);
    child.proc.stdin.end();
    expect((await child.exited).code).toBe(0);
    store.close();
  });
});
