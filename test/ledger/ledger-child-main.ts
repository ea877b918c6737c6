/**
 * A process that keeps changing files under a root and recording them with the change ledger, for the crash and
 * concurrency tests: `node --import tsx ledger-child-main.ts DATA_DIR ROOT NAME`. Prints `scanning` once its first
 * step is recorded, then loops until killed (or for `steps` steps when given, then prints `done`).
 */
import { writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ChangeLedger } from '../../src/main/services/ledger';
import { Store } from '../../src/main/services/store/store';

const [dataDir, root, name, stepsArg] = process.argv.slice(2) as [string, string, string, string | undefined];
const store = new Store(dataDir);
const ledger = new ChangeLedger(store, dataDir);
const steps = stepsArg ? Number(stepsArg) : Infinity;
async function main(): Promise<void> {
  for (let i = 0; i < steps; i++) {
    const after = await ledger.beginStep({ conversationId: `conv_${name}`, runId: `run_${name}`, roots: [root] });
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, `f${i % 7}.txt`), `${name} step ${i}\n`.repeat(1 + (i % 50)));
    writeFileSync(join(root, 'shared.txt'), `${name} ${i}\n`);
    if (i % 5 === 4) rmSync(join(root, name, `f${(i + 3) % 7}.txt`), { force: true });
    await after();
    if (i === 0) process.stdout.write('scanning\n');
  }
  ledger.close();
  store.close();
  process.stdout.write('done\n');
}
void main();
