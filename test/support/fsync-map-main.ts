/**
 * A stand-in Deskhand process for counting the write barriers of map_subagents under `strace -e
 * trace=fsync,fdatasync,write`: a parent run maps N trivial foreground children (one at a time, one scripted model
 * step each) against the scripted model server in this process, between two `PHASE` writes on stderr (strace records
 * them between the barriers). Prints the children's statuses and the parent's map result as JSON on stdout.
 * Usage: node --import tsx test/support/fsync-map-main.ts DATA_DIR WORK_DIR N
 */
import { writeSync } from 'node:fs';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer } from './model-server';

const [dataDir, work, count] = process.argv.slice(2);
const n = Number(count);
if (!dataDir || !work || !Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: fsync-map-main DATA_DIR WORK_DIR N\n');
  process.exit(2);
}
const phase = (name: string): void => void writeSync(2, `PHASE ${name}\n`);
const server = await startModelServer();
server.setFallback((req) => {
  const first = req.protocol === 'openai' ? JSON.stringify(req.body.messages.find((m) => m.role === 'user')?.content ?? '') : '';
  return first.includes('ITEM') ? reply().text(`ok ${first.match(/ITEM (\d+)/)?.[1] ?? '?'}`) : reply().text('done');
});
server.enqueue(reply().tool('map_subagents', { prompt_template: 'ITEM {{input}}: say ok', items: Array.from({ length: n }, (_, i) => String(i)), description: 'fsync count', max_concurrency: 1 }));
const store = new Store(dataDir);
const runtime = createAppRuntime({ store, dataDir, vault: null, browser: null, afterTurn: () => undefined });
const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
phase('map');
const outcome = await runtime.sendMessage(conv.id, 'map', { provider: { provider: 'openai', model: 'm', baseURL: server.baseURL, apiKey: 'sk-test' }, interactive: false });
phase('end');
const children = runtime.subagents.list(conv.id).map((r) => r.status);
const result = store.toolCallsForConversation(conv.id).find((c) => c.tool === 'map_subagents')?.output ?? null;
process.stdout.write(JSON.stringify({ status: outcome.status, children, result }));
await runtime.tasks.shutdown();
store.close();
await server.close();
