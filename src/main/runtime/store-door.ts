/**
 * Where a host's store opens (issue 44, "hosts behind the app service"): the one place outside the runtime facade that
 * makes a `Store` for a host, and the small set `deskhand policy explain` judges a shell call on. Host files (host/,
 * electron/) never import a store module (lint: STORE_DOOR in eslint.config.js, no exceptions); the assembly asks here
 * with options (the data dir, the SQLite build) and gets back the records facade (records.ts) and what the runtime or
 * the explanation is built on, and a `close()` that ends the store. The long-lived host's services on the store are
 * built in store-services.ts. This module loads nothing heavy: the explanation of a shell call imports it.
 */
import { Store } from '../services/store/store';
import { appGrantsModule } from '../services/store/modules/app-grants';
import { towerModule } from '../services/store/modules/tower';
import { subagentsModule } from '../services/store/modules/subagents';
import { StoreGrantBook } from '../services/computer/grant-book';
import { missionScopeOf } from '../services/tower/tower-service';
import { BackgroundTasks } from '../services/tasks/background-tasks';
import type { HookService } from '../services/hooks';
import type { ContentReader } from '../../shared/content-reader';
import { recordsOf, type Records } from './records';
import type { SecretRedactor } from './context/redaction';

export { useSqliteBinding } from '../services/store/native-binding';

/** A store a host opened: what the runtime is built on (RuntimeOptions.store); hosts hand it on, never into a module. */
export type OpenedStore = Store;

/**
 * Opens the store on a resolved data dir (`nativeBinding`: the better-sqlite3 build, Electron's), its text columns
 * written through `redactor` when given. The caller closes it (`closeStore`, or the runtime's `close()`).
 */
export function openStore(dataDir: string, opts: { nativeBinding?: string; redactor?: Pick<SecretRedactor, 'redact'> } = {}): OpenedStore {
  const store = new Store(dataDir, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  const { redactor } = opts;
  if (redactor) store.setRedactor((text) => redactor.redact(text));
  return store;
}

/** Closes a store a host opened, once (a second close, or one after the runtime closed it, does nothing). */
export function closeStore(store: OpenedStore): void {
  if (store.isOpen) store.close();
}

/** The records facade of a store a host opened. */
export function storeRecords(store: OpenedStore): Records {
  return recordsOf(store);
}

/** Computer use's app grants, kept in the store (the app-grants module). */
export function appGrantBook(store: OpenedStore): StoreGrantBook {
  return new StoreGrantBook(store.module(appGrantsModule));
}

/** The lifecycle hooks over the store's project pins (docs/hooks.md); loaded when asked for. */
export async function hookService(store: OpenedStore, opts: { dataDir: string; reader: ContentReader }): Promise<HookService> {
  const { HookService } = await import('../services/hooks');
  return new HookService({ dataDir: opts.dataDir, store, reader: opts.reader });
}

/** What `policy explain` of a shell call is judged on: the store, its records, tasks, grants and the holds' sources. */
export interface ExplainStore {
  store: OpenedStore;
  records: Records;
  tasks: BackgroundTasks;
  grants: StoreGrantBook;
  /** Tower's mission scope and the subagents' rows, as the holds read them (host/assembly/holds.ts). */
  tower: { scopeOf(conversationId: string): ReturnType<typeof missionScopeOf> };
  subagents: { byConversation(conversationId: string): ReturnType<ReturnType<typeof subagentsModule.queries>['byConversation']> };
  /** The PreToolUse hooks' service on this store. */
  hooks(reader: ContentReader): Promise<HookService>;
  /** Ends the tasks, then the store. */
  close(): Promise<void>;
}

/** The store and the little on it that judging a shell call needs (host/assembly/explain-host.ts). */
export function openExplainStore(dataDir: string, redactor: SecretRedactor): ExplainStore {
  const store = openStore(dataDir, { redactor });
  // Explaining starts no task and prunes no log (a host's recovery does), so the retention setting is not read here.
  const tasks = new BackgroundTasks({ store, dataDir, redactor });
  const tower = store.module(towerModule);
  const children = store.module(subagentsModule);
  return {
    store,
    records: recordsOf(store),
    tasks,
    grants: appGrantBook(store),
    tower: { scopeOf: (id) => missionScopeOf(tower, id) },
    subagents: { byConversation: (id) => children.byConversation(id) },
    hooks: (reader) => hookService(store, { dataDir, reader }),
    close: async () => {
      try {
        await tasks.shutdown();
      } finally {
        closeStore(store);
      }
    },
  };
}
