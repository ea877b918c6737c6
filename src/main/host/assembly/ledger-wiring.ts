/**
 * The change ledger in every runtime: each step that may change files is scanned before and after
 * (services/ledger, docs/rewind.md). `DESKHAND_LEDGER=off` turns it off for a process (benches that measure
 * something else).
 */
import { ChangeLedger } from '../../services/ledger';
import type { Store } from '../../services/store/store';
import type { Runtime } from '../../runtime/runtime';

const open = new Set<ChangeLedger>();

export function wireLedger(runtime: Pick<Runtime, 'watchStepFiles'>, store: Store, dataDir: string, env: NodeJS.ProcessEnv = process.env): ChangeLedger | null {
  if (env.DESKHAND_LEDGER === 'off') return null;
  const ledger = new ChangeLedger(store, dataDir);
  runtime.watchStepFiles((scope) => ledger.beginStep(scope));
  // Its folder watchers never keep the process alive; its tick folder in the data folder goes with the process.
  if (open.size === 0) process.once('exit', () => open.forEach((l) => l.close()));
  open.add(ledger);
  return ledger;
}
