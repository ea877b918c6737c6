/**
 * A stand-in Deskhand process for counting the store's write barriers under `strace -e trace=fsync,fdatasync,write`:
 * opens the store in DATA_DIR, then runs each commit kind N times, announcing each phase on stderr with one
 * `PHASE <name>` write (which strace records between the barriers, so the log splits into phases):
 *   full    — N ordinary commits (synchronous=FULL)
 *   without — N commits inside Store.withoutFsync
 *   sync    — N times: one commit inside withoutFsync, then Store.sync()
 *   idle    — N calls of Store.sync() with nothing unsynced
 *   after   — N times: one commit inside withoutFsync, then an ordinary commit (which must still sync)
 *   aftertx — N times: one commit inside withoutFsync, then an ordinary transaction (which must still sync)
 * Usage: node --import tsx test/support/fsync-count-main.ts DATA_DIR N
 */
import { writeSync } from 'node:fs';
import { Store } from '../../src/main/services/store/store';

const [dataDir, count] = process.argv.slice(2);
const n = Number(count);
if (!dataDir || !Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: fsync-count-main DATA_DIR N\n');
  process.exit(2);
}
const store = new Store(dataDir);
store.createConversation({ id: 'conv_fsync', title: 'fsync', folder: dataDir, policy: 'read-only' });
const phase = (name: string): void => void writeSync(2, `PHASE ${name}\n`);
let i = 0;
const add = (): void => void store.addMessage('conv_fsync', null, 'user', `message ${++i}`);

phase('full');
for (let k = 0; k < n; k++) add();
phase('without');
for (let k = 0; k < n; k++) store.withoutFsync(add);
phase('sync');
for (let k = 0; k < n; k++) {
  store.withoutFsync(add);
  store.sync();
}
phase('idle');
for (let k = 0; k < n; k++) store.sync();
phase('after');
for (let k = 0; k < n; k++) {
  store.withoutFsync(add);
  add();
}
phase('aftertx');
for (let k = 0; k < n; k++) {
  store.withoutFsync(add);
  store.transaction(add);
}
phase('end');
store.close();
