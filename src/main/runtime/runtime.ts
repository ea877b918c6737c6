/**
 * The runtime: conversations and runs. It composes the run loop (run-loop.ts), the model step (model-step.ts), the
 * call pipeline (call-pipeline.ts) and the answers to what runs ask (input-requests.ts) around one live tool registry.
 * A run that needs an answer nobody can give parks, and resumes from the store in any process.
 */
import { instructionPinsModule } from '../services/store/modules/instruction-pins';
import { promptHooks, sessionEndHooks } from './loop/hook-calls';
import { expandSlashCommand } from './prompt/slash-commands';
import type { PromptCommands } from '../../shared/prompt-commands';
import type { LifecycleHooks } from '../../shared/lifecycle-hooks';
import { shortTitle } from '../../shared/short-title';
import { DecisionBook, type InspectorPlace } from './decision/decision-book';
import type { Hold } from './decision/hold';
import type { Inspector } from './decision/inspector';
import type { PeerCeiling } from './decision/peer-ceiling';
import { randomUUID } from 'node:crypto';
import type { LanguageModel } from 'ai';
import type { RunEvent } from '../../shared/events';
import type { Policy } from '../../shared/tools';
import type { SandboxMode } from '../../shared/sandbox';
import { DeskhandError, errorMessage } from '../../shared/errors';
import type { ApprovalRow, ConversationRow, RunRow, Store } from '../services/store/store';
import { createModel, describeProviderError, type ProviderConfig } from '../services/providers/providers';
import type { Vault } from '../services/vault/vault';
import { AnswerWaiters } from './loop/answer-waiters';
import type { AppGrants } from './decision/approval-engine';
import { CallPipeline } from './loop/call-pipeline';
import { RuntimeCore, type ContextSource, type RunOptions, type RunOutcome, type StepHook, type StepFilesWatcher } from './core';
import { compactConversation, contextFigures, type CompactionResult, type ContextFigures } from './context/compaction';
import { InputKinds, type ApprovalAnswer, type BackgroundAnswer, type InputKind } from './loop/input-kinds';
import { InputRequests } from './loop/input-requests';
import { streamModelStep } from './loop/model-call';
import { ledgerSink, type UsageAttribution } from './loop/usage-meter';
import { answerHold } from './loop/usage-budget';
import { contextModule } from '../services/store/modules/context';
import { forkConversation } from './context/fork';
import { markReviewed, type ReviewMark } from './decision/taint-scope';
import { SecretRedactor } from './context/redaction';
import { ToolRegistry } from './registry';
import { explainCall, type ExplainResult } from './decision/explain';
import { RunLoop } from './loop/run-loop';
import { runOwnerAlive } from '../services/processes/proc-info';
import type { EditorFiles, ToolDefinition } from './tool';
import type { ContentReader } from '../../shared/content-reader';
import type { RunLaterPath } from './decision/path-guard';
import { userContent } from './context/user-content';
import { recordsOf, type Records } from './records';
import { checkReplaceable, supersedeFrom, type TurnInput } from './loop/branches';
import { PersistentConversationState } from './context/conversation-state';
import { ENABLED_SLOT, enabledFamiliesOf } from './prompt/tool-families';
import { profileAddendum, systemPrompt } from './loop/model-step';
import type { InstructionsReport } from './context/project-instructions';

export type { RunOptions, RunOutcome, ApprovalAnswer, BackgroundAnswer };

export interface RuntimeOptions {
  store: Store;
  dataDir: string;
  /** The live registry (the host assembles every family into it), or a fixed list of tools. */
  registry?: ToolRegistry;
  /** The inspectors and holds (plan mode, mission scope, ceilings) the host registered; default: the general inspectors. */
  decisions?: DecisionBook;
  tools?: readonly ToolDefinition[];
  /** Input request kinds the families register (question, file_pick, secret…). */
  inputKinds?: readonly InputKind[];
  /** The one redactor of every sink; by default credential-named environment variables and credential shapes. */
  redactor?: SecretRedactor;
  /** Saved secrets (ask_user_secret, use_saved_secret, `[redacted:NAME]` in secret arguments). */
  vault?: Vault;
  /** The person's app grants for computer use. */
  grants?: AppGrants;
  modelFactory?: (cfg: ProviderConfig) => LanguageModel;
  /** A model stream silent for this long is abandoned and retried (default 120 s). */
  idleTimeoutMs?: number;
  /** Retries of one model step after retryable failures (default 3). */
  maxRetries?: number;
  /** Backoff before the first retry (doubling, with jitter; default 1000 ms). */
  retryBaseMs?: number;
  /** The longest one wait before a retry may be, a provider's `retry-after` included (default 60 s). */
  maxRetryDelayMs?: number;
  maxSteps?: number;
  contextWindow?: number;
  /** Share of the context window at which history is compacted (default 0.8); a function is asked before each step. */
  compactAt?: number | (() => number);
  /** Tool results longer than this many characters are offloaded (default 40 000). */
  offloadChars?: number;
  /**
   * Receives answers to requests that belong to background tasks (ask_user_question with `background`): the host
   * finishes the task with them. Without it such requests cannot be answered.
   */
  onBackgroundAnswer?: (answer: BackgroundAnswer) => void | Promise<void>;
  /** Blocks families add to every turn's system prompt (recall as untrusted data, scratchpad, pinned plan, goal). */
  contextSources?: readonly ContextSource[];
  /** The guarded reader for instruction files (default: one over `dataDir`). */
  reader?: ContentReader;
  /**
   * Called after a turn finished (not parked, failed or stopped), with the provider it ran on: memory extraction's
   * side call. Errors are swallowed; the turn's outcome is already decided.
   */
  afterTurn?: (turn: { runId: string; conversationId: string; provider: ProviderConfig }) => void | Promise<void>;
  /** Text appended to a conversation's system prompt (its agent profile's instructions), or null. */
  systemAddendum?: (conversationId: string) => string | null;
  /**
   * Files known at run time whose change makes something run later (the scripts of trusted project MCP servers):
   * every write to one asks, under every policy (path-guard.ts `RunLaterPath`).
   */
  runLaterPaths?: () => readonly RunLaterPath[];
}

export type { ExplainResult } from './decision/explain';

export class Runtime {
  readonly registry: ToolRegistry;
  readonly store: Store;
  /** What the hosts read and change of the store (records.ts); hosts use this, never `store` with a module. */
  readonly records: Records;
  readonly vault: Vault | null;
  readonly inputKinds: InputKinds;
  private readonly core: RuntimeCore;
  private readonly loop: RunLoop;
  private readonly requests: InputRequests;

  constructor(private readonly opts: RuntimeOptions) {
    this.store = opts.store;
    this.records = recordsOf(opts.store);
    this.registry = opts.registry ?? new ToolRegistry();
    if (opts.tools) this.registry.add(opts.tools);
    this.vault = opts.vault ?? null;
    this.inputKinds = new InputKinds();
    for (const kind of opts.inputKinds ?? []) this.inputKinds.register(kind);
    this.core = new RuntimeCore(
      opts.store,
      this.registry,
      opts.redactor ?? new SecretRedactor(),
      this.vault,
      this.inputKinds,
      new AnswerWaiters(opts.store),
      {
        dataDir: opts.dataDir,
        modelFactory: opts.modelFactory ?? createModel,
        idleTimeoutMs: opts.idleTimeoutMs ?? 120_000,
        maxRetries: opts.maxRetries ?? 3,
        retryBaseMs: opts.retryBaseMs ?? 1000,
        maxRetryDelayMs: opts.maxRetryDelayMs ?? 60_000,
        maxSteps: opts.maxSteps ?? 50,
        contextWindow: opts.contextWindow ?? 200_000,
        ...(opts.systemAddendum ? { systemAddendum: opts.systemAddendum } : {}),
        // Read when compaction asks (Settings may change it while a conversation runs).
        get compactAt() {
          return typeof opts.compactAt === 'function' ? opts.compactAt() : (opts.compactAt ?? 0.8);
        },
        offloadChars: opts.offloadChars ?? 40_000,
        ...(opts.runLaterPaths ? { runLater: opts.runLaterPaths } : {}),
      },
      opts.grants,
      opts.onBackgroundAnswer,
      opts.contextSources ?? [],
      opts.reader,
      opts.decisions ?? new DecisionBook(this.registry),
    );
    this.loop = new RunLoop(this.core, new CallPipeline(this.core));
    this.requests = new InputRequests(this.core, (runId, options) => this.resume(runId, options));
  }

  /**
   * Closes the store now, once: the last step of a host's `close()`, and what a process's exit does for the runtimes
   * it left open (nothing runs after it, so nothing is awaited). Hosts close the store only through this.
   */
  closeStore(): void {
    if (this.store.isOpen) this.store.close();
  }

  /** The redactor every sink goes through (families that persist text themselves use it). */
  get redactor(): SecretRedactor {
    return this.core.redactor;
  }

  /** Where an answered parked run resumes from (the top of its parked tree); returns its remover. */
  setParkedRoot(lookup: (runId: string) => string): () => void {
    this.core.parkedRoot = lookup;
    return () => {
      if (this.core.parkedRoot === lookup) this.core.parkedRoot = (runId) => runId;
    };
  }

  /** Who resumes an answered parked run instead of the runtime (a background subagent's service); returns its remover. */
  setParkedResume(resume: (runId: string, options: RunOptions) => Promise<RunOutcome> | null): () => void {
    this.core.parkedResume = resume;
    return () => {
      if (this.core.parkedResume === resume) this.core.parkedResume = () => null;
    };
  }

  /** Runs before each model call of every run (a subagent's steering); returns its remover. */
  addStepHook(hook: StepHook): () => void {
    this.core.stepHooks.add(hook);
    return () => this.core.stepHooks.delete(hook);
  }

  /** Watches the files every step that may change them changes (the change ledger); returns its remover. */
  watchStepFiles(watcher: StepFilesWatcher): () => void {
    this.core.fileWatchers.add(watcher);
    return () => this.core.fileWatchers.delete(watcher);
  }

  /** Says which roots the change ledger records (the confined inspector lets reversible work run unasked there). */
  setRecordedRoots(records: ((roots: readonly string[], writes?: readonly string[]) => boolean) | null): void {
    this.core.recordsRoots = records;
  }

  /** Runs when a parked run ends unresumed (stopped, replaced): what parked with it ends too; returns its remover. */
  addParkedEndHook(hook: (run: RunRow, reason: string) => void): () => void {
    this.core.parkedEndHooks.add(hook);
    return () => this.core.parkedEndHooks.delete(hook);
  }

  /** An editor serves this conversation's text files from now on (`deskhand acp`); returns its removal. */
  linkEditor(conversationId: string, editor: EditorFiles): () => void {
    this.core.editors.set(conversationId, editor);
    return () => {
      if (this.core.editors.get(conversationId) === editor) this.core.editors.delete(conversationId);
    };
  }

  /** A hold (plan mode, a scope, a ceiling: hold.ts) every call of this runtime is judged under; returns its removal. */
  addHold<S>(hold: Hold<S>): () => void {
    return this.core.decisions.addHold(hold);
  }

  /** An inspector every call goes through, at a place in the fold (decision-book.ts); returns its removal. */
  addInspector(inspector: Inspector, place?: InspectorPlace): () => void {
    return this.core.decisions.addInspector(inspector, place);
  }

  /** The lifecycle hooks every run fires (the host's HookService; docs/hooks.md). */
  useHooks(hooks: LifecycleHooks | null): void {
    this.core.hooks = hooks;
  }

  /** The slash commands a message may start with (the host's catalog; docs/commands.md). */
  useCommands(commands: PromptCommands | null): void {
    this.core.commands = commands;
  }

  /** Every inspector in the order a call goes through them (the general ones, the holds', the registered ones). */
  inspectors(): Inspector[] {
    return this.core.decisions.inspectors();
  }

  /** The options of a run this process drives now (a subagent inherits its parent's provider). */
  liveRunOptions(runId: string): RunOptions | undefined {
    return this.core.live.get(runId);
  }

  /** summarize_context: compacts a conversation now, with the model of the run that asks. */
  compactNow(conversationId: string, runId: string | null, focus: string | undefined, signal: AbortSignal, provider?: ProviderConfig): Promise<CompactionResult> {
    const model = provider ?? (runId ? this.core.live.get(runId)?.provider : undefined);
    if (!model) throw new DeskhandError('conflict', `Run ${runId} is not running in this process; compaction needs its model.`);
    const onEvent = runId ? this.core.live.get(runId)?.onEvent : undefined;
    return compactConversation(this.core, conversationId, runId, { provider: model, signal, ...(onEvent ? { onEvent } : {}) }, 'tool', focus);
  }

  /** What the next request of a conversation carries, the threshold and the compactions so far. */
  contextFigures(conversationId: string): ContextFigures {
    return contextFigures(this.core, conversationId);
  }

  /** Every event of every run in this process (UI hosts forward these). */
  onEvent(listener: (e: RunEvent) => void): () => void {
    return this.core.onEvent(listener);
  }

  createConversation(input: { folder: string; policy: Policy; title?: string; sandbox?: SandboxMode }): ConversationRow {
    return this.store.createConversation({
      id: `conv_${randomUUID()}`,
      title: input.title ?? 'New conversation',
      folder: input.folder,
      policy: input.policy,
      ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    });
  }

  /** A new conversation with this one's history up to a message, and nothing after (fork.ts); the source is unchanged. */
  forkConversation(sourceId: string, atMessageId?: number): ConversationRow {
    return forkConversation(this.store, sourceId, atMessageId);
  }

  /** The person marks an untrusted tool result as reviewed (taint-scope.ts); `by` names the surface (app, cli). */
  markReviewed(conversationId: string, callId: string, by: string): ReviewMark {
    return markReviewed(this.store, conversationId, callId, by);
  }

  /**
   * The system prompt a conversation's next request carries, in full (`deskhand prompt show`): for a stored
   * conversation by id, or for a conversation row not stored (a preview of a new conversation).
   */
  promptFor(conversation: string | ConversationRow, provider?: string): string {
    const conv = typeof conversation === 'string' ? this.store.getConversation(conversation) : conversation;
    if (!conv) throw new DeskhandError('not_found', `No conversation ${String(conversation)}.`);
    const extra = typeof conversation === 'string' ? profileAddendum(this.core, conv.id) : null;
    return systemPrompt(this.core, conv, undefined, provider, undefined, extra);
  }

  /** The project instruction files (AGENTS.md, CLAUDE.md) a conversation's prompt carries, as context_info reports them. */
  instructionsFor(conversation: ConversationRow): InstructionsReport {
    const state = new PersistentConversationState(conversation.folder, conversation.state);
    return this.core.instructions.report(state.cwd, state.workspaceRoots);
  }

  /**
   * The person trusts the workspace instruction files a conversation's prompt carries (the "Trust these instructions"
   * button): each is pinned by path and sha256 (project-instructions.ts); returns the report after.
   */
  trustInstructionsFor(conversation: ConversationRow): InstructionsReport {
    const state = new PersistentConversationState(conversation.folder, conversation.state);
    this.core.instructions.trust(state.cwd, state.workspaceRoots, this.store.module(instructionPinsModule));
    return this.core.instructions.report(state.cwd, state.workspaceRoots);
  }

  /**
   * Turns tool families on or off for a conversation (browser, computer use…; tool-families.ts): an enabled family's
   * schemas are in every request of the conversation from its next step on. Returns the families now enabled.
   */
  setFamilies(conversationId: string, families: readonly string[], enabled: boolean): string[] {
    const conv = this.store.getConversation(conversationId);
    if (!conv) throw new DeskhandError('not_found', `No conversation ${conversationId}.`);
    const state = new PersistentConversationState(conv.folder, conv.state);
    const now = new Set(enabledFamiliesOf(state.slots));
    for (const f of families) {
      if (enabled) now.add(f);
      else now.delete(f);
    }
    state.slots[ENABLED_SLOT] = [...now];
    this.store.updateConversation(conversationId, { state: state.serialize() });
    return [...now];
  }

  /**
   * Starts a turn nobody typed: a background task ended, a wait finished. The message is stored as a user-role
   * message (its text says it comes from Deskhand) and the turn runs like any other, parking on an approval nobody can
   * give. Refuses (conflict) while the conversation has a running or parked run, so the caller delivers it later.
   * `untrusted`: the message carries outside content (command output), so the run starts as having read it.
   */
  async wake(conversationId: string, message: string, options: RunOptions & { untrusted?: boolean }): Promise<RunOutcome> {
    let active = this.store.activeRunForConversation(conversationId);
    if (active?.status === 'running' && active.owner_pid !== process.pid && !runOwnerAlive(active)) {
      this.recoverInterrupted();
      active = this.store.activeRunForConversation(conversationId);
    }
    if (active) throw new DeskhandError('conflict', `Conversation ${conversationId} is busy (run ${active.id} is ${active.status}); the message waits.`);
    return this.sendMessage(conversationId, message, { ...options, fromDeskhand: true });
  }

  /**
   * Starts a run with a new user message. A parked run of the conversation is closed first (its approvals expire).
   * The message is the person's own (pinned verbatim into every compacted context) unless `fromDeskhand` (wake).
   */
  async sendMessage(conversationId: string, typed: string, given: RunOptions & TurnInput & { policy?: Policy; untrusted?: boolean; fromDeskhand?: boolean }): Promise<RunOutcome> {
    const conv = this.store.getConversation(conversationId);
    if (!conv) throw new DeskhandError('not_found', `No conversation ${conversationId}. List them with \`deskhand runs list\`.`);
    // `/name arguments` of a slash command is sent as its template (a project's as untrusted content).
    const command = given.content === undefined ? expandSlashCommand(this.core, conv, typed) : { prompt: typed, untrusted: false };
    const prompt = command.prompt;
    const options = command.untrusted ? { ...given, untrusted: true } : given;
    if (!prompt.trim() && !options.attachments?.length && options.content === undefined) throw new DeskhandError('usage', 'The message is empty.');
    // Checked before anything changes: a refused attachment or edit leaves the conversation as it was.
    const content = options.content ?? userContent(prompt, options.attachments, (t) => this.core.redactor.redact(t));
    if (options.replaceFrom !== undefined) checkReplaceable(this.records, conversationId, options.replaceFrom);
    let active = this.store.activeRunForConversation(conversationId);
    if (active?.status === 'running') {
      if (runOwnerAlive(active)) {
        throw new DeskhandError('conflict', `Conversation ${conversationId} already has a run in progress (${active.id}). Wait for it or stop it first.`);
      }
      this.recoverInterrupted();
      active = this.store.activeRunForConversation(conversationId);
    }
    if (active) this.loop.supersede(active);
    if (options.replaceFrom !== undefined) checkReplaceable(this.records, conversationId, options.replaceFrom);
    const policy = options.policy ?? conv.policy;
    if (options.policy && options.policy !== conv.policy) this.store.updateConversation(conv.id, { policy: options.policy });
    const runId = `run_${randomUUID()}`;
    // SessionStart and UserPromptSubmit hooks: a block refuses the message; what they add goes with it.
    const added = await promptHooks(this.core, conv, policy, typed, runId);
    const sent = added && typeof content === 'string' ? `${content}\n\n${this.core.redactor.redact(added.text)}` : added && Array.isArray(content) ? [...content, { type: 'text' as const, text: this.core.redactor.redact(added.text) }] : content;
    const untrusted = options.untrusted || !!added?.untrusted;
    // A foreground subagent's start skips the fsync: its parent's call result syncs it (RunOptions.syncedByParent).
    const run = (options.syncedByParent ? this.store.transactionWithoutFsync.bind(this.store) : this.store.transaction.bind(this.store))(() => {
      // A first message names the conversation, in the commit that starts its run (one fsync, not two).
      if (conv.title === 'New conversation' && typed.trim()) this.store.updateConversation(conv.id, { title: titleFrom(typed) });
      const r = this.store.createRun({
        id: runId,
        conversation_id: conversationId,
        policy,
        provider: options.provider.provider,
        model: options.provider.model,
        base_url: options.provider.baseURL ?? null,
      });
      // An edit or a regenerate: the turns from that message on become a superseded branch (kept, not shown or sent).
      if (options.replaceFrom !== undefined) supersedeFrom(this.records, conversationId, options.replaceFrom);
      const messageId = this.store.addMessage(conversationId, r.id, 'user', sent);
      if (!options.fromDeskhand) this.store.module(contextModule).markPerson(conversationId, messageId);
      // Taint outlives the run: a conversation that read untrusted content starts every later run tainted.
      if (untrusted || conv.tainted === 1) this.store.updateRun(r.id, { tainted: 1 });
      if (untrusted) this.store.updateConversation(conv.id, { tainted: 1, taint_only: null });
      return r;
    });
    this.core.emit(options, { type: 'run.started', conversationId, runId: run.id, resumed: false });
    return this.afterTurn(await this.loop.drive(run.id, options), options);
  }

  private async afterTurn(outcome: RunOutcome, options: RunOptions): Promise<RunOutcome> {
    await sessionEndHooks(this.core, outcome);
    if (outcome.status !== 'finished' || !this.opts.afterTurn) return outcome;
    try {
      await this.opts.afterTurn({ runId: outcome.runId, conversationId: outcome.conversationId, provider: options.provider });
    } catch {
      // a side task after the turn never changes the turn's outcome
    }
    return outcome;
  }

  /**
   * One side call of the model outside any conversation (memory extraction): a system prompt and one user message,
   * no tools, the text back (redacted). Nothing is stored.
   */
  async complete(cfg: ProviderConfig, system: string, prompt: string, signal?: AbortSignal, usage: UsageAttribution = { cause: 'memory' }): Promise<string> {
    let text = '';
    const stream = streamModelStep({
      model: this.core.limits.modelFactory(cfg),
      system,
      messages: [{ role: 'user', content: prompt }],
      tools: [],
      signal: signal ?? new AbortController().signal,
      redactor: this.core.redactor,
      onUsage: ledgerSink(this.store, usage),
    });
    for await (const part of stream) if (part.type === 'text') text += part.delta;
    return this.core.redactor.redact(text);
  }

  /** Decides one approval (CLI, UI, notification), or declines any request. Resumes a parked run when it was the last. */
  decideApproval(approvalId: string, answer: ApprovalAnswer, resume?: RunOptions): Promise<RunOutcome | null> {
    return this.requests.decideApproval(approvalId, answer, resume);
  }

  /** Answers any request with a JSON value its kind accepts (`deskhand runs answer ID --value JSON`); `by`: who answered. */
  answerRequest(requestId: string, value: unknown, resume?: RunOptions, by?: string): Promise<RunOutcome | null> {
    return this.requests.answer(requestId, value, resume, by);
  }

  /**
   * Answers a budget hold (usage-budget.ts): a raise sets the new limit and resumes the run where it stood (when
   * `resume` is given; else the caller resumes it), a stop ends it as a Stop on a parked run does.
   */
  async answerBudgetHold(holdId: string, value: unknown, resume?: RunOptions): Promise<RunOutcome | null> {
    const { hold, answer } = answerHold(this.records, holdId, value);
    if ('stop' in answer) return this.stopParked(hold.run_id, resume);
    return resume ? this.resume(hold.run_id, resume) : null;
  }

  /** Resumes a parked (or recovered) run whose approvals are all answered. */
  async resume(runId: string, options: RunOptions): Promise<RunOutcome> {
    const run = this.store.getRun(runId);
    if (!run) throw new DeskhandError('not_found', `No run ${runId}.`);
    if (!this.store.claimRun(runId, ['parked'])) {
      throw new DeskhandError('conflict', `Run ${runId} is ${run.status}; only a parked run can be resumed.`);
    }
    this.core.emit(options, { type: 'run.started', conversationId: run.conversation_id, runId, resumed: true });
    return this.afterTurn(await this.loop.drive(runId, options), options);
  }

  /**
   * Stops a parked run (the person pressed Stop on it instead of answering): its requests expire, every open call
   * gets a "not run: the person stopped the run" result and the run ends as aborted. Only a parked run: a running one
   * is stopped through its AbortSignal by the process that drives it.
   */
  stopParked(runId: string, options?: Pick<RunOptions, 'onEvent'>): RunOutcome {
    const run = this.store.getRun(runId);
    if (!run) throw new DeskhandError('not_found', `No run ${runId}.`);
    // The claim is the check: a run another process resumed a moment ago is not stopped from here.
    if (!this.store.claimRun(runId, ['parked'])) {
      throw new DeskhandError('conflict', `Run ${runId} is ${this.store.getRun(runId)?.status ?? run.status}; only a parked run can be stopped this way.`);
    }
    const outcome = this.loop.finish(this.store.getRun(runId)!, 'aborted', options, 'Stopped by the person.');
    this.loop.parkedEnded(run, 'its parent run was stopped while it waited for a person');
    return outcome;
  }

  /**
   * Test connection: one tiny real model call with these settings, through the same provider code and the same
   * streaming path as a run. Nothing is stored. Failures come back in plain words (never with the key in them).
   */
  async testProvider(cfg: ProviderConfig, timeoutMs = 20_000): Promise<{ ok: boolean; message: string; ms: number }> {
    const started = Date.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const redact = (text: string) => (cfg.apiKey ? text.split(cfg.apiKey).join('[redacted]') : text);
    let text = '';
    try {
      const stream = streamModelStep({
        model: this.core.limits.modelFactory(cfg),
        system: 'This is a connection test. Answer with one word.',
        messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
        tools: [],
        signal: controller.signal,
        redactor: this.core.redactor,
        onUsage: ledgerSink(this.store, { cause: 'connection-test' }),
      });
      for await (const part of stream) {
        if (part.type === 'text') text += part.delta;
        if (text.length > 200) break;
      }
      const ms = Date.now() - started;
      const said = text.trim().replace(/\s+/g, ' ').slice(0, 80);
      return { ok: true, message: `Connected: ${cfg.model} answered${said ? ` “${redact(said)}”` : ''} in ${ms} ms.`, ms };
    } catch (err) {
      const ms = Date.now() - started;
      if (controller.signal.aborted) return { ok: false, message: `The model API sent nothing for ${Math.round(timeoutMs / 1000)} s. Check the address and that the model is loaded.`, ms };
      return { ok: false, message: redact(connectionProblem(err, cfg)), ms };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Open input requests (ask_user_secret) for a secret name, or all of them. */
  pendingSecretRequests(name?: string): { approval: ApprovalRow; name: string; description: string }[] {
    return this.requests.pendingSecretRequests(name);
  }

  /** Answers a request for a secret with the value the person typed (saved in the keyring by the secret kind). */
  provideSecret(approvalId: string, value: string, resume?: RunOptions, by?: string): Promise<RunOutcome | null> {
    const approval = this.store.getApproval(approvalId);
    if (approval && approval.kind !== 'secret') {
      throw new DeskhandError('usage', `${approvalId} is an approval, not a request for a secret; answer it with \`deskhand runs approve\` or deny.`);
    }
    return this.requests.answer(approvalId, { value }, resume, by);
  }

  /** `deskhand secrets set NAME`: saves the secret and answers every open request for it. */
  async provideSecretByName(name: string, value: string, description: string | undefined, resume?: RunOptions): Promise<RunOutcome[]> {
    if (!this.vault) throw new DeskhandError('internal', 'This host has no vault (OS keyring).');
    const requests = this.pendingSecretRequests(name);
    await this.vault.set(name, value, description ?? requests[0]?.description);
    this.core.redactor.addSecret(name, value);
    const outcomes: RunOutcome[] = [];
    for (const r of requests) {
      const outcome = await this.provideSecret(r.approval.id, value, resume);
      if (outcome) outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * Decision for a call without running anything (`deskhand policy explain`): every inspector's verdict with its
   * reasons, the containment of every path (where it really lands, links followed, sensitive or not), and the taint rule.
   */
  async explain(
    toolName: string,
    args: unknown,
    policy: Policy,
    cwd: string,
    sandbox?: SandboxMode,
    opts: { tainted?: boolean; roots?: readonly string[]; conversationId?: string; peerCeiling?: PeerCeiling | null } = {},
  ): Promise<ExplainResult> {
    return explainCall(
      { registry: this.registry, store: this.store, dataDir: this.opts.dataDir, runLaterPaths: this.opts.runLaterPaths, grants: this.opts.grants, decisions: this.core.decisions, recordsRoots: this.core.recordsRoots },
      { tool: toolName, args, policy, cwd, ...(sandbox ? { sandbox } : {}), ...opts },
    );
  }

  /**
   * The decision for a call a person makes outside a run (an MCP App view's tools/call, host/app/mcp-apps.ts): `tool`
   * as given (a view may call its server's app-only tools, which the registry does not hold), judged in the
   * conversation as its next run would judge it (its policy, folders, rules, taint, holds).
   */
  async judgeCall(tool: ToolDefinition, args: unknown, conversationId: string): Promise<ExplainResult> {
    const conv = this.store.getConversation(conversationId);
    if (!conv) throw new DeskhandError('not_found', `No conversation ${conversationId}.`);
    const registry: Pick<ToolRegistry, 'resolve' | 'parseArgs' | 'secretHolders' | 'lookup'> = {
      resolve: (name) => (name === tool.name ? tool : this.registry.resolve(name)),
      parseArgs: ((t: ToolDefinition, a: unknown) => (t === tool ? a : this.registry.parseArgs(t, a))) as ToolRegistry['parseArgs'],
      secretHolders: () => this.registry.secretHolders(),
      lookup: (name) => this.registry.lookup(name),
    };
    return explainCall(
      { registry, store: this.store, dataDir: this.opts.dataDir, runLaterPaths: this.opts.runLaterPaths, grants: this.opts.grants, decisions: this.core.decisions, recordsRoots: this.core.recordsRoots },
      { tool: tool.name, args, conversationId },
    );
  }

  /** After a crash: runs owned by dead processes are closed (or parked when they wait for a person). */
  recoverInterrupted(): string[] {
    return this.loop.recoverInterrupted();
  }
}

/** A failed connection test in plain words: what went wrong and what to check. */
function connectionProblem(err: unknown, cfg: ProviderConfig): string {
  const { error } = describeProviderError(err, cfg);
  const status = typeof error.details?.status === 'number' ? error.details.status : null;
  if (error.code === 'provider_auth') return `The model API refused the key (${status ?? 401}). Check the key.`;
  if (status === 404) return `The model API does not know the model "${cfg.model}" (404). Check the model name.`;
  const text = `${error.message} ${errorMessage(err)} ${String((err as { cause?: unknown })?.cause ?? '')}`;
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|fetch failed|Cannot connect to API/i.test(text)) {
    return `Nothing answered at ${cfg.baseURL ?? 'the provider\'s address'}. Check the address and that the server is running.`;
  }
  return error.message;
}

function titleFrom(prompt: string): string {
  return shortTitle(prompt);
}
