/**
 * Entry of the detached job worker (built to out/main/job-worker.js):
 * `node job-worker.js --data-dir DIR --batch ID`. Its output goes to `<data dir>/tasks/<batch>.worker.log`.
 */
import { parseArgs } from 'node:util';
import { runBatch } from './job-worker';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, batch: { type: 'string' }, parent: { type: 'string' } } });
const dataDir = values['data-dir'];
const batchId = values.batch;
// `pid:start` of the Deskhand process that started this worker: when it is gone, the worker stops its jobs and ends.
const parentMatch = /^(\d+):(.*)$/.exec(values.parent ?? '');
const parent = parentMatch ? { pid: Number(parentMatch[1]), start: parentMatch[2]! } : undefined;
if (!dataDir || !batchId) {
  process.stderr.write('usage: job-worker --data-dir DIR --batch ID [--parent PID:START]\n');
  process.exit(2);
}
const log = (line: string) => process.stderr.write(`${new Date().toISOString()} [${process.pid}] ${line}\n`);
log(`worker for ${batchId} started`);
runBatch({ dataDir, batchId, ...(parent ? { parent } : {}) }).then(
  (outcome) => {
    log(`worker for ${batchId} ended: ${outcome}`);
    process.exit(0);
  },
  (err: unknown) => {
    log(`worker for ${batchId} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
