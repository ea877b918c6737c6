/**
 * The services a host assembles and the tool registry over every family (assemble.ts), without the runtime: what
 * `policy explain` needs to judge a call, and what open-runtime.ts builds the runtime on. Nothing here loads a heavy
 * library at import (Playwright, jimp, the AI SDK load with their first use), so judging a call costs little.
 */
import type { Notifier } from '../../services/notify';
import type { Runtime, RuntimeOptions } from '../../runtime/runtime';
import { SecretRedactor } from '../../runtime/context/redaction';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import type { BackgroundTasks } from '../../services/tasks/background-tasks';
import { osSandbox } from '../../services/sandbox';
import { KeytarSecretStore, keyringService } from '../../services/vault/secret-store';
import type { Vault } from '../../services/vault/vault';
import { A2aPeerCaller, type PeerBook, type PeerClarifications, peerCeilingOf } from '../../services/peers/index';
import { registerHolds } from './holds';
import type { HoldModule } from '../../runtime/decision/hold';
import { wireWorkflows } from './workflow-wiring';
import { assembleTools, type Assembly } from './assemble';
import { PinnedHttpClient } from '../../services/http/pinned-client';
import type { HttpService } from '../../services/http/index';
import { SettingsFile, retentionMs } from './settings-file';
import type { StoreMemoryService } from '../../services/memory/memory-service';
import type { StoreGoalService } from '../../services/goals/goal-service';
import { evidenceSource, quoteCheck } from './memory-host';
import type { ScheduleService } from '../../services/scheduler/schedules';
import { hostSchedules } from './schedule-wiring';
import { McpManager } from '../../services/mcp/manager';
import { VaultOAuthProvider } from '../../services/mcp/oauth';
import { type ProfileStore, profileHides } from '../../services/profiles';
import { PublishTargets } from '../../services/compositions/publish';
import { ChromiumPdfPrinter } from '../../services/pdf/print';
import { PopplerReader } from '../../services/pdf/poppler';
import { FfmpegAv } from '../../services/media/av';
import { JimpMedia } from '../../services/media/images';
import { CompanionModel } from '../../services/media/companion';
import type { BrowserService } from '../../services/browser/index';
import { PlaywrightBrowser } from '../../services/browser/playwright-browser';
import { selfIdentity } from '../../services/processes/proc-info';
import type { SubagentService, SubagentServiceOptions } from '../../services/subagents/subagent-service';
import type { SubagentWiring } from './subagent-runner';
import type { ComputerUse } from '../../services/computer/index';
import type { WorkflowLimits, WorkflowService } from '../../services/workflows/workflow-service';
import type { TowerService } from '../../services/tower/tower-service';
import type { HookService } from '../../services/hooks';
import type { ChangeLedger } from '../../services/ledger';
import type { ContentReader } from '../../../shared/content-reader';
import type { Records } from '../../runtime/records';
import type { OpenedStore } from '../../runtime/store-door';
import { defaultComputer, openStoreServices } from '../../runtime/store-services';

export type HostRuntimeOptions = {
  dataDir: string;
  store?: OpenedStore;
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
  /**
   * With 'background': how long after the start a model call still waits for the servers' first connections to settle
   * (default 20 s, an MCP connection's own timeout). A message sent as the app starts then reaches the model with the
   * servers' tools; a server that failed holds nothing, and after this no step waits at all.
   */
  mcpFirstWaitMs?: number;
  /** The app's browser (default: Chromium through Playwright; null: no browser tools). */
  browser?: BrowserService | null;
  /** Subagent limits (live children, minutes, tokens, cost) and prices. */
  subagents?: Partial<Omit<SubagentServiceOptions, 'store' | 'tasks' | 'dataDir'>>;
  /** The provider for a child whose parent run another process drives (default: the parent run's row, no key). */
  subagentProvider?: SubagentWiring['provider'];
  /** Workflow ceilings (minutes, tokens, cost, agents, concurrency). */
  workflows?: Partial<WorkflowLimits>;
  /** Computer use (default: this desktop's operator over the store's app grants). */
  computer?: (store: OpenedStore, dataDir: string) => ComputerUse;
  /** How this host shows notifications (default: `hostNotifier()`, D-Bus or the OS command; the desktop app: Electron's). */
  notifier?: Notifier;
  /** Hold modules besides the families' `tools/<family>/hold.ts` (a test's family), registered with theirs (holds.ts). */
  holdModules?: readonly HoldModule[];
} & Partial<
  Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools' | 'registry' | 'inputKinds' | 'vault'>
>;

/** What assembleHostServices made: the services, the registry over every family, and the runtime's place (bound later). */
export interface HostServices extends Assembly {
  /** What the runtime is built on (runtime/store-services.ts); handed on, never into a service here. */
  store: OpenedStore;
  records: Records;
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
  /** The lifecycle hooks' service on this store (runtime/store-services.ts). */
  hookService(reader: ContentReader): HookService;
  /** The change ledger on this store (`watch: false`: lists and rewinds without watching). */
  changeLedger(opts?: { watch?: boolean }): ChangeLedger;
  /** Closes the store, once (a host that built no runtime on it: `policy explain`). */
  closeStore(): void;
}

/** Every service and family of a host, without the runtime and without recovery. */
export function assembleHostServices(opts: HostRuntimeOptions): HostServices {
  const { sqliteBinding, store: given, vault: givenVault, http, webFetchTimeoutMs, mcpDeferAbove, mcpBackoff, workflows: workflowLimits, computer: makeComputer } = opts;
  const redactor = opts.redactor ?? new SecretRedactor();
  const settings = new SettingsFile(opts.dataDir);
  // The store and the services that keep their rows in it (runtime/store-services.ts): options in, services out.
  const built = openStoreServices({
    dataDir: opts.dataDir,
    ...(given ? { store: given } : {}),
    ...(sqliteBinding ? { sqliteBinding } : {}),
    redactor,
    ...(givenVault !== undefined ? { vault: givenVault } : {}),
    logRetentionMs: () => retentionMs(settings.read()),
    ...(opts.subagents ? { subagents: opts.subagents } : {}),
    ...(workflowLimits ? { workflows: workflowLimits } : {}),
    ...(makeComputer ? { computer: makeComputer } : {}),
    // Presence counts the calls of tools that declare they write (their facts, in the registry built below).
    writes: (tool) => registry.lookup(tool)?.facts?.writes === true,
  });
  const { store, records, vault, tasks, memory, goals, profiles, subagents, workflows, tower, peers, computer } = built;
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
  const browser = opts.browser === undefined ? createBrowser(opts.dataDir, records, settings) : opts.browser;
  // summarize_context needs the runtime, which needs the tools: bound once it exists.
  const compactor = { compact: (conv: string, run: string, focus: string | undefined, signal: AbortSignal) => runtime!.compactNow(conv, run, focus, signal), dropped: (conv: string, id: number) => built.dropped(conv, id) };
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
    urlGrants: () => records.urlGrants.patterns(),
    searchSettings: () => settings.read().search ?? null,
    secretValues: vault,
    schedules,
    profileCustomTools: { tools: profiles.list().flatMap((p) => (p.customTools?.length ? [{ profile: p.name, tools: p.customTools }] : [])), profileOf: (id) => profiles.forConversation(id)?.name ?? null },
    ...(webFetchTimeoutMs ? { webFetchTimeoutMs } : {}),
    memory: { memory, goals, quotes: quoteCheck(records), evidence: evidenceSource(records), folderOf: (id) => records.getConversation(id)?.folder ?? opts.dataDir },
    mcp,
    ...(mcpDeferAbove !== undefined ? { mcpDeferAbove } : {}),
    compositions: { store: built.compositions, publisher: new PublishTargets(opts.dataDir), printer: new ChromiumPdfPrinter(), reader: new PopplerReader(), media: new JimpMedia(opts.dataDir), av: new FfmpegAv(), presence: built.presence, companion: new CompanionModel(opts.dataDir, process.env, (p) => keyring.get(`apiKey.${p}`)) },
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
  // Every hold the families declare (plan mode, Tower's mission scope, a peer's ceiling, a subagent's inherited
  // ceilings…): what the run and `policy explain` both judge a conversation's calls under (holds.ts).
  registerHolds(
    decisions,
    {
      records,
      tower: {
        scopeOf: (id) => tower.scopeOf(id),
        roles: {
          isAgent: (id) => tower.rows.agentByConversation(id) !== undefined,
          isSubagent: (id) => subagents.byConversation(id) !== undefined,
          hasSession: (id) => Boolean(tower.rows.activeFor(id)),
        },
      },
      subagents,
    },
    opts.holdModules,
  );
  // In a peer's conversation the peers family loads by itself (request_clarification); the ceiling still decides.
  registry.addEnabler('peer-conversation', (turn) => (peerCeilingOf(records, turn.conversationId) ? ['peers'] : []));
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
    store, records, redactor, vault, settings, tasks, memory, goals, schedules, reader, mcp, profiles, browser, subagents, workflows, tower, computer, peers,
    registry, decisions, inputKinds, contextSources,
    bindRuntime: (r) => {
      runtime = r;
    },
    hookService: built.hooks,
    changeLedger: built.changeLedger,
    closeStore: built.close,
  };
}

/** The app's one browser: settings read at launch, its process group recorded with the commands' (ended by `recover()`). */
function createBrowser(dataDir: string, records: Records, settings: SettingsFile): BrowserService {
  const owner = selfIdentity();
  return new PlaywrightBrowser({
    dataDir,
    settings: () => {
      const b = settings.read().browser;
      const headed = process.env.DESKHAND_BROWSER_HEADED === '1' || b?.headless === false;
      return { headless: !headed, ...(b?.executable ? { executable: b.executable } : {}), ...(b?.endpoint ? { endpoint: b.endpoint } : {}), keepSignedIn: b?.keepSignedIn ?? [] };
    },
    owned: {
      record: (g) => records.tasks.insertGroup({ ...g, task_id: 'browser', owner_pid: owner.pid, owner_start: owner.start }),
      forget: (tag) => records.tasks.deleteGroup(tag),
    },
  });
}

export { defaultComputer };
