/**
 * host/app/ — the contract's one implementation: AppService (this file), its handler groups (one file per area),
 * the projections and settings views, and what both transports share (dispatch.ts, event-batcher.ts). It imports
 * host/assembly/ and host/background/; never host/web/ or host/cli/ (Electron's IPC and the web host call it).
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/architecture.md, "The host".
 */
/**
 * The contract implemented once, over the Runtime and the Store, for every transport (Electron IPC, WebSocket).
 * Runs started here are interactive: they wait in this process while the UI answers their approvals. Runs parked by
 * another process (or recovered after this host restarted) are listed too, and approving the last open approval of a
 * parked run resumes it here.
 */
import { answererOf } from './device-actor';
import { answerAndResume, type ActiveRun } from '../background/answer-resume';
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  type ContractEvent,
  type ContractHandlers,
  type ConversationSummary,
  type MethodResult,
  type ParsedParams,
  type ProviderName,
} from '../../../shared/contract';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { RunEvent } from '../../../shared/events';
import type { RunOptions, RunOutcome } from '../../runtime/runtime';
import type { AppRuntime as Runtime } from '../assembly/open-runtime';
import { PROVIDERS, type ProviderConfig } from '../../services/providers/providers';
import type { SecretStore } from '../../services/vault/secret-store';
import { ApprovalList } from './approval-list';
import { projectMessages, projectTodos, summarize, toolPresenter, type ToolPresenter } from './projections';
import { requestGroup, type PickOptions } from './groups/requests';
import { ProviderSettings, providerGroup } from './groups/providers';
import { browserGroup, rulesGroup, webGroup } from './groups/settings';
import { extensionGroup } from './groups/extensions';
import { workflowGroup } from './groups/workflows';
import { usageGroup } from './groups/usage';
import { answerHoldAndResume } from '../background/hold-resume';
import { startBudgetNotices } from '../background/budget-notice';
import { parseMessageRef } from '../../runtime/context/fork';
import { TaskWakes } from '../background/task-wakes';
import { memoryGroup } from './groups/memory';
import { projectBackgroundTasks } from './task-projections';
import { sandboxSupport } from '../../services/sandbox/sandbox';
import { CompositionHost, compositionGroup, type CompositionPage } from './groups/compositions';
import { folderGroup } from './groups/folders';
import { computerGroup } from './groups/computer';
import { mediaGroup } from './groups/media';
import { McpAppHost, mcpAppGroup, type ViewReachKind } from './mcp-apps';
import { peerGroup, type PeerEndpointControl } from './groups/peers';
import { deviceGroup } from './devices-contract';
import { installGroups, type HandlerContext } from './handler-groups';
import { pluginsGroup } from './plugins-host';
import { subagentGroup } from './groups/subagents';
import { settingsFamilies, toolsGroup } from './groups/tools';
import { changesGroup, ledgerFor } from './groups/changes';
import { conversationFigures, exportConversation, regenerateInput, turnInput, type TurnInput } from './chat-host';

// The contract's provider list and the providers module must name the same providers.
const _sameProviders: [(typeof PROVIDERS)[number]] extends [ProviderName] ? ([ProviderName] extends [(typeof PROVIDERS)[number]] ? true : false) : false = true;
void _sameProviders;

import { stderrLogger, type Logger } from '../assembly/logger';
import { type ApprovalRow } from '../../runtime/records';

export { stderrLogger, type Logger };


export interface AppServiceOptions {
  runtime: Runtime;
  secrets: SecretStore;
  dataDir: string;
  kind: 'electron' | 'web' | 'acp';
  /** Where this host's person answers, as approvals record it ("the editor (Zed)"); default from `kind`. */
  answeredBy?: () => string;
  /** Provider flags the host was started with (`deskhand web --provider … --base-url …`); they win over settings. */
  providerOverride?: ProviderConfig | null;
  /** Native folder picker (Electron only). */
  pickFolder?: () => Promise<string | null>;
  /** Pair with (or find the pairing of) another machine and restart attached to it (Electron only; devices-contract.ts). */
  driveMachine?: (target: string) => Promise<{ machine: string }>;
  /** Native file dialog for file_pick requests (Electron only): the picked paths, or null when cancelled. */
  pickPaths?: (opts: PickOptions) => Promise<string[] | null>;
  /** Where new conversations start when nothing better is known (web: where it was started; the home folder is replaced by the Deskhand folder). */
  defaultFolder?: string;
  version?: string;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
}


/** How often the UI hears that background tasks changed: live enough for an output tail, cheap for `yes`. */
const TASKS_EVENT_MS = 300;

export { apiKeyName } from './groups/providers';

/** The contract methods AppService gets from its handler groups (handler-groups.ts), one file per family. */
type Installed = ReturnType<typeof computerGroup> &
  ReturnType<ReturnType<typeof compositionGroup>> &
  ReturnType<ReturnType<typeof memoryGroup>> &
  ReturnType<typeof extensionGroup> &
  ReturnType<typeof pluginsGroup> &
  ReturnType<typeof webGroup> &
  ReturnType<typeof rulesGroup> &
  ReturnType<typeof browserGroup> &
  ReturnType<typeof subagentGroup> &
  ReturnType<ReturnType<typeof providerGroup>> &
  ReturnType<typeof mediaGroup> &
  ReturnType<ReturnType<typeof mcpAppGroup>> &
  ReturnType<ReturnType<typeof peerGroup>> &
  ReturnType<ReturnType<typeof deviceGroup>> &
  ReturnType<typeof workflowGroup> &
  ReturnType<ReturnType<typeof toolsGroup>> &
  ReturnType<typeof folderGroup> &
  ReturnType<ReturnType<typeof usageGroup>> &
  ReturnType<ReturnType<typeof requestGroup>> &
  ReturnType<ReturnType<typeof changesGroup>>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- installed by the constructor
export interface AppService extends Installed {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AppService implements ContractHandlers {
  private readonly runtime: Runtime;
  /** Compositions for the viewer pages (`compositionPage`) and the compositions group. */
  private readonly compositionHost: CompositionHost;
  /** MCP Apps: the views of MCP tool calls (their pages share the `/cv/` route) and what they ask (mcp-apps.ts). */
  private readonly mcpApps: McpAppHost;
  /** What the handler groups registered to run at shutdown. */
  private readonly onShutdown: (() => void | Promise<void>)[] = [];
  /** The A2A endpoint of the host that runs (deskhand web, the app), once it attached one (attachPeerEndpoint). */
  private peerEndpoint: PeerEndpointControl | null = null;
  private readonly providers: ProviderSettings;
  private readonly env: NodeJS.ProcessEnv;
  private readonly log: Logger;
  private readonly listeners = new Set<(event: ContractEvent) => void>();
  /** Runs this host drives, by conversation. */
  private readonly active = new Map<string, ActiveRun>();
  private readonly unsubscribe: () => void;
  private readonly wakes: TaskWakes;
  /** Subscriptions ended at shutdown (tasks, tools, changes made by other processes). */
  private readonly offs: (() => void)[] = [];
  private readonly presenter: ToolPresenter;
  /** Conversations whose background tasks changed, published together at most every TASKS_EVENT_MS. */
  private readonly tasksChanged = new Set<string>();
  private tasksTimer: NodeJS.Timeout | null = null;
  private changed = { conversations: false, approvals: false, elsewhere: false, scheduled: false };
  /** The pending requests every UI shows, kept from the runtime's events (approval-list.ts). */
  private readonly approvals: ApprovalList;
  /** Each conversation's `updatedAt` as the UIs were last told it: what moved since, with no run here, moved elsewhere. */
  private toldUpdatedAt = new Map<string, number>();

  constructor(private readonly opts: AppServiceOptions) {
    this.runtime = opts.runtime;
    this.env = opts.env ?? process.env;
    this.log = opts.log ?? stderrLogger;
    this.providers = new ProviderSettings({ dataDir: opts.dataDir, secrets: opts.secrets, env: this.env, log: this.log, override: opts.providerOverride ?? null });
    this.approvals = new ApprovalList(this.runtime.records, () => this.presenter);
    this.unsubscribe = this.runtime.onEvent((e) => this.onRunEvent(e));
    const ctx: HandlerContext = {
      runtime: this.runtime,
      dataDir: opts.dataDir,
      env: this.env,
      log: this.log,
      providerForRun: (run) => this.providers.forRun(run),
      emit: (e) => this.emit(e),
      markChanged: (what) => this.markChanged(what),
      pendingApprovals: () => this.approvals.list(),
      sendMessage: (p) => this.sendMessage(p),
      onShutdown: (fn) => void this.onShutdown.push(fn),
    };
    this.compositionHost = new CompositionHost({ runtime: this.runtime, dataDir: opts.dataDir, send: (c, text) => this.sendMessage({ conversationId: c, text }), emit: (e) => this.emit(e) });
    this.onShutdown.push(() => this.compositionHost.close());
    this.mcpApps = new McpAppHost({
      mcp: this.runtime.mcp,
      store: this.runtime.store,
      judge: (tool, args, conversationId) => this.runtime.judgeCall(tool, args, conversationId),
      redact: (t) => this.runtime.redactor.redact(t),
      sendUntrusted: (c, text) => this.startTurn(this.conversation(c).id, text, { untrusted: true }),
    });
    // A run parked on a budget tells the person; the notification's Raise / Stop answer the hold as the card does.
    const offBudget = startBudgetNotices(this.runtime, this.runtime.notifier, (holdId, value) => this.answerHold(holdId, value), this.log);
    this.onShutdown.push(offBudget);
    installGroups(this, ctx, [
      computerGroup,
      compositionGroup(this.compositionHost),
      folderGroup,
      requestGroup({
        answeredBy: () => answererOf(this.opts.answeredBy?.() ?? (this.opts.kind === 'web' ? 'the web UI' : this.opts.kind === 'acp' ? 'the editor' : 'the app')),
        answer: (approval, act) => this.answer(approval, act),
        folderOf: (conversationId) => this.conversation(conversationId).folder,
        ...(this.opts.pickPaths ? { pickPaths: this.opts.pickPaths } : {}),
      }),
      memoryGroup((run) => this.providers.forRun(run), (c, m, p, s) => this.runWake(c, m, p, s)),
      extensionGroup,
      pluginsGroup,
      webGroup,
      rulesGroup,
      browserGroup,
      subagentGroup,
      providerGroup(this.providers),
      mediaGroup,
      mcpAppGroup(this.mcpApps),
      peerGroup(() => this.peerEndpoint),
      deviceGroup(this.opts.driveMachine),
      workflowGroup,
      usageGroup({ answerHold: (holdId, value) => this.answerHold(holdId, value) }),
      toolsGroup({
        settings: () => this.providers.current(),
        provider: () => this.opts.providerOverride?.provider ?? this.providers.current().activeProvider,
        defaultFolder: () => this.opts.defaultFolder ?? homedir(),
      }),
      changesGroup(ledgerFor(this.runtime, opts.dataDir)),
    ]);
    // Background results continue their conversation when it is idle (unattended: approvals park and show here).
    this.wakes = new TaskWakes({
      runtime: this.runtime,
      provider: (run) => this.providers.forRun(run),
      // Driven like the person's own runs: the conversation shows as running, Stop stops it, a new message waits.
      run: (conversationId, message, provider, signal) => this.runWake(conversationId, message, provider, signal),
      onError: (err, conversationId) => this.log.warn('could not continue a conversation with a background result', { conversationId, error: errorMessage(err) }),
    }).start();
    this.offs.push(this.runtime.tasks.onEvent((e) => this.markTasksChanged(e.type === 'task.changed' ? e.task.conversation_id : e.conversationId)));
    this.presenter = toolPresenter(this.runtime.registry);
    this.offs.push(this.runtime.registry.onDidChange(() => this.emit({ event: 'toolsChanged', payload: {} })));
    // Another process wrote (`deskhand run`, `runs approve`, `tower teardown`…): the lists every UI shows follow.
    // An open transcript of a conversation another process continued (a reminder's fire, `deskhand run --conversation`)
    // loads again: the event names it (`changedElsewhere`).
    this.toldUpdatedAt = new Map(this.runtime.records.listConversations().map((c) => [c.id, c.updated_at]));
    this.offs.push(this.runtime.records.onExternalChange(() => ((this.changed.elsewhere = true), this.markChanged('conversations'), this.markChanged('approvals'))));
  }

  /** The host serves the A2A endpoint (host/peers/peer-endpoint-host.ts): Settings → Peers starts and stops it. */
  attachPeerEndpoint(control: PeerEndpointControl): void {
    this.peerEndpoint = control;
  }

  /** Every contract event for the UI: run events as they happen, list changes coalesced per tick. */
  onEvent(listener: (event: ContractEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops runs that are streaming; runs waiting for a person are left to be recovered as parked on the next start. */
  async shutdown(timeoutMs = 3000): Promise<void> {
    this.unsubscribe();
    await Promise.allSettled(this.onShutdown.splice(0).map(async (fn) => fn()));
    for (const off of this.offs.splice(0)) off();
    if (this.tasksTimer) clearTimeout(this.tasksTimer);
    await this.wakes.stop();
    const waits: Promise<unknown>[] = [];
    for (const run of this.active.values()) {
      const waiting = run.runId !== null && this.runtime.records.pendingApprovals(run.runId).length > 0;
      if (waiting) continue;
      run.controller.abort();
      waits.push(run.done);
    }
    await Promise.race([Promise.allSettled(waits), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    // Nothing a command, an MCP server or the browser started outlives Deskhand.
    await this.runtime.shutdownServices();
    await this.runtime.mcp?.close();
  }

  // ── Host ──────────────────────────────────────────────────────────────────────────────────────────────────────────

  async getHostInfo(): Promise<MethodResult<'getHostInfo'>> {
    return {
      kind: this.opts.kind,
      canPickFolder: !!this.opts.pickFolder,
      canPickPaths: !!this.opts.pickPaths,
      defaultFolder: this.offeredFolder(),
      deskhandFolder: { path: this.deskhandFolder(), exists: existsSync(this.deskhandFolder()) },
      version: this.opts.version ?? 'dev',
      sandbox: { available: sandboxSupport().available, detail: sandboxSupport().detail },
    };
  }

  /**
   * The Deskhand folder (issue 52): a folder of Deskhand's own offered for new conversations instead of the home
   * folder, where every change would ask. `DESKHAND_WORK_FOLDER` moves it (tests); by default `~/Deskhand`.
   */
  private deskhandFolder(): string {
    const fromEnv = this.env.DESKHAND_WORK_FOLDER?.trim();
    return fromEnv && isAbsolute(fromEnv) ? resolve(fromEnv) : join(homedir(), 'Deskhand');
  }

  /** The host's default folder, except that the home folder itself is never offered: the Deskhand folder is. */
  private offeredFolder(): string {
    const folder = this.opts.defaultFolder ?? homedir();
    return resolve(folder) === resolve(homedir()) ? this.deskhandFolder() : folder;
  }

  async pickFolder(): Promise<MethodResult<'pickFolder'>> {
    if (!this.opts.pickFolder) throw new DeskhandError('usage', 'The folder picker exists only in the desktop app; type the folder path instead.');
    return { folder: await this.opts.pickFolder() };
  }

  // ── Conversations ─────────────────────────────────────────────────────────────────────────────────────────────────

  async listConversations(): Promise<MethodResult<'listConversations'>> {
    return { conversations: this.summaries() };
  }

  async createConversation(p: ParsedParams<'createConversation'>): Promise<ConversationSummary> {
    // The Deskhand folder is made on first use, when the person starts a conversation in it after the dialog said so;
    // no other folder is ever created here.
    if (p.createFolder) {
      if (resolve(p.folder.trim()) !== this.deskhandFolder()) throw new DeskhandError('usage', `Only the Deskhand folder (${this.deskhandFolder()}) is created for you; make ${p.folder.trim()} first or choose another folder.`);
      mkdirSync(this.deskhandFolder(), { recursive: true });
    }
    const folder = this.checkFolder(p.folder);
    const title = p.title?.trim();
    // Settings → default sandbox applies to every new conversation (its header can change it afterwards).
    const settings = this.providers.current();
    const sandbox = settings.defaultSandbox;
    const row = this.runtime.createConversation({ folder, policy: p.policy, ...(title ? { title } : {}), ...(sandbox ? { sandbox } : {}) });
    // Settings → Tools: the families loaded from a new conversation's first request (its header can change them).
    const families = settingsFamilies(settings);
    if (families.length) this.runtime.setFamilies(row.id, families, true);
    this.markChanged('conversations');
    return this.summary(row.id);
  }

  async renameConversation(p: ParsedParams<'renameConversation'>): Promise<ConversationSummary> {
    this.conversation(p.conversationId);
    this.runtime.records.updateConversation(p.conversationId, { title: p.title });
    this.markChanged('conversations');
    return this.summary(p.conversationId);
  }

  async deleteConversation(p: ParsedParams<'deleteConversation'>): Promise<MethodResult<'deleteConversation'>> {
    this.conversation(p.conversationId);
    const run = this.active.get(p.conversationId);
    if (run) {
      run.controller.abort();
      await Promise.race([run.done.catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    await this.runtime.tasks.cancelForConversation(p.conversationId);
    this.runtime.records.deleteConversation(p.conversationId);
    this.markChanged('conversations');
    this.markChanged('approvals');
    return { ok: true };
  }

  async setPolicy(p: ParsedParams<'setPolicy'>): Promise<ConversationSummary> {
    this.ownSettings(p.conversationId, 'policy');
    this.runtime.records.updateConversation(p.conversationId, { policy: p.policy });
    this.markChanged('conversations');
    return this.summary(p.conversationId);
  }

  async getMessages(p: ParsedParams<'getMessages'>): Promise<MethodResult<'getMessages'>> {
    this.conversation(p.conversationId);
    const active = this.runtime.records.activeRunForConversation(p.conversationId);
    return {
      conversation: this.summary(p.conversationId),
      items: projectMessages(this.runtime.records, p.conversationId, this.presenter),
      activeRun: active && (active.status === 'running' || active.status === 'parked') ? { runId: active.id, status: active.status } : null,
      ...conversationFigures(this.runtime.records, p.conversationId),
    };
  }

  async getToolOutput(p: ParsedParams<'getToolOutput'>): Promise<MethodResult<'getToolOutput'>> {
    const row = this.runtime.records.toolCallOutput(p.conversationId, p.runId, p.callId);
    if (!row) throw new DeskhandError('not_found', `No tool call ${p.callId} in this conversation.`);
    const full = row.output ?? '';
    const end = Math.min(full.length, p.offset + p.limit);
    return { text: full.slice(p.offset, end), offset: p.offset, total: full.length, nextOffset: end < full.length ? end : null };
  }

  // ── Runs ──────────────────────────────────────────────────────────────────────────────────────────────────────────

  async sendMessage(p: ParsedParams<'sendMessage'>): Promise<MethodResult<'sendMessage'>> { return this.startTurn(this.conversation(p.conversationId).id, p.text, turnInput(p)); }
  async forkConversation(p: ParsedParams<'forkConversation'>): Promise<MethodResult<'forkConversation'>> {
    const fork = this.runtime.forkConversation(this.conversation(p.conversationId).id, p.messageId === undefined ? undefined : parseMessageRef(p.messageId));
    this.markChanged('conversations');
    return { conversationId: fork.id, title: fork.title };
  }

  async markReviewed(p: ParsedParams<'markReviewed'>): Promise<MethodResult<'markReviewed'>> {
    const mark = this.runtime.markReviewed(this.conversation(p.conversationId).id, p.callId, answererOf('app'));
    return { callId: mark.callId, tool: mark.tool, reviewedBy: mark.reviewedBy, reviewedAt: mark.reviewedAt, marked: mark.marked };
  }

  async regenerate(p: ParsedParams<'regenerate'>): Promise<MethodResult<'regenerate'>> { return this.startTurn(p.conversationId, '', regenerateInput(this.runtime.records, this.conversation(p.conversationId).id)); }
  async exportConversation(p: ParsedParams<'exportConversation'>): Promise<MethodResult<'exportConversation'>> { return exportConversation(this.runtime.records, this.conversation(p.conversationId), this.presenter, (t) => this.runtime.redactor.redact(t)); }

  /** Starts a run in this host (a new message, an edit, a regenerate); resolves with its id once it started. */
  private async startTurn(conversationId: string, text: string, input: TurnInput & { untrusted?: boolean }): Promise<MethodResult<'sendMessage'>> {
    const p = { conversationId, text };
    if (this.runtime.subagents.byConversation(conversationId)) {
      throw new DeskhandError('usage', "This is a subagent's conversation: its parent agent runs it. Send it a message with Steer in the parent's Subagents panel (or `deskhand subagents steer`).");
    }
    if (this.active.has(p.conversationId)) {
      throw new DeskhandError('conflict', 'A run is already working in this conversation. Wait for it or press Stop.');
    }
    const provider = await this.providers.forNewRun();
    const controller = new AbortController();
    let started!: (runId: string) => void;
    let failed!: (err: unknown) => void;
    const runId = new Promise<string>((res, rej) => {
      started = res;
      failed = rej;
    });
    const entry: ActiveRun = { runId: null, controller, done: Promise.resolve() };
    this.active.set(p.conversationId, entry);
    const options: RunOptions & TurnInput = {
      ...input,
      provider,
      interactive: true,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'run.started' && entry.runId === null) {
          entry.runId = e.runId;
          started(e.runId);
        }
        if (e.type === 'run.finished' && this.active.get(p.conversationId) === entry) this.active.delete(p.conversationId);
      },
    };
    entry.done = this.runtime
      .sendMessage(p.conversationId, p.text, options)
      .catch((err: unknown) => {
        failed(err);
        if (entry.runId !== null) this.log.warn(`run ${entry.runId} ended with an error`, { error: errorMessage(err) });
      })
      .finally(() => {
        if (this.active.get(p.conversationId) === entry) this.active.delete(p.conversationId);
        // The approval list followed the run's events (approval-list.ts).
        this.markChanged('conversations');
      });
    const id = await runId;
    const stored = this.runtime.records.lastMessageWithRole(conversationId, 'user');
    return { runId: id, ...(stored?.run_id === id ? { messageId: `m${stored.id}` } : {}) };
  }

  async stopRun(p: ParsedParams<'stopRun'>): Promise<MethodResult<'stopRun'>> {
    const run = this.active.get(p.conversationId);
    if (!run) return { stopped: false };
    run.controller.abort();
    return { stopped: true };
  }

  async stopParkedRun(p: ParsedParams<'stopParkedRun'>): Promise<MethodResult<'stopParkedRun'>> {
    this.conversation(p.conversationId);
    const run = this.runtime.records.getRun(p.runId);
    if (!run || run.conversation_id !== p.conversationId) throw new DeskhandError('not_found', 'That run is not part of this conversation.');
    // Resumed here a moment ago: it is running in this host now, so it stops like any running run.
    const here = this.active.get(p.conversationId);
    if (here && here.runId === run.id) {
      here.controller.abort();
      return { stopped: true };
    }
    if (run.status !== 'parked') return { stopped: false };
    this.runtime.stopParked(run.id);
    return { stopped: true };
  }

  /** A wake-up turn (TaskWakes) run as this host's own: listed as running, stopped by stopRun, blocking sendMessage. */
  private runWake(conversationId: string, message: string, provider: ProviderConfig, signal: AbortSignal): Promise<RunOutcome> {
    if (this.active.has(conversationId)) {
      return Promise.reject(new DeskhandError('conflict', `Conversation ${conversationId} is busy; the background result waits.`));
    }
    const controller = new AbortController();
    const forward = () => controller.abort();
    signal.addEventListener('abort', forward, { once: true });
    const entry: ActiveRun = { runId: null, controller, done: Promise.resolve() };
    this.active.set(conversationId, entry);
    this.markChanged('conversations');
    const release = () => {
      if (this.active.get(conversationId) === entry) this.active.delete(conversationId);
    };
    const outcome = this.runtime.wake(conversationId, message, {
      provider,
      interactive: false,
      signal: controller.signal,
      untrusted: true,
      onEvent: (e) => {
        if (e.type === 'run.started' && entry.runId === null) entry.runId = e.runId;
        if (e.type === 'run.finished' || e.type === 'run.parked') release();
      },
    });
    entry.done = outcome
      .catch(() => undefined)
      .finally(() => {
        signal.removeEventListener('abort', forward);
        release();
        this.markChanged('conversations');
      });
    return outcome;
  }

  async listTools(): Promise<MethodResult<'listTools'>> {
    return { tools: this.runtime.registry.presentations() };
  }

  /** Answers one request through `act`; a parked run's last answer resumes it here (answer-resume.ts). */
  private answer(approval: ApprovalRow, act: (resume?: RunOptions) => Promise<unknown>): Promise<boolean> {
    return answerAndResume({ runtime: this.runtime, active: this.active, providers: this.providers, log: this.log, markChanged: (w) => this.markChanged(w) }, approval, act);
  }

  /** Answers a budget hold; a raise resumes the parked run here (hold-resume.ts). */
  private answerHold(holdId: string, value: unknown): Promise<boolean> {
    return answerHoldAndResume({ runtime: this.runtime, active: this.active, providers: this.providers, log: this.log, markChanged: (w) => this.markChanged(w) }, holdId, value);
  }

  // ── Todos ─────────────────────────────────────────────────────────────────────────────────────────────────────────

  async getTodos(p: ParsedParams<'getTodos'>): Promise<MethodResult<'getTodos'>> {
    return { todos: projectTodos(this.conversation(p.conversationId)) };
  }

  // ── Sandbox and background tasks ──────────────────────────────────────────────────────────────────────────────────

  async setSandbox(p: ParsedParams<'setSandbox'>): Promise<ConversationSummary> {
    this.ownSettings(p.conversationId, 'sandbox');
    this.runtime.records.updateConversation(p.conversationId, { sandbox: p.sandbox });
    this.markChanged('conversations');
    return this.summary(p.conversationId);
  }

  async listBackgroundTasks(p: ParsedParams<'listBackgroundTasks'>): Promise<MethodResult<'listBackgroundTasks'>> {
    this.conversation(p.conversationId);
    return { tasks: projectBackgroundTasks(this.runtime.tasks, p.conversationId) };
  }

  async cancelBackgroundTask(p: ParsedParams<'cancelBackgroundTask'>): Promise<MethodResult<'cancelBackgroundTask'>> {
    this.conversation(p.conversationId);
    const [outcome] = await this.runtime.tasks.cancel([p.taskId], p.conversationId, 'cancelled by the person');
    this.markTasksChanged(p.conversationId);
    return { result: outcome?.result ?? 'cancelled' };
  }

  // ── Internals ─────────────────────────────────────────────────────────────────────────────────────────────────────

  private checkFolder(input: string): string {
    const expanded = input.trim().startsWith('~') ? join(homedir(), input.trim().slice(1)) : input.trim();
    if (!isAbsolute(expanded)) throw new DeskhandError('usage', `Give the working folder as a full path (got "${input}").`);
    if (!existsSync(expanded) || !statSync(expanded).isDirectory()) throw new DeskhandError('usage', `${expanded} is not an existing folder.`);
    const real = realpathSync(resolve(expanded));
    const data = existsSync(this.opts.dataDir) ? realpathSync(this.opts.dataDir) : resolve(this.opts.dataDir);
    const rel = relative(data, real);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`))) {
      throw new DeskhandError('usage', 'The working folder cannot be inside Deskhand\'s own data folder.');
    }
    return real;
  }

  private conversation(id: string) {
    const row = this.runtime.records.getConversation(id);
    if (!row) throw new DeskhandError('not_found', 'That conversation does not exist (it may have been deleted).');
    return row;
  }

  /** A subagent's policy and sandbox are its parent's at most: set by the parent's call, never raised from a UI. */
  private ownSettings(id: string, what: 'policy' | 'sandbox'): void {
    this.conversation(id);
    if (this.runtime.subagents.byConversation(id)) throw new DeskhandError('usage', `This is a subagent's conversation: its ${what} comes from its parent (at most the parent's). Change the parent's instead.`);
  }

  private runningConversations(): Set<string> {
    return new Set([...this.active.keys()]);
  }

  private summaries(): ConversationSummary[] {
    return summarize(this.runtime.records, this.runtime.records.listConversations(), this.runningConversations());
  }

  private summary(id: string): ConversationSummary {
    return summarize(this.runtime.records, [this.conversation(id)], this.runningConversations())[0]!;
  }

  private onRunEvent(event: RunEvent): void {
    this.emit({ event: 'run', payload: event });
    switch (event.type) {
      case 'state.changed':
        // Family state a tool published (the todo list): straight to every UI, no polling.
        if (event.slot === 'todos') {
          this.emit({ event: 'todosChanged', payload: { conversationId: event.conversationId, todos: event.value.map((t) => ({ ...t, priority: t.priority ?? null })) } });
        }
        break;
      case 'input.requested':
      case 'run.started':
      case 'run.finished':
      case 'run.parked':
      case 'approval.requested':
      case 'approval.decided':
        this.markChanged('conversations');
        // The list follows the event itself; it is read again only when something no event says moved (approval-list.ts).
        if (this.approvals.apply(event)) this.publishApprovals();
        break;
      default:
        break;
    }
  }

  /** Task changes (output included) are coalesced per conversation: at most one event each per TASKS_EVENT_MS. */
  private markTasksChanged(conversationId: string): void {
    this.tasksChanged.add(conversationId);
    if (this.tasksTimer) return;
    this.tasksTimer = setTimeout(() => {
      this.tasksTimer = null;
      const ids = [...this.tasksChanged];
      this.tasksChanged.clear();
      for (const id of ids) {
        if (/^conv_[A-Za-z0-9_-]{1,80}$/.test(id)) this.emit({ event: 'backgroundTasksChanged', payload: { conversationId: id } });
      }
    }, TASKS_EVENT_MS);
    this.tasksTimer.unref();
  }

  /**
   * List changes are coalesced: many changes in one tick make one event each. 'approvals' says the pending requests
   * changed in a way no run event describes (another process, a deleted conversation, a stale answer): the list is
   * read again before it is published. A change an event describes goes through `publishApprovals`.
   */
  private markChanged(what: 'conversations' | 'approvals'): void {
    if (what === 'approvals') this.approvals.stale();
    this.changed[what] = true;
    this.schedulePublish();
  }

  /** The kept approval list changed: published with the tick's other list changes. */
  private publishApprovals(): void {
    this.changed.approvals = true;
    this.schedulePublish();
  }

  private schedulePublish(): void {
    if (this.changed.scheduled) return;
    this.changed.scheduled = true;
    setImmediate(() => {
      const { conversations, approvals, elsewhere } = this.changed;
      this.changed = { conversations: false, approvals: false, elsewhere: false, scheduled: false };
      try {
        if (approvals) this.emit({ event: 'approvalsChanged', payload: { approvals: this.approvals.list() } });
        if (conversations) {
          const list = this.summaries();
          const changedElsewhere = elsewhere ? list.filter((c) => c.activity !== 'running' && c.updatedAt > (this.toldUpdatedAt.get(c.id) ?? c.updatedAt)).map((c) => c.id) : [];
          this.toldUpdatedAt = new Map(list.map((c) => [c.id, c.updatedAt]));
          this.emit({ event: 'conversationsChanged', payload: { conversations: list, ...(changedElsewhere.length ? { changedElsewhere } : {}) } });
        }
      } catch (err) {
        // The store may be closed during shutdown.
        this.log.warn('could not publish list changes', { error: errorMessage(err) });
      }
    });
  }

  /** The viewer page behind a ticket (web host route `/cv/<ticket>`, Electron's app protocol); not a contract method. */
  compositionPage(ticket: string): CompositionPage | null {
    return this.mcpApps.page(ticket) ?? this.compositionHost.page(ticket);
  }

  /** Whether the MCP App view served under `ticket` declared `url` for this kind of request (mcp-apps.ts `reaches`). */
  viewReaches(ticket: string, url: string, kind: ViewReachKind): boolean {
    return this.mcpApps.reaches(ticket, url, kind);
  }

  private emit(event: ContractEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.log.warn('an event listener failed', { error: errorMessage(err) });
      }
    }
  }
}
