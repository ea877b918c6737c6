/**
 * A stand-in Deskhand process for the durability test: opens the store in DATA_DIR and appends messages to one
 * conversation, each committed without an fsync (Store.withoutFsync), printing `wrote N` after each commit returns;
 * it keeps writing until killed.
 * Usage: node --import tsx test/support/fsync-writer-main.ts DATA_DIR
 */
import { Store } from '../../src/main/services/store/store';

const [dataDir] = process.argv.slice(2);
if (!dataDir) {
  process.stderr.write('usage: fsync-writer-main DATA_DIR\n');
  process.exit(2);
}
const store = new Store(dataDir);
store.createConversation({ id: 'conv_fsync', title: 'fsync', folder: dataDir, policy: 'read-only' });
let n = 0;
const tick = (): void => {
  for (let i = 0; i < 20; i++) {
    n++;
    store.withoutFsync(() => store.addMessage('conv_fsync', null, 'user', `message ${n}`));
    process.stdout.write(`wrote ${n}\n`);
  }
  setImmediate(tick);
};
tick();
