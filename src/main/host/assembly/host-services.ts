/**
 * The services a host assembles and the tool registry over every family (assemble.ts), without the runtime: what
 * `policy explain` needs to judge a call, and what open-runtime.ts builds the runtime on. Nothing here loads a heavy
 * library at import (Playwright, jimp, the AI SDK load with their first use), so judging a call costs little.
 */
import { Store } from '../../services/store/store';
import type { Notifier } from '../../services/notify';
import type { Runtime, RuntimeOptions } from '../../runtime/runtime';
import { SecretRedactor } from '../../runtime/context/redaction';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import { BackgroundTasks } from '../../services/tasks/background-tasks';
import { osSandbox } from '../../services/sandbox';
import { KeytarSecretStore, keyringService } from '../../services/vault/secret-store';
import { Vault } from '../../services/vault/vault';
import { A2aPeerCaller, PeerBook, PeerClarifications, peerCeilingOf } from '../../services/peers/index';
import { registerHolds } from './holds';
import { wireWorkflows } from './workflow-wiring';
import { assembleTools, type Assembly } from './assemble';
import { PinnedHttpClient } from '../../services/http/pinned-client';
import type { HttpService } from '../../services/http/index';
import { SettingsFile, retentionMs } from './settings-file';
import { StoreMemoryService } from '../../services/memory/memory-service';
import { StoreGoalService } from '../../services/goals/goal-service';
import { droppedMessage } from '../../runtime/context/compaction';
import { evidenceSource, quoteCheck } from './memory-host';
import type { ScheduleService } from '../../services/scheduler/schedules';
import { hostSchedules } from './schedule-wiring';
import { McpManager } from '../../services/mcp/manager';
import { VaultOAuthProvider } from '../../services/mcp/oauth';
import { ProfileStore, profileHides } from '../../services/profiles';
import { CompositionFiles } from '../../services/compositions/composition-files';
import { PublishTargets } from '../../services/compositions/publish';
import { ChromiumPdfPrinter } from '../../services/pdf/print';
import { PopplerReader } from '../../services/pdf/poppler';
import { FfmpegAv } from '../../services/media/av';
import { JimpMedia } from '../../services/media/images';
import { StorePresence } from '../../services/presence/store-presence';
import { CompanionModel } from '../../services/media/companion';
import type { BrowserService } from '../../services/browser/index';
import { PlaywrightBrowser } from '../../services/browser/playwright-browser';
import { selfIdentity } from '../../services/processes/proc-info';
import { SubagentService, type SubagentServiceOptions } from '../../services/subagents/subagent-service';
import type { SubagentWiring } from './subagent-runner';
import type { ComputerUse } from '../../services/computer/index';
import { ComputerUseService } from '../../services/computer/computer-use';
import { createOperator } from '../../services/computer/operators';
import { StoreStopFlag } from '../../services/computer/stop-flag';
import { StoreGrantBook } from '../../services/computer/grant-book';
import { appGrantsModule } from '../../services/store/modules/app-grants';
import { WorkflowService, type WorkflowLimits } from '../../services/workflows/workflow-service';
import { TowerService } from '../../services/tower/tower-service';

export type HostRuntimeOptions = {
  dataDir: string;
  store?: Store;
  sqliteBinding?: string;
  vault?: Vault | null;
  http?: HttpService;
  webFetchTimeoutMs?: number;
  mcpDeferAbove?: number;
  mcpBackoff?: { firstMs: number; maxMs: number };
  /**
   * When configured MCP servers connect (openRuntime): 'background' at once (app hosts, `run`, `fire`), or
   * 'on-demand' when something calls `startMcp` (read-only commands such as `runs list` never start a server).
   */
  mcpStart?: 'background' | 'on-demand';
  /** The app's browser (default: Chromium through Playwright; null: no browser tools). */
  browser?: BrowserService | null;
  /** Subagent limits (live children, minutes, tokens, cost) and prices. */
  subagents?: Partial<Omit<SubagentServiceOptions, 'store' | 'tasks' | 'dataDir'>>;
  /** The provider for a child whose parent run another process drives (default: the parent run's row, no key). */
  subagentProvider?: SubagentWiring['provider'];
  /** Workflow ceilings (minutes, tokens, cost, agents, concurrency). */
  workflows?: Partial<WorkflowLimits>;
  /** Computer use (default: this desktop's operator over the store's app grants). */
  computer?: (store: Store, dataDir: string) => ComputerUse;
  /** How this host shows notifications (default: `hostNotifier()`, D-Bus or the OS command; the desktop app: Electron's). */
  notifier?: Notifier;
} & Partial<
  Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools' | 'registry' | 'inputKinds' | 'vault'>
>;

/** What assembleHostServices made: the services, the registry over every family, and the runtime's place (bound later). */
export interface HostServices extends Assembly {
  store: Store;
  redactor: SecretRedactor;
  vault: Vault | null;
  settings: SettingsFile;
  tasks: BackgroundTasks;
  memory: StoreMemoryService;
  goals: StoreGoalService;
  schedules: ScheduleService;
  reader: GuardedContentReader;
  mcp: McpManager;
  profiles: ProfileStore;
  browser: BrowserService | null;
  subagents: SubagentService;
  workflows: WorkflowService;
  tower: TowerService;
  /** Peers (Agent2Agent): the peer book and the channel of request_clarification's questions. */
  peers: { book: PeerBook; clarifications: PeerClarifications };
  computer: ComputerUse;
  /** The runtime the compactor (summarize_context) calls, once one is built on these services. */
  bindRuntime(runtime: Pick<Runtime, 'compactNow'>): void;
}

/** Every service and family of a host, without the runtime and without recovery. */
export function assembleHostServices(opts: HostRuntimeOptions): HostServices {
  const { sqliteBinding, store: given, vault: givenVault, http, webFetchTimeoutMs, mcpDeferAbove, mcpBackoff, workflows: workflowLimits, computer: makeComputer } = opts;
  const store = given ?? new Store(opts.dataDir, sqliteBinding ? { nativeBinding: sqliteBinding } : {});
  const redactor = opts.redactor ?? new SecretRedactor();
  // Every column that holds text from outside (MCP health, task summaries, job tails, children's answers…) is
  // stored through the same redactor as everything else.
  store.setRedactor((text) => redactor.redact(text));
  // Saved secrets: values in the OS keyring (DESKHAND_KEYRING_SERVICE lets tests use a throwaway service name).
  const vault = givenVault === undefined ? new Vault(new KeytarSecretStore(keyringService()), store) : givenVault;
  const settings = new SettingsFile(opts.dataDir);
  const tasks = new BackgroundTasks({ store, dataDir: opts.dataDir, redactor, logRetentionMs: () => retentionMs(settings.read()) });
  const memory = new StoreMemoryService(store, { looksSecret: (text) => redactor.matches(text).length > 0 });
  const goals = new StoreGoalService(store);
  let runtime: Pick<Runtime, 'compactNow'> | null = null;
  const schedules = hostSchedules(store, opts.dataDir, { os: true });
  // MCP: stdio servers get only the secrets their configuration names; OAuth tokens live in the keyring.
  const keyring = new KeytarSecretStore(keyringService());
  // The one guarded reader: skills, project MCP files and what they run, plan files, AGENTS.md (runtime/context/content-reader.ts).
  const reader = new GuardedContentReader({ dataDir: opts.dataDir });
  const mcp = new McpManager({
    store,
    reader,
    // A secret handed to a server is known to the redactor from then on: what the server prints is redacted.
    secret: async (name) => {
      const value = vault ? await vault.get(name) : null;
      if (value) redactor.addSecret(name, value);
      return value;
    },
    oauth: (name) => new VaultOAuthProvider(name, keyring, (url) => void process.stderr.write(`deskhand: MCP server ${name} needs a sign-in: open ${url.href}\n`)),
    ...(mcpBackoff ? { backoff: mcpBackoff } : {}),
  });
  const profiles = new ProfileStore(store);
  const browser = opts.browser === undefined ? createBrowser(opts.dataDir, store, settings) : opts.browser;
  // Subagents and summarize_context need the runtime, which needs the tools: bound once it exists.
  const subagents = new SubagentService({ store, tasks: tasks.external, dataDir: opts.dataDir, ...(opts.subagents ?? {}) });
  const workflows = new WorkflowService({ store, subagents, tasks: tasks.external, questions: tasks, dataDir: opts.dataDir, ...(workflowLimits ? { limits: workflowLimits } : {}) });
  const tower = new TowerService({ store, subagents, dataDir: opts.dataDir });
  const peers = { book: new PeerBook(store, new KeytarSecretStore(keyringService())), clarifications: new PeerClarifications() };
  const compactor = { compact: (conv: string, run: string, focus: string | undefined, signal: AbortSignal) => runtime!.compactNow(conv, run, focus, signal), dropped: (conv: string, id: number) => droppedMessage(store, conv, id) };
  const computer = (makeComputer ?? defaultComputer)(store, opts.dataDir);
  // Screenshots kept after computer_end live as long as the logs (Settings → data folder and retention).
  computer.pruneKept?.(retentionMs(settings.read()));
  const { registry, decisions, inputKinds, contextSources } = assembleTools({
    dataDir: opts.dataDir,
    reader,
    tasks,
    sandbox: osSandbox,
    vault,
    redactor,
    http: http ?? new PinnedHttpClient(),
    urlGrants: () => store.urlGrants.patterns(),
    searchSettings: () => settings.read().search ?? null,
    secretValues: vault,
    schedules,
    profileCustomTools: { tools: profiles.list().flatMap((p) => (p.customTools?.length ? [{ profile: p.name, tools: p.customTools }] : [])), profileOf: (id) => profiles.forConversation(id)?.name ?? null },
    ...(webFetchTimeoutMs ? { webFetchTimeoutMs } : {}),
    memory: { memory, goals, quotes: quoteCheck(store), evidence: evidenceSource(store), folderOf: (id) => store.getConversation(id)?.folder ?? opts.dataDir },
    mcp,
    ...(mcpDeferAbove !== undefined ? { mcpDeferAbove } : {}),
    compositions: { store: new CompositionFiles(store, opts.dataDir), publisher: new PublishTargets(opts.dataDir), printer: new ChromiumPdfPrinter(), reader: new PopplerReader(), media: new JimpMedia(opts.dataDir), av: new FfmpegAv(), presence: new StorePresence(store, (tool) => registry.lookup(tool)?.facts?.writes === true), companion: new CompanionModel(opts.dataDir, process.env, (p) => keyring.get(`apiKey.${p}`)) },
    browser,
    browserEndpoint: () => settings.read().browser?.endpoint ?? undefined,
    subagents,
    compactor,
    computer,
    workflows,
    tower,
    peers: { caller: new A2aPeerCaller(peers.book), clarifier: peers.clarifications },
  });
  // An agent profile narrows its conversations' tools (looked up once per turn).
  registry.addFilter('agent-profile', (turn) => {
    const profile = profiles.forConversation(turn.conversationId);
    return profile ? (tool) => profileHides(profile, tool.name) : null;
  });
  // And may load families from its conversations' first request (browser, computer use…).
  // A profile with custom tools of its own loads the custom family too: its tools are part of what it is for.
  registry.addEnabler('agent-profile', (turn) => {
    const profile = profiles.forConversation(turn.conversationId);
    return [...(profile?.enableFamilies ?? []), ...(profile?.customTools?.length ? ['custom'] : [])];
  });
  // No subagent ever sees the workflow tool (no nesting).
  wireWorkflows(registry, subagents);
  // The holds (Tower's mission scope, a peer's ceiling, a subagent's inherited ceilings), after the plan family's:
  // what the run and `policy explain` both judge a conversation's calls under (holds.ts).
  registerHolds(decisions, {
    store,
    tower: {
      scopeOf: (id) => tower.scopeOf(id),
      roles: {
        isAgent: (id) => tower.rows.agentByConversation(id) !== undefined,
        isSubagent: (id) => subagents.byConversation(id) !== undefined,
        hasSession: (id) => Boolean(tower.rows.activeFor(id)),
      },
    },
    subagents,
  });
  // In a peer's conversation the peers family loads by itself (request_clarification); the ceiling still decides.
  registry.addEnabler('peer-conversation', (turn) => (peerCeilingOf(store, turn.conversationId) ? ['peers'] : []));
  // Nothing Deskhand started outlives it: hosts end background work with tasks.shutdown(), MCP servers go with it.
  const shutdownTasks = tasks.shutdown.bind(tasks);
  tasks.shutdown = async () => {
    try {
      await workflows.shutdown();
      await shutdownTasks();
    } finally {
      await mcp.close();
    }
  };
  return {
    store, redactor, vault, settings, tasks, memory, goals, schedules, reader, mcp, profiles, browser, subagents, workflows, tower, computer, peers,
    registry, decisions, inputKinds, contextSources,
    bindRuntime: (r) => {
      runtime = r;
    },
  };
}

/** The app's one browser: settings read at launch, its process group recorded with the commands' (ended by `recover()`). */
function createBrowser(dataDir: string, store: Store, settings: SettingsFile): BrowserService {
  const owner = selfIdentity();
  return new PlaywrightBrowser({
    dataDir,
    settings: () => {
      const b = settings.read().browser;
      const headed = process.env.DESKHAND_BROWSER_HEADED === '1' || b?.headless === false;
      return { headless: !headed, ...(b?.executable ? { executable: b.executable } : {}), ...(b?.endpoint ? { endpoint: b.endpoint } : {}), keepSignedIn: b?.keepSignedIn ?? [] };
    },
    owned: {
      record: (g) => store.tasks.insertGroup({ ...g, task_id: 'browser', owner_pid: owner.pid, owner_start: owner.start }),
      forget: (tag) => store.tasks.deleteGroup(tag),
    },
  });
}

/** This desktop's operator over the store's app grants. */
export function defaultComputer(store: Store, dataDir: string): ComputerUse {
  return new ComputerUseService({ operator: createOperator(process.env), grants: new StoreGrantBook(store.module(appGrantsModule)), dataDir, thumbnails: true, stops: new StoreStopFlag(store) });
}
