/**
 * The one place a one-shot `deskhand` command opens the store (the long-lived hosts open it in host-services.ts):
 * a store on the data dir for the call, closed after it. The command gets the store to hand to the services it builds
 * and the runtime's records facade (runtime/records.ts) for what it reads itself; host files never import the store
 * (lint, eslint.config.mjs).
 */
import { recordsOf, type Records } from '../../runtime/records';
import { runOwnerAlive } from '../../services/processes/proc-info';
import { Store } from '../../services/store/store';
import { resolveDataDir } from './data-dir';

export { useSqliteBinding } from '../../services/store/native-binding';

/** An open store for a command that builds services on it. */
export type OpenStore = Store;

/** Opens the store on a resolved data dir; the caller closes it (`closeStore`). */
export function openStore(dataDir: string): Store {
  return new Store(dataDir);
}

/** Runs `fn` with a store on the data dir (`--data-dir`, else DESKHAND_HOME, else the OS folder); always closes it. */
export async function withStore<T>(dataDir: string | undefined, fn: (store: Store, records: Records) => T | Promise<T>): Promise<T> {
  const store = new Store(resolveDataDir(dataDir));
  try {
    return await fn(store, recordsOf(store));
  } finally {
    store.close();
  }
}

/**
 * The records for listing and showing runs (`deskhand runs list|show`). A run a crashed process left "running" is
 * recovered first, as every command that opens the runtime does (open-runtime.ts): then, and only then, the runtime
 * is opened once for it.
 */
export async function openListingStore(dataDir: string): Promise<{ records: Records; close(): void }> {
  let store = new Store(dataDir);
  const stale = store.runsWithStatus('running').some((r) => r.owner_pid !== process.pid && !runOwnerAlive(r));
  if (stale) {
    store.close();
    const { openRuntime } = await import('./open-runtime');
    const runtime = openRuntime({ dataDir, mcpStart: 'on-demand' });
    await runtime.close();
    store = new Store(dataDir);
  }
  const open = store;
  return { records: recordsOf(open), close: () => open.close() };
}

/** Runs `fn` with the records of a store on the data dir (a command that only reads and changes rows); always closes it. */
export async function withRecords<T>(dataDir: string | undefined, fn: (records: Records) => T | Promise<T>): Promise<T> {
  return withStore(dataDir, (_store, records) => fn(records));
}
