/**
 * A second process on a data folder, for the store tests. Usage:
 *   node --import tsx test/support/store-child-main.ts MODE DATA_DIR ID
 * open:    prints "ready", waits for a line on stdin, then opens the store, adds conversation ID and exits 0.
 * own-run: opens the store, adds conversation ID and a run ID it owns, prints "ready" and stays until killed.
 * write:   opens the store, prints "ready", then adds one conversation per stdin line (named by the line) and
 *          prints "wrote NAME"; exits when stdin ends. Right before each write it creates DATA_DIR/writing-NAME, which
 *          a parent blocked in a synchronous transaction can see without reading this process's output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Store } from '../../src/main/services/store/store';

const [mode, dataDir, id] = process.argv.slice(2);
if (!mode || !dataDir || !id) {
  process.stderr.write('usage: store-child-main MODE DATA_DIR ID\n');
  process.exit(2);
}
const lines = createInterface({ input: process.stdin });
const say = (text: string) => process.stdout.write(`${text}\n`);

if (mode === 'open') {
  say('ready');
  lines.once('line', () => {
    try {
      const store = new Store(dataDir);
      store.createConversation({ id, title: id, folder: '/tmp', policy: 'read-only' });
      store.close();
      process.exit(0);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    }
  });
} else if (mode === 'own-run') {
  const store = new Store(dataDir);
  store.createConversation({ id, title: id, folder: '/tmp', policy: 'read-only' });
  store.createRun({ id, conversation_id: id, policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  say('ready');
  setInterval(() => undefined, 60_000);
} else if (mode === 'write') {
  const store = new Store(dataDir);
  say('ready');
  lines.on('line', (name) => {
    writeFileSync(join(dataDir, `writing-${name}`), '');
    store.createConversation({ id: name, title: name, folder: '/tmp', policy: 'read-only' });
    say(`wrote ${name}`);
  });
  lines.on('close', () => {
    store.close();
    process.exit(0);
  });
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
