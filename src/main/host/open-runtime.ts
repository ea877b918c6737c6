/**
 * Composes the runtime for a host: data dir, store, vault, background tasks, the sandbox, every tool family
 * (assemble.ts), crash recovery. The runtime itself constructs no services: they are made here and injected.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Store } from '../services/store/store';
import { Runtime, type RunOptions, type RunOutcome, type RuntimeOptions } from '../runtime/runtime';
import { SecretRedactor } from '../runtime/redaction';
import { GuardedContentReader } from '../runtime/content-reader';
import { BackgroundTasks } from '../services/tasks/background-tasks';
import { osSandbox } from '../services/sandbox';
import { KeytarSecretStore, keyringService } from '../services/vault/secret-store';
import { Vault } from '../services/vault/vault';
import { assembleTools } from './assemble';
import { formatAnswers } from '../tools/interaction';
import { PinnedHttpClient } from '../services/http/pinned-client';
import type { HttpService } from '../services/http/index';
import { SettingsFile, retentionMs } from './settings-file';
import { StoreMemoryService } from '../services/memory/memory-service';
import { StoreGoalService } from '../services/goals/goal-service';
import { evidenceSource, extractMemories, quoteCheck } from './memory-host';
import { ScheduleService } from '../services/scheduler/schedules';
import { fireCommand, platformScheduler } from '../services/scheduler/os-schedulers';
import { McpManager } from '../services/mcp/manager';
import { VaultOAuthProvider } from '../services/mcp/oauth';
import { ProfileStore, profileHides } from '../services/profiles';
import { CompositionFiles } from '../services/compositions/composition-files';
import { PublishTargets } from '../services/compositions/publish';
import { ChromiumPdfPrinter } from '../services/pdf/print';
import { PdfJsReader } from '../services/pdf/read';
import { JimpMedia } from '../services/media/images';
import { StorePresence } from '../services/presence/store-presence';
import { CompanionModel } from '../services/media/companion';
import type { BrowserService } from '../services/browser/index';
import { PlaywrightBrowser } from '../services/browser/playwright-browser';
import { selfIdentity } from '../services/processes/proc-info';
import { SubagentService, type SubagentServiceOptions } from '../services/subagents/subagent-service';
import { wireSubagents, type SubagentWiring } from './subagent-runner';
import type { ComputerUse } from '../services/computer/index';
import { ComputerUseService } from '../services/computer/computer-use';
import { createOperator } from '../services/computer/operators';
import { StoreStopFlag } from '../services/computer/stop-flag';
import { StoreGrantBook } from '../services/computer/grant-book';
import { appGrantsModule } from '../services/store/modules/app-grants';
import { KillableRuns, wireKillSwitch } from './computer-kill';
import { WorkflowService, type WorkflowLimits } from '../services/workflows/workflow-service';
import { wireWorkflows } from './workflow-wiring';
import { TowerService } from '../services/tower/tower-service';
import { wireTower } from './tower-wiring';

/** `--data-dir`, else DESKHAND_HOME, else the OS app-data folder (the same one the desktop app uses). */
export function resolveDataDir(flag?: string): string {
  if (flag) return resolve(flag);
  if (process.env.DESKHAND_HOME) return resolve(process.env.DESKHAND_HOME);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Deskhand');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Deskhand');
  return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Deskhand');
}

/** The runtime as a host holds it: with the background tasks it was assembled with (hosts list and stop them). */
export class AppRuntime extends Runtime {
  /** MCP servers (started by the host: `startMcp`), and agent profiles. */
  mcp!: McpManager;
  profiles!: ProfileStore;
  /** Workflows (the `workflow` tool, `deskhand workflows`). */
  workflows!: WorkflowService;
  /** Coordinator mode (Tower tools, the mission board). */
  tower!: TowerService;

  private mcpStarted: Promise<void> | null = null;
  private readonly killable = new KillableRuns();

  /** Connects the configured MCP servers (once) and a trusted project file's; each connects or fails, never throws. */
  async startMcp(folder?: string): Promise<void> {
    await (this.mcpStarted ??= this.mcp.startConfigured());
    if (folder) await this.mcp.startProject(folder);
  }

  constructor(
    opts: RuntimeOptions,
    readonly tasks: BackgroundTasks,
    readonly memory: StoreMemoryService = new StoreMemoryService(opts.store),
    readonly goals: StoreGoalService = new StoreGoalService(opts.store),
    /** Reminders and triggers (the scheduling family; `deskhand fire`, the ticker, the tray). Default: no OS jobs. */
    readonly schedules: ScheduleService = new ScheduleService({ store: opts.store, dataDir: opts.dataDir ?? '', os: null, command: (id) => fireCommand(id, opts.dataDir ?? '') }),
    readonly browser: BrowserService | null = null,
    readonly subagents: SubagentService = new SubagentService({ store: opts.store, tasks: tasks.external, dataDir: opts.dataDir }),
    /** Computer use (the kill switch, sessions, app grants). */
    readonly computer: ComputerUse = defaultComputer(opts.store, opts.dataDir),
  ) {
    super(opts);
    // Stopping a run stops what it started in the background too.
    this.onEvent((e) => {
      if (e.type === 'run.finished' && e.status === 'aborted') void this.tasks.cancelForRun(e.runId).catch(() => undefined);
      // A run that parks closes its browser session; whichever process resumes it reopens the pages.
      if (e.type === 'run.parked') void this.browser?.park(e.conversationId).catch(() => undefined);
    });
    wireKillSwitch(computer, this.killable, (runId) => this.stopParked(runId));
  }

  // Every drive of a run can be stopped by the computer-use kill switch (computer-kill.ts).
  override async sendMessage(...[id, prompt, options]: Parameters<Runtime['sendMessage']>): ReturnType<Runtime['sendMessage']> {
    const k = this.killable.wrap(options);
    return super.sendMessage(id, prompt, k.options).finally(k.release);
  }
  override async resume(runId: string, options: RunOptions): Promise<RunOutcome> {
    const k = this.killable.wrap(options);
    return super.resume(runId, k.options).finally(k.release);
  }
  override async decideApproval(...[id, answer, resume]: Parameters<Runtime['decideApproval']>): ReturnType<Runtime['decideApproval']> {
    if (!resume) return super.decideApproval(id, answer);
    const k = this.killable.wrap(resume);
    return super.decideApproval(id, answer, k.options).finally(k.release);
  }
  override async answerRequest(...[id, value, resume]: Parameters<Runtime['answerRequest']>): ReturnType<Runtime['answerRequest']> {
    if (!resume) return super.answerRequest(id, value);
    const k = this.killable.wrap(resume);
    return super.answerRequest(id, value, k.options).finally(k.release);
  }

  /**
   * On quit: everything a family opened ends, so nothing outlives Deskhand and nothing keeps the process alive:
   * commands, job workers, workflows and MCP servers (`tasks.shutdown`), the browser, computer use's D-Bus and AT-SPI
   * connections. Each service ends what it owns; this only calls them all, and remembers which are still closing
   * (`stillClosing`, named by a host's exit deadline).
   */
  shutdownServices(): Promise<void> {
    this.shuttingDown ??= (async () => {
      const parts: [string, () => unknown][] = [
        ['background tasks, workflows and MCP servers', () => this.tasks.shutdown()],
        ['MCP servers', () => this.mcp?.close()],
        ['the browser', () => this.browser?.shutdown()],
        ['computer use (D-Bus and AT-SPI connections)', () => this.computer.close()],
      ];
      await Promise.allSettled(
        parts.map(async ([name, close]) => {
          this.closing.add(name);
          try {
            await close();
          } finally {
            this.closing.delete(name);
          }
        }),
      );
    })();
    return this.shuttingDown;
  }

  /** What `shutdownServices` is still waiting for (empty when it finished or has not started). */
  stillClosing(): string[] {
    return [...this.closing];
  }

  /** A host's one exit path: every service ends (shutdownServices), then the store closes. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.shutdownServices().finally(() => {
      OPEN.delete(this);
      if (this.store.isOpen) this.store.close();
    });
    return this.closed;
  }

  private shuttingDown: Promise<void> | null = null;
  private closed: Promise<void> | null = null;
  private readonly closing = new Set<string>();
}

/** Runtimes `openRuntime` made and nobody closed yet: a host's exit closes them all (`closeOpenRuntimes`). */
const OPEN = new Set<AppRuntime>();

/** Closes every runtime this process opened (the CLI's exit path, whatever the command forgot). */
export async function closeOpenRuntimes(): Promise<void> {
  await Promise.allSettled([...OPEN].map((r) => r.close()));
}

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
} & Partial<
  Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools' | 'registry' | 'inputKinds' | 'vault'>
>;

/** Builds an AppRuntime with every family, without recovery (tests and benches that drive it directly). */
export function createAppRuntime(opts: HostRuntimeOptions): AppRuntime {
  const { sqliteBinding, store: given, vault: givenVault, http, webFetchTimeoutMs, mcpDeferAbove, mcpBackoff, mcpStart: _mcpStart, browser: _browser, subagents: _subagentOpts, subagentProvider: _subagentProvider, workflows: workflowLimits, computer: makeComputer, ...runtimeOpts } = opts;
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
  let runtime: AppRuntime | null = null;
  const schedules = new ScheduleService({ store, dataDir: opts.dataDir, os: platformScheduler(opts.dataDir), command: (id) => fireCommand(id, opts.dataDir) });
  // MCP: stdio servers get only the secrets their configuration names; OAuth tokens live in the keyring.
  const keyring = new KeytarSecretStore(keyringService());
  // The one guarded reader: skills, project MCP files and what they run, plan files, AGENTS.md (runtime/content-reader.ts).
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
  const compactor = { compact: (conv: string, run: string, focus: string | undefined, signal: AbortSignal) => runtime!.compactNow(conv, run, focus, signal) };
  const computer = (makeComputer ?? defaultComputer)(store, opts.dataDir);
  const { registry, inputKinds, contextSources } = assembleTools({
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
    ...(webFetchTimeoutMs ? { webFetchTimeoutMs } : {}),
    memory: { memory, goals, quotes: quoteCheck(store), evidence: evidenceSource(store), folderOf: (id) => store.getConversation(id)?.folder ?? opts.dataDir },
    mcp,
    ...(mcpDeferAbove !== undefined ? { mcpDeferAbove } : {}),
    compositions: { store: new CompositionFiles(store, opts.dataDir), publisher: new PublishTargets(opts.dataDir), printer: new ChromiumPdfPrinter(), reader: new PdfJsReader(), media: new JimpMedia(opts.dataDir), presence: new StorePresence(store), companion: new CompanionModel(opts.dataDir, process.env, (p) => keyring.get(`apiKey.${p}`)) },
    browser,
    browserEndpoint: () => settings.read().browser?.endpoint ?? undefined,
    subagents,
    compactor,
    computer,
    workflows,
    tower,
  });
  // An agent profile narrows its conversations' tools (looked up once per turn).
  registry.addFilter('agent-profile', (turn) => {
    const profile = profiles.forConversation(turn.conversationId);
    return profile ? (tool) => profileHides(profile, tool.name) : null;
  });
  // And may load families from its conversations' first request (browser, computer use…).
  registry.addEnabler('agent-profile', (turn) => profiles.forConversation(turn.conversationId)?.enableFamilies ?? []);
  runtime = new AppRuntime(
    {
      ...runtimeOpts,
      ...(vault ? { vault } : {}),
      redactor,
      store,
      registry,
      grants: computer.grants,
      inputKinds,
      // A background question's answer (from any process) finishes its task; the wake-up delivers it.
      onBackgroundAnswer: (a) => tasks.settleQuestion(a.taskId, a.declined ? { declined: a.reason } : { output: formatAnswers(a.answer) }),
      idleTimeoutMs: opts.idleTimeoutMs ?? envNumber('DESKHAND_MODEL_IDLE_TIMEOUT_MS'),
      retryBaseMs: opts.retryBaseMs ?? envNumber('DESKHAND_RETRY_BASE_MS'),
      contextSources,
      reader,
      // The scripts trusted project MCP servers run: a write to one always asks (mcp/manager.ts).
      runLaterPaths: opts.runLaterPaths ?? (() => mcp.runLaterPaths()),
      // Automatic memory extraction: a side call that only proposes records (off with DESKHAND_MEMORY_EXTRACTION=off).
      afterTurn: opts.afterTurn ?? ((turn) => extractMemories({ store, memory, complete: (cfg, system, prompt) => runtime!.complete(cfg, system, prompt) }, turn).then(() => undefined)),
      systemAddendum: (id) => {
        const p = profiles.forConversation(id);
        return p?.systemPrompt ? `Agent profile "${p.name}":\n${p.systemPrompt}` : null;
      },
    },
    tasks,
    memory,
    goals,
    schedules,
    browser,
    subagents,
    computer,
  );
  runtime.mcp = mcp;
  runtime.profiles = profiles;
  runtime.workflows = workflows;
  runtime.tower = tower;
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
  wireWorkflows(runtime, subagents);
  wireTower(runtime, tower, subagents);
  wireSubagents(runtime, subagents, { provider: opts.subagentProvider ?? ((run) => ({ provider: run.provider as never, model: run.model, ...(run.base_url ? { baseURL: run.base_url } : {}) })) });
  return runtime;
}

/** The app's one browser: settings read at launch, its process group recorded with the commands' (ended by `recover()`). */
function createBrowser(dataDir: string, store: Store, settings: SettingsFile): BrowserService {
  const owner = selfIdentity();
  return new PlaywrightBrowser({
    dataDir,
    settings: () => {
      const b = settings.read().browser;
      const headed = process.env.DESKHAND_BROWSER_HEADED === '1' || b?.headless === false;
      return { headless: !headed, ...(b?.executable ? { executable: b.executable } : {}), ...(b?.endpoint ? { endpoint: b.endpoint } : {}) };
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

export function openRuntime(opts: HostRuntimeOptions): AppRuntime {
  const runtime = createAppRuntime(opts);
  OPEN.add(runtime);
  runtime.recoverInterrupted();
  // Children a crashed process was running end as failed ("interrupted: …"), their tasks closed (issue 19).
  runtime.subagents.recoverOrphans();
  // What a crashed Deskhand left running is ended now; its job batches get a new worker.
  void runtime.tasks.recover().catch(() => undefined);
  // MCP servers connect in the background (the CLI awaits them before its first step); each failure is in its health.
  if (opts.mcpStart !== 'on-demand') void runtime.startMcp().catch(() => undefined);
  return runtime;
}

function envNumber(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
