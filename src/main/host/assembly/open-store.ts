/**
 * The one place a one-shot `deskhand` command opens the store (the long-lived hosts through host-services.ts), both
 * through the runtime's store door (runtime/store-door.ts): a store on the data dir for the call, closed after it.
 * The command gets the store to hand to the services it builds and the runtime's records facade (runtime/records.ts)
 * for what it reads itself; host files never import a store module (lint: STORE_DOOR in eslint.config.js).
 */
import type { Records } from '../../runtime/records';
import { closeStore, openStore as openDataStore, storeRecords, type OpenedStore } from '../../runtime/store-door';
import { runOwnerAlive } from '../../services/processes/proc-info';
import { resolveDataDir } from './data-dir';

export { closeStore, useSqliteBinding } from '../../runtime/store-door';

/** An open store for a command that builds services on it. */
export type OpenStore = OpenedStore;

/** Opens the store on a resolved data dir; the caller closes it (`closeStore`). */
export function openStore(dataDir: string): OpenStore {
  return openDataStore(dataDir);
}

/** Runs `fn` with a store on the data dir (`--data-dir`, else DESKHAND_HOME, else the OS folder); always closes it. */
export async function withStore<T>(dataDir: string | undefined, fn: (store: OpenStore, records: Records) => T | Promise<T>): Promise<T> {
  const store = openDataStore(resolveDataDir(dataDir));
  try {
    return await fn(store, storeRecords(store));
  } finally {
    closeStore(store);
  }
}

/**
 * The records for listing and showing runs (`deskhand runs list|show`). A run a crashed process left "running" is
 * recovered first, as every command that opens the runtime does (open-runtime.ts): then, and only then, the runtime
 * is opened once for it.
 */
export async function openListingStore(dataDir: string): Promise<{ records: Records; close(): void }> {
  let store = openDataStore(dataDir);
  const stale = storeRecords(store).runsWithStatus('running').some((r) => r.owner_pid !== process.pid && !runOwnerAlive(r));
  if (stale) {
    closeStore(store);
    const { openRuntime } = await import('./open-runtime');
    const runtime = openRuntime({ dataDir, mcpStart: 'on-demand' });
    await runtime.close();
    store = openDataStore(dataDir);
  }
  const open = store;
  return { records: storeRecords(open), close: () => closeStore(open) };
}

/** Runs `fn` with the records of a store on the data dir (a command that only reads and changes rows); always closes it. */
export async function withRecords<T>(dataDir: string | undefined, fn: (records: Records) => T | Promise<T>): Promise<T> {
  return withStore(dataDir, (_store, records) => fn(records));
}
