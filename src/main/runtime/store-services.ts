/**
 * The services a long-lived host builds on its store (issue 44, "hosts behind the app service"): the store opened
 * (store-door.ts) and every service that keeps its rows there — the vault's catalog, background tasks, memory, goals,
 * agent profiles, subagents, workflows, Tower, the peer book, compositions, presence, computer use's grants and stop
 * flag, the hooks' pins, the change ledger. The assembly (host/assembly/host-services.ts) passes options (the data dir,
 * the redactor, limits) and gets the services; it never imports a store module nor hands the store to a service it
 * builds. The runtime is built on `store`; `close()` ends it.
 */
import type { ContentReader } from '../../shared/content-reader';
import { BackgroundTasks } from '../services/tasks/background-tasks';
import { KeytarSecretStore, keyringService } from '../services/vault/secret-store';
import { Vault } from '../services/vault/vault';
import { PeerBook, PeerClarifications } from '../services/peers/index';
import { StoreMemoryService } from '../services/memory/memory-service';
import { StoreGoalService } from '../services/goals/goal-service';
import { ProfileStore } from '../services/profiles';
import { CompositionFiles } from '../services/compositions/composition-files';
import { StorePresence } from '../services/presence/store-presence';
import { SubagentService, type SubagentServiceOptions } from '../services/subagents/subagent-service';
import type { ComputerUse } from '../services/computer/index';
import { ComputerUseService } from '../services/computer/computer-use';
import { createOperator } from '../services/computer/operators';
import { StoreStopFlag } from '../services/computer/stop-flag';
import { WorkflowService, type WorkflowLimits } from '../services/workflows/workflow-service';
import { TowerService } from '../services/tower/tower-service';
import { ChangeLedger } from '../services/ledger';
import { HookService } from '../services/hooks';
import { droppedMessage } from './context/compaction';
import type { SecretRedactor } from './context/redaction';
import type { Records } from './records';
import { appGrantBook, closeStore, openStore, storeRecords, type OpenedStore } from './store-door';

export interface StoreServicesOptions {
  dataDir: string;
  /** A store already open (tests, benches); else one is opened on the data dir. */
  store?: OpenedStore;
  /** The better-sqlite3 build to open it with (Electron's). */
  sqliteBinding?: string;
  /** Every column of text from outside is stored through it. */
  redactor: SecretRedactor;
  /** Saved secrets (default: values in the OS keyring, their names in the store; null: none). */
  vault?: Vault | null;
  /** How long finished tasks' logs are kept (the settings file's retention). */
  logRetentionMs: () => number;
  /** Subagent limits (live children, minutes, tokens, cost) and prices. */
  subagents?: Partial<Omit<SubagentServiceOptions, 'store' | 'tasks' | 'dataDir'>>;
  /** Workflow ceilings (minutes, tokens, cost, agents, concurrency). */
  workflows?: Partial<WorkflowLimits>;
  /** Computer use (default: this desktop's operator over the store's app grants). */
  computer?: (store: OpenedStore, dataDir: string) => ComputerUse;
  /** Whether a tool changes the person's files or starts their work (presence; asked when presence is read). */
  writes: (tool: string) => boolean;
}

export interface StoreServices {
  /** What the runtime is built on (RuntimeOptions.store); hosts hand it on, never into a service. */
  store: OpenedStore;
  records: Records;
  vault: Vault | null;
  tasks: BackgroundTasks;
  memory: StoreMemoryService;
  goals: StoreGoalService;
  profiles: ProfileStore;
  subagents: SubagentService;
  workflows: WorkflowService;
  tower: TowerService;
  peers: { book: PeerBook; clarifications: PeerClarifications };
  computer: ComputerUse;
  compositions: CompositionFiles;
  presence: StorePresence;
  /** A message compaction dropped, paged back by retrieve_tool_result. */
  dropped(conversationId: string, messageId: number): ReturnType<typeof droppedMessage>;
  /** The lifecycle hooks' service (their project pins live in the store). */
  hooks(reader: ContentReader): HookService;
  /** The change ledger (`watch: false`: one that lists and rewinds without watching). */
  changeLedger(opts?: { watch?: boolean }): ChangeLedger;
  /** Closes the store (once). */
  close(): void;
}

/** Opens the store (unless given) and builds the services that keep their rows in it. */
export function openStoreServices(opts: StoreServicesOptions): StoreServices {
  const { dataDir, redactor } = opts;
  const store = opts.store ?? openStore(dataDir, opts.sqliteBinding ? { nativeBinding: opts.sqliteBinding } : {});
  // Every column that holds text from outside (MCP health, task summaries, job tails, children's answers…) is
  // stored through the same redactor as everything else.
  store.setRedactor((text) => redactor.redact(text));
  // Saved secrets: values in the OS keyring (DESKHAND_KEYRING_SERVICE lets tests use a throwaway service name).
  const vault = opts.vault === undefined ? new Vault(new KeytarSecretStore(keyringService()), store) : opts.vault;
  const tasks = new BackgroundTasks({ store, dataDir, redactor, logRetentionMs: opts.logRetentionMs });
  const subagents = new SubagentService({ store, tasks: tasks.external, dataDir, ...(opts.subagents ?? {}) });
  return {
    store,
    records: storeRecords(store),
    vault,
    tasks,
    memory: new StoreMemoryService(store, { looksSecret: (text) => redactor.matches(text).length > 0 }),
    goals: new StoreGoalService(store),
    profiles: new ProfileStore(store),
    subagents,
    workflows: new WorkflowService({ store, subagents, tasks: tasks.external, questions: tasks, dataDir, ...(opts.workflows ? { limits: opts.workflows } : {}) }),
    tower: new TowerService({ store, subagents, dataDir }),
    peers: { book: new PeerBook(store, new KeytarSecretStore(keyringService())), clarifications: new PeerClarifications() },
    computer: (opts.computer ?? defaultComputer)(store, dataDir),
    compositions: new CompositionFiles(store, dataDir),
    presence: new StorePresence(store, opts.writes),
    dropped: (conversationId, messageId) => droppedMessage(store, conversationId, messageId),
    hooks: (reader) => new HookService({ dataDir, store, reader }),
    changeLedger: (o = {}) => new ChangeLedger(store, dataDir, o),
    close: () => closeStore(store),
  };
}

/** This desktop's operator over the store's app grants. */
export function defaultComputer(store: OpenedStore, dataDir: string): ComputerUse {
  return new ComputerUseService({ operator: createOperator(process.env), grants: appGrantBook(store), dataDir, thumbnails: true, stops: new StoreStopFlag(store) });
}
