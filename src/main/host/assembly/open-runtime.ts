/**
 * host/assembly/ — building the runtime: the services and families (host-services.ts, assemble.ts), the runtime on
 * them (this file), the subagent, workflow and Tower wiring, and what every run is built with (memory extraction,
 * the kill switch, the provider choice of headless runs, the data dir, the settings file, the logger, the exit
 * deadline). The bottom of the host: it imports src/shared, runtime, tools (factories) and services, and no other
 * host group.
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/architecture.md, "The host".
 */
/**
 * Composes the runtime for a host on the services of host-services.ts (data dir, store, vault, background tasks, the
 * sandbox, every tool family), wires subagents, workflows and Tower into it, and recovers after a crash. The runtime
 * itself constructs no services: they are made there and injected.
 */
import { Runtime, type RunOptions, type RunOutcome, type RuntimeOptions } from '../../runtime/runtime';
import { BackgroundTasks } from '../../services/tasks/background-tasks';
import { formatAnswers } from '../../tools/interaction';
import { StoreMemoryService } from '../../services/memory/memory-service';
import { StoreGoalService } from '../../services/goals/goal-service';
import { extractMemories } from './memory-host';
import type { ScheduleService } from '../../services/scheduler/schedules';
import { hostSchedules } from './schedule-wiring';
import { McpManager } from '../../services/mcp/manager';
import { ProfileStore } from '../../services/profiles';
import type { BrowserService } from '../../services/browser/index';
import { SubagentService } from '../../services/subagents/subagent-service';
import { wireSubagents } from './subagent-runner';
import type { ComputerUse } from '../../services/computer/index';
import { KillableRuns, wireKillSwitch } from './computer-kill';
import { WorkflowService } from '../../services/workflows/workflow-service';
import { TowerService } from '../../services/tower/tower-service';

import { forgetOpen, trackOpen } from './open-runtimes';
import { hostNotifier } from './notifier';
import { compactAtSetting } from './settings-file';
import type { Notifier } from '../../services/notify';

export { resolveDataDir } from './data-dir';

/** The runtime as a host holds it: with the background tasks it was assembled with (hosts list and stop them). */
export class AppRuntime extends Runtime {
  /** MCP servers (started by the host: `startMcp`), and agent profiles. */
  mcp!: McpManager;
  profiles!: ProfileStore;
  /** Workflows (the `workflow` tool, `deskhand workflows`). */
  workflows!: WorkflowService;
  /** Coordinator mode (Tower tools, the mission board). */
  tower!: TowerService;
  /** Peers (Agent2Agent): the peer book and request_clarification's channel (host/peers serves them). */
  peers!: ReturnType<typeof assembleHostServices>['peers'];
  /** The change ledger (docs/rewind.md); null when DESKHAND_LEDGER=off. */
  ledger: ChangeLedger | null = null;
  /** Lifecycle hooks (the person's settings.json, trusted project settings; docs/hooks.md). */
  hooks: HookService | null = null;
  /** Slash commands (the person's and the workspace's Markdown templates; docs/commands.md). */
  commands: CommandCatalog | null = null;
  /** Agent definitions: subagent types from Markdown files (docs/subagents-context.md). */
  agents: AgentCatalog | null = null;
  /** The host's one notifier (reminders, scheduled prompts, goals, approvals in the background); closed with the runtime. */
  notifier!: Notifier;

  private mcpStarted: Promise<void> | null = null;
  private ownLedger: ChangeLedger | null = null;

  /** The change ledger, or (DESKHAND_LEDGER=off) one on the store that lists and rewinds without watching. */
  changeLedger(dataDir: string): ChangeLedger {
    return this.ledger ?? (this.ownLedger ??= new ChangeLedger(this.store, dataDir, { watch: false }));
  }

  /** The compositions kept under the data dir (the compositions panel and viewer). */
  compositionFiles(dataDir: string): CompositionFiles {
    return new CompositionFiles(this.store, dataDir);
  }
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
    readonly schedules: ScheduleService = hostSchedules(opts.store, opts.dataDir ?? '', { os: false }),
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
  override async answerRequest(...[id, value, resume, by]: Parameters<Runtime['answerRequest']>): ReturnType<Runtime['answerRequest']> {
    if (!resume) return super.answerRequest(id, value, undefined, by);
    const k = this.killable.wrap(resume);
    return super.answerRequest(id, value, k.options, by).finally(k.release);
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
        ['hooks still running (Notification, SessionEnd)', () => this.hooks?.idle()],
        ['notifications (the D-Bus connection)', () => this.notifier?.close()],
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
      forgetOpen(this);
      this.closeStore();
    });
    return this.closed;
  }

  private shuttingDown: Promise<void> | null = null;
  private closed: Promise<void> | null = null;
  private readonly closing = new Set<string>();
}

export { closeOpenRuntimes } from './open-runtimes';

import { assembleHostServices, defaultComputer, type HostRuntimeOptions } from './host-services';
import { wireLedger } from './ledger-wiring';
import { ChangeLedger } from '../../services/ledger';
import { CompositionFiles } from '../../services/compositions/composition-files';
import { wireHooks } from './hooks-wiring';
import type { HookService } from '../../services/hooks';
import { CommandCatalog } from '../../services/commands';
import { ClaudeCompat } from '../../services/compat';
import type { AgentCatalog } from '../../services/agents';
import { agentAddendum, wireAgents } from './agents-wiring';
import { pluginAgentFolders, pluginCommandFolders } from './plugins-wiring';

export { defaultComputer, type HostRuntimeOptions };

/** Builds an AppRuntime with every family, without recovery (tests and benches that drive it directly). */
export function createAppRuntime(opts: HostRuntimeOptions): AppRuntime {
  const { sqliteBinding: _sqliteBinding, store: _store, vault: _vault, http: _http, webFetchTimeoutMs: _webFetchTimeoutMs, mcpDeferAbove: _mcpDeferAbove, mcpBackoff: _mcpBackoff, mcpStart: _mcpStart, mcpFirstWaitMs: _mcpFirstWaitMs, browser: _browser, subagents: _subagentOpts, subagentProvider: _subagentProvider, workflows: _workflowLimits, computer: _makeComputer, notifier, ...runtimeOpts } = opts;
  const { store, records, vault, redactor, tasks, memory, goals, schedules, reader, mcp, profiles, browser, subagents, workflows, tower, computer, peers, registry, decisions, inputKinds, contextSources, bindRuntime, hookService, changeLedger } = assembleHostServices(opts);
  let runtime: AppRuntime | null = null;
  runtime = new AppRuntime(
    {
      ...runtimeOpts,
      ...(vault ? { vault } : {}),
      redactor,
      store,
      registry,
      decisions,
      grants: computer.grants,
      inputKinds,
      // A background question's answer (from any process) finishes its task; the wake-up delivers it.
      onBackgroundAnswer: (a) => tasks.settleQuestion(a.taskId, a.declined ? { declined: a.reason } : { output: formatAnswers(a.answer) }),
      idleTimeoutMs: opts.idleTimeoutMs ?? envNumber('DESKHAND_MODEL_IDLE_TIMEOUT_MS'),
      retryBaseMs: opts.retryBaseMs ?? envNumber('DESKHAND_RETRY_BASE_MS'),
      // The person's threshold (Settings → Context, or a host's flag), read before each step.
      compactAt: opts.compactAt ?? (opts.dataDir ? compactAtSetting(opts.dataDir) : undefined),
      contextSources,
      reader,
      // The scripts trusted project MCP servers run: a write to one always asks (mcp/manager.ts).
      runLaterPaths: opts.runLaterPaths ?? (() => mcp.runLaterPaths()),
      // Automatic memory extraction: a side call that only proposes records (off with DESKHAND_MEMORY_EXTRACTION=off).
      afterTurn: opts.afterTurn ?? ((turn) => extractMemories({ records, memory, complete: (cfg, system, prompt) => runtime!.complete(cfg, system, prompt, undefined, { cause: 'memory', conversationId: turn.conversationId, runId: turn.runId }) }, turn).then(() => undefined)),
      systemAddendum: (id) => {
        const p = profiles.forConversation(id);
        const parts = [p?.systemPrompt ? `Agent profile "${p.name}":\n${p.systemPrompt}` : null, agentAddendum(runtime?.agents ?? null, store, id)].filter(Boolean);
        return parts.length ? parts.join('\n\n') : null;
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
  runtime.peers = peers;
  runtime.notifier = notifier ?? hostNotifier();
  bindRuntime(runtime);
  runtime.ledger = wireLedger(runtime, () => changeLedger(), opts.dataDir, tasks);
  runtime.hooks = wireHooks(runtime, hookService(reader));
  const compat = new ClaudeCompat(store).check;
  runtime.commands = new CommandCatalog({ dataDir: opts.dataDir, reader, folders: () => pluginCommandFolders(opts.dataDir), compat });
  runtime.useCommands(runtime.commands);
  runtime.agents = wireAgents(subagents, opts.dataDir, reader, () => pluginAgentFolders(opts.dataDir), compat);
  wireSubagents(runtime, subagents, {
    provider: opts.subagentProvider ?? ((run) => ({ provider: run.provider as never, model: run.model, ...(run.base_url ? { baseURL: run.base_url } : {}) })),
    // A parked workflow's child answered: the workflow replays here and continues it.
    resumeCaller: (child, attended) => {
      const owner = workflows.ownerOf(child);
      if (!owner) return null;
      if (owner.status === 'parked') return workflows.resumeParked(owner.id, attended);
      if (owner.status === 'running') return Promise.resolve();
      // Its workflow ended while it waited (cancelled from another process): it ends too, and nothing of it runs.
      return subagents.cancel(child.id, `its workflow ${owner.id} ${owner.status} while it waited for a person`);
    },
  });
  return runtime;
}

export function openRuntime(opts: HostRuntimeOptions): AppRuntime {
  const runtime = createAppRuntime(opts);
  trackOpen(runtime);
  runtime.recoverInterrupted();
  // Children a crashed process was running end as failed ("interrupted: …"), their tasks closed (issue 19).
  runtime.subagents.recoverOrphans();
  // What a crashed Deskhand left running is ended now; its job batches get a new worker.
  void runtime.tasks.recover().catch(() => undefined);
  // MCP servers connect in the background (the CLI awaits them before its first step); each failure is in its health.
  if (opts.mcpStart !== 'on-demand') waitForFirstMcp(runtime, runtime.startMcp(), opts.mcpFirstWaitMs ?? MCP_FIRST_WAIT_MS);
  return runtime;
}

/** How long after the start a model call still waits for the configured MCP servers' first connections. */
const MCP_FIRST_WAIT_MS = 20_000;

/**
 * Each model call waits, until `waitMs` after the start at most, for the configured MCP servers' first connections to
 * settle (connected or failed): the app starts them in the background, and a message sent as it opens would otherwise
 * reach the model without their tools (its search_tools finding nothing, its call an unknown tool). Once settled the
 * hook is removed; past the deadline it waits for nothing.
 */
function waitForFirstMcp(runtime: AppRuntime, started: Promise<void>, waitMs: number): void {
  const deadline = Date.now() + waitMs;
  const first = started.catch(() => undefined);
  const remove = runtime.addStepHook(async () => {
    const left = deadline - Date.now();
    if (left <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([first, new Promise<void>((resolve) => (timer = setTimeout(resolve, left).unref()))]);
    clearTimeout(timer);
  });
  // Settled: no step waits again, and the hook goes.
  void first.then(remove);
}

function envNumber(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
