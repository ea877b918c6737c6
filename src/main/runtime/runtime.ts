/**
 * The runtime: conversations, runs and the agent loop. The AI SDK streams and surfaces tool calls; the runtime decides
 * and executes every call through one path (lookup → parse → risk → policy → approval → execute → redact → envelope →
 * persist). A run that needs an answer nobody can give parks, and resumes from the store in any process.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModel } from 'ai';
import type { RunEvent, RunStatus, Usage } from '../../shared/events';
import type { Policy, RiskTier } from '../../shared/tools';
import { DeskhandError, ToolError, errorMessage } from '../../shared/errors';
import type { ApprovalRow, ConversationRow, RunRow, Store, ToolCallRow } from '../services/store/store';
import { createModel, describeProviderError, type ProviderConfig } from '../services/providers/providers';
import { BackgroundTasks } from '../services/tasks/background-tasks';
import type { SandboxMode } from '../../shared/sandbox';
import { ToolRegistry } from './registry';
import { canonicalJson, decide, sha256, type PolicyDecision } from './approval-engine';
import { PersistentConversationState } from './conversation-state';
import { SecretRedactor, type StreamRedactor } from './redaction';
import { heldSecretNames, parsePathChecks, sanitizeEvent, sanitizeOutput, sanitizeText, untrustedReadSource } from './call-security';
import { recheckPaths, type PathCheck } from './path-guard';
import { checkPlaceholders, substituteSecrets } from './secret-args';
import type { Vault } from '../services/vault/vault';
import { UNTRUSTED_GUIDANCE, wrapUntrusted } from './untrusted';
import { streamModelStep, type StoredMessage } from './model-call';
import type { ToolContext, ToolDefinition } from './tool';

export interface RuntimeOptions {
  store: Store;
  dataDir: string;
  tools: readonly ToolDefinition[];
  /** The one redactor of every sink; by default credential-named environment variables and credential shapes. */
  redactor?: SecretRedactor;
  /** Saved secrets (ask_user_secret, use_saved_secret, `[redacted:NAME]` in secret arguments). */
  vault?: Vault;
  modelFactory?: (cfg: ProviderConfig) => LanguageModel;
  /** A model stream silent for this long is abandoned and retried (default 120 s). */
  idleTimeoutMs?: number;
  /** Retries of one model step after retryable failures (default 3). */
  maxRetries?: number;
  retryBaseMs?: number;
  maxSteps?: number;
  contextWindow?: number;
  /** Background tasks (commands, job batches, wait_for) of this process; created when not given. */
  tasks?: BackgroundTasks;
}

export interface RunOptions {
  provider: ProviderConfig;
  /** Can a person answer approvals while this run waits? If not, the run parks. */
  interactive: boolean;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
}

export interface RunOutcome {
  runId: string;
  conversationId: string;
  status: RunStatus;
  error?: string;
  approvalIds: string[];
}

export interface ExplainResult {
  tool: string;
  risk: RiskTier;
  decision: string;
  reasons: string[];
  containment: {
    access: 'read' | 'write';
    path: string;
    resolved: string;
    links: { link: string; target: string }[];
    insideWorkspace: boolean;
    workspaceRoot: string | null;
    sensitive: string | null;
    alwaysAsk: string | null;
    untrusted: boolean;
    summary: string;
  }[];
  taint: { tainted: boolean; egress: boolean; network: boolean; rule: string; taintsRun?: string };
  secrets?: string[];
}

export interface ApprovalAnswer {
  approved: boolean;
  always?: boolean;
  reason?: string;
}

const MAX_PARALLEL_TOOLS = 10;
const APPROVAL_POLL_MS = 500;
const DEFAULT_TOOL_TIMEOUT_MS = 3 * 60_000;
/** What the model receives of one tool result; tools page larger outputs themselves. */
const MAX_RESULT_CHARS = 200_000;

type DecisionFields = Pick<ToolCallRow, 'risk' | 'decision' | 'reasons' | 'paths'>;

type ToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'text' | 'error-text'; value: string } };

export class Runtime {
  readonly registry: ToolRegistry;
  readonly store: Store;
  readonly tasks: BackgroundTasks;
  private readonly redactor: SecretRedactor;
  readonly vault: Vault | null;
  /** Approvals of input requests being answered with a value right now (only those may be approved). */
  private readonly providing = new Set<string>();
  private readonly listeners = new Set<(e: RunEvent) => void>();
  /** Runs of this process waiting for a person: runId → wake-up. */
  private readonly waiters = new Map<string, () => void>();

  constructor(private readonly opts: RuntimeOptions) {
    this.store = opts.store;
    this.registry = new ToolRegistry(opts.tools);
    this.redactor = opts.redactor ?? new SecretRedactor();
    this.vault = opts.vault ?? null;
    this.tasks = opts.tasks ?? new BackgroundTasks({ store: opts.store, dataDir: opts.dataDir, redactor: this.redactor });
    // Stopping a run stops what it started in the background too.
    this.onEvent((e) => {
      if (e.type === 'run.finished' && e.status === 'aborted') void this.tasks.cancelForRun(e.runId).catch(() => undefined);
    });
  }

  /** Every event of every run in this process (UI hosts forward these). */
  onEvent(listener: (e: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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

  /**
   * Starts a turn nobody typed: a background task ended, a wait finished. The message is stored as a user-role
   * message (its text says it comes from Deskhand) and the turn runs like any other, parking on an approval nobody can
   * give. Refuses (conflict) while the conversation has a running or parked run, so the caller delivers it later.
   * `untrusted`: the message carries outside content (command output), so the run starts as having read it.
   */
  async wake(conversationId: string, message: string, options: RunOptions & { untrusted?: boolean }): Promise<RunOutcome> {
    let active = this.store.activeRunForConversation(conversationId);
    if (active?.status === 'running' && active.owner_pid !== process.pid && !isAlive(active.owner_pid)) {
      this.recoverInterrupted();
      active = this.store.activeRunForConversation(conversationId);
    }
    if (active) throw new DeskhandError('conflict', `Conversation ${conversationId} is busy (run ${active.id} is ${active.status}); the message waits.`);
    return this.sendMessage(conversationId, message, options);
  }

  /** Starts a run with a new user message. A parked run of the conversation is closed first (its approvals expire). */
  async sendMessage(conversationId: string, prompt: string, options: RunOptions & { policy?: Policy; untrusted?: boolean }): Promise<RunOutcome> {
    const conv = this.store.getConversation(conversationId);
    if (!conv) throw new DeskhandError('not_found', `No conversation ${conversationId}. List them with \`deskhand runs list\`.`);
    if (!prompt.trim()) throw new DeskhandError('usage', 'The message is empty.');
    let active = this.store.activeRunForConversation(conversationId);
    if (active?.status === 'running') {
      if (isAlive(active.owner_pid)) {
        throw new DeskhandError('conflict', `Conversation ${conversationId} already has a run in progress (${active.id}). Wait for it or stop it first.`);
      }
      this.recoverInterrupted();
      active = this.store.activeRunForConversation(conversationId);
    }
    if (active) this.supersede(active);
    const policy = options.policy ?? conv.policy;
    if (options.policy && options.policy !== conv.policy) this.store.updateConversation(conv.id, { policy: options.policy });
    if (conv.title === 'New conversation') this.store.updateConversation(conv.id, { title: titleFrom(prompt) });
    const run = this.store.transaction(() => {
      const r = this.store.createRun({
        id: `run_${randomUUID()}`,
        conversation_id: conversationId,
        policy,
        provider: options.provider.provider,
        model: options.provider.model,
        base_url: options.provider.baseURL ?? null,
      });
      this.store.addMessage(conversationId, r.id, 'user', this.redactor.redact(prompt));
      // Taint outlives the run: a conversation that read untrusted content starts every later run tainted.
      if (options.untrusted || conv.tainted === 1) this.store.updateRun(r.id, { tainted: 1 });
      if (options.untrusted) this.store.updateConversation(conv.id, { tainted: 1 });
      return r;
    });
    this.emit(options, { type: 'run.started', conversationId, runId: run.id, resumed: false });
    return this.drive(run.id, options);
  }

  /**
   * Decides one approval (from the CLI, the UI, or a notification). Approval ids are single use and bound to the
   * arguments' hash. When the run is parked and this was its last open approval, the run resumes here.
   */
  async decideApproval(approvalId: string, answer: ApprovalAnswer, resume?: RunOptions): Promise<RunOutcome | null> {
    const approval = this.store.getApproval(approvalId);
    if (!approval) throw new DeskhandError('not_found', `No approval ${approvalId}. Pending approvals: \`deskhand runs list\`.`);
    if (approval.status !== 'pending') throw new DeskhandError('conflict', `Approval ${approvalId} was already ${approval.status}; each approval can be answered once.`);
    if (approval.kind === 'secret' && answer.approved && !this.providing.has(approvalId)) {
      throw new DeskhandError(
        'usage',
        `Approval ${approvalId} asks the person to type a secret; it is answered by providing the value (in the app, at the terminal prompt, or with \`deskhand secrets set NAME\`), or denied.`,
      );
    }
    const call = this.store.getToolCall(approval.tool_call_id);
    if (!call || sha256(call.args) !== approval.args_sha256) {
      this.store.decideApproval(approvalId, 'denied', false, 'arguments changed after the approval was requested');
      throw new DeskhandError('conflict', `Approval ${approvalId} no longer matches its tool call; it was refused.`);
    }
    const reason = answer.reason?.trim() ? answer.reason.trim().slice(0, 2000) : null;
    const ok = this.store.transaction(() => {
      if (!this.store.decideApproval(approvalId, answer.approved ? 'approved' : 'denied', !!answer.always && answer.approved, reason)) return false;
      if (answer.approved && answer.always && approval.always_pattern) this.store.addRule(approval.tool, approval.always_pattern, `rule_${randomUUID()}`);
      this.store.updateToolCall(call.id, { status: answer.approved ? 'approved' : 'denied' });
      return true;
    });
    if (!ok) throw new DeskhandError('conflict', `Approval ${approvalId} was answered by someone else just now.`);
    const event: RunEvent = {
      type: 'approval.decided',
      runId: approval.run_id,
      approvalId,
      decision: answer.approved ? 'approved' : 'denied',
      always: !!answer.always && answer.approved,
      ...(reason ? { reason } : {}),
    };
    this.emit(resume, event);

    const waiter = this.waiters.get(approval.run_id);
    if (waiter) {
      waiter();
      return null;
    }
    const run = this.store.getRun(approval.run_id)!;
    if (run.status !== 'parked' || this.store.pendingApprovals(run.id).length > 0 || !resume) {
      return { runId: run.id, conversationId: run.conversation_id, status: run.status, approvalIds: this.store.pendingApprovals(run.id).map((a) => a.id) };
    }
    return this.resume(run.id, resume);
  }

  /** Resumes a parked (or recovered) run whose approvals are all answered. */
  async resume(runId: string, options: RunOptions): Promise<RunOutcome> {
    const run = this.store.getRun(runId);
    if (!run) throw new DeskhandError('not_found', `No run ${runId}.`);
    if (!this.store.claimRun(runId, ['parked'])) {
      throw new DeskhandError('conflict', `Run ${runId} is ${run.status}; only a parked run can be resumed.`);
    }
    this.emit(options, { type: 'run.started', conversationId: run.conversation_id, runId, resumed: true });
    return this.drive(runId, options);
  }

  /**
   * Stops a parked run (the person pressed Stop on it instead of answering): through the same path as stopping a
   * running one, so its approvals expire, every open call gets a "not run: the person stopped the run" result, the
   * run ends as aborted and what it started in the background is stopped. Only a parked run: a running one is
   * stopped through its AbortSignal by the process that drives it.
   */
  stopParked(runId: string, options?: Pick<RunOptions, 'onEvent'>): RunOutcome {
    const run = this.store.getRun(runId);
    if (!run) throw new DeskhandError('not_found', `No run ${runId}.`);
    // The claim is the check: a run another process resumed a moment ago is not stopped from here.
    if (!this.store.claimRun(runId, ['parked'])) {
      throw new DeskhandError('conflict', `Run ${runId} is ${this.store.getRun(runId)?.status ?? run.status}; only a parked run can be stopped this way.`);
    }
    return this.finish(this.store.getRun(runId)!, 'aborted', options, 'Stopped by the person.');
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
        model: (this.opts.modelFactory ?? createModel)(cfg),
        system: 'This is a connection test. Answer with one word.',
        messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
        tools: [],
        signal: controller.signal,
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
    const out: { approval: ApprovalRow; name: string; description: string }[] = [];
    for (const approval of this.store.pendingApprovals()) {
      if (approval.kind !== 'secret') continue;
      const call = this.store.getToolCall(approval.tool_call_id);
      let args: { name?: unknown; description?: unknown } = {};
      try {
        args = call ? (JSON.parse(call.args) as typeof args) : {};
      } catch {
        // a call whose arguments do not parse cannot be answered with a secret
      }
      if (typeof args.name !== 'string' || (name !== undefined && args.name !== name)) continue;
      out.push({ approval, name: args.name, description: typeof args.description === 'string' ? args.description : '' });
    }
    return out;
  }

  /**
   * Answers an input request with the secret the person typed: saved in the vault under the requested name, held by
   * the redactor from now on, and the request approved (the run continues, or resumes when it was parked).
   */
  async provideSecret(approvalId: string, value: string, resume?: RunOptions): Promise<RunOutcome | null> {
    const request = this.pendingSecretRequests().find((r) => r.approval.id === approvalId);
    if (!request) {
      const approval = this.store.getApproval(approvalId);
      if (!approval) throw new DeskhandError('not_found', `No request ${approvalId}. Pending requests: \`deskhand runs list\`.`);
      if (approval.kind !== 'secret') throw new DeskhandError('usage', `${approvalId} is an approval, not a request for a secret; answer it with \`deskhand runs approve\` or deny.`);
      throw new DeskhandError('conflict', `Request ${approvalId} was already ${approval.status}.`);
    }
    if (!this.vault) throw new DeskhandError('internal', 'This host has no vault (OS keyring), so a secret cannot be saved here.');
    await this.vault.set(request.name, value, request.description);
    this.redactor.addSecret(request.name, value);
    this.providing.add(approvalId);
    try {
      return await this.decideApproval(approvalId, { approved: true }, resume);
    } finally {
      this.providing.delete(approvalId);
    }
  }

  /** `deskhand secrets set NAME`: saves the secret and answers every open request for it. */
  async provideSecretByName(name: string, value: string, description: string | undefined, resume?: RunOptions): Promise<RunOutcome[]> {
    if (!this.vault) throw new DeskhandError('internal', 'This host has no vault (OS keyring).');
    const requests = this.pendingSecretRequests(name);
    await this.vault.set(name, value, description ?? requests[0]?.description);
    this.redactor.addSecret(name, value);
    const outcomes: RunOutcome[] = [];
    for (const r of requests) {
      const outcome = await this.provideSecret(r.approval.id, value, resume);
      if (outcome) outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * Decision for a call without running anything (`deskhand policy explain`): the verdict with its reasons, the
   * containment of every path (where it really lands, links followed, sensitive or not), and the taint rule.
   */
  async explain(
    toolName: string,
    args: unknown,
    policy: Policy,
    cwd: string,
    sandbox?: SandboxMode,
    opts: { tainted?: boolean; roots?: readonly string[] } = {},
  ): Promise<ExplainResult> {
    const tool = this.registry.resolve(toolName);
    const parsed = this.registry.parseArgs(tool, args);
    const tainted = !!opts.tainted;
    const d = await decide({
      tool,
      args: parsed,
      policy,
      tainted,
      ctx: { cwd, workspaceRoots: [cwd, ...(opts.roots ?? [])], dataDir: this.opts.dataDir, ...(sandbox ? { sandbox } : {}) },
      hasRule: (t, p) => this.store.hasRule(t, p),
    });
    return {
      tool: tool.name,
      risk: d.risk,
      decision: d.decision,
      reasons: d.reasons,
      containment: d.paths.map((p) => ({
        access: p.access,
        path: p.path,
        resolved: p.resolved,
        links: p.links,
        insideWorkspace: p.root !== null,
        workspaceRoot: p.root,
        sensitive: p.sensitive ? p.sensitive.what : null,
        alwaysAsk: p.alwaysAsk,
        untrusted: p.untrusted,
        summary: p.summary,
      })),
      taint: {
        tainted,
        egress: tool.egress,
        network: d.network,
        rule: tainted
          ? d.network || tool.egress
            ? 'the run is tainted: this call sends data out or contacts other machines, so it asks'
            : 'the run is tainted, but this call neither sends data out nor contacts other machines'
          : 'the run has not read untrusted content',
        ...(d.untrustedRead ? { taintsRun: 'the call reads outside the workspace; its output is untrusted and taints the run' } : {}),
      },
      ...(d.secrets.length ? { secrets: d.secrets } : {}),
    };
  }

  /**
   * After a crash (SIGKILL, power loss): runs owned by dead processes are closed so every conversation is consistent
   * again. Calls that were running get an "interrupted" result; runs with open approvals stay resumable (parked).
   */
  recoverInterrupted(): string[] {
    const recovered: string[] = [];
    for (const run of this.store.runsWithStatus('running')) {
      if (run.owner_pid === process.pid || isAlive(run.owner_pid)) continue;
      this.store.transaction(() => {
        const calls = this.store.toolCallsForStep(run.id, run.step);
        for (const call of calls) {
          if (call.status === 'pending' || call.status === 'running' || call.status === 'approved') {
            this.store.updateToolCall(call.id, {
              status: 'interrupted',
              output: 'This call was interrupted when Deskhand stopped; it may or may not have completed. Check before retrying.',
              is_error: 1,
              finished_at: Date.now(),
            });
          }
        }
        const parked = this.store.pendingApprovals(run.id).length > 0;
        if (!parked) this.closeStepIfSettled(run);
        this.store.updateRun(run.id, {
          status: parked ? 'parked' : 'interrupted',
          error: parked ? null : 'Deskhand stopped while this run was in progress.',
          owner_pid: null,
        });
      });
      recovered.push(run.id);
    }
    return recovered;
  }

  // The loop

  private async drive(runId: string, options: RunOptions): Promise<RunOutcome> {
    const conv = () => this.store.getConversation(this.store.getRun(runId)!.conversation_id)!;
    const maxSteps = this.opts.maxSteps ?? 50;
    await this.loadSecrets(options);
    try {
      for (;;) {
        const run = this.store.getRun(runId)!;
        if (options.signal?.aborted) return this.finish(run, 'aborted', options, 'Stopped by the person.');

        // 1. Settle the current step's tool calls (approved ones run now, denied ones get the reason).
        const open = this.store.toolCallsForStep(runId, run.step).filter((c) => c.status !== 'done' && c.status !== 'error' && c.status !== 'interrupted');
        if (open.length > 0) {
          const pending = await this.settleStep(run, conv(), open, options);
          if (pending.length > 0) {
            if (options.interactive && !options.signal?.aborted) {
              await this.waitForAnswers(run.id, pending, options.signal);
              continue;
            }
            if (options.signal?.aborted) continue;
            this.store.updateRun(run.id, { status: 'parked', owner_pid: null });
            this.emit(options, { type: 'run.parked', runId, conversationId: run.conversation_id, approvalIds: pending });
            return { runId, conversationId: run.conversation_id, status: 'parked', approvalIds: pending };
          }
          continue;
        }
        this.closeStepIfSettled(run);

        // 2. Ask the model for the next step.
        if (run.step >= maxSteps) return this.finish(run, 'failed', options, `Stopped after ${maxSteps} steps (the step limit). Send a message to continue.`);
        const step = await this.modelStep(run, conv(), options);
        if (step === 'aborted') return this.finish(this.store.getRun(runId)!, 'aborted', options, 'Stopped by the person.');
        if (step === 'done') return this.finish(this.store.getRun(runId)!, 'finished', options);
      }
    } catch (err) {
      const run = this.store.getRun(runId)!;
      const message = this.redactor.redact(DeskhandError.isInstance(err) ? err.message : `Internal error: ${errorMessage(err)}`);
      if (options.signal?.aborted) return this.finish(run, 'aborted', options, 'Stopped by the person.');
      return this.finish(run, 'failed', options, message);
    }
  }

  /**
   * Teaches the redactor every value it must hide in this run: the provider key, and the vault's saved secrets (read
   * only when the catalog lists some, so a host without saved secrets never touches the keyring). A keyring that is
   * not reachable holds nothing this run can use either, so the run goes on.
   */
  private async loadSecrets(options: RunOptions): Promise<void> {
    if (options.provider.apiKey) this.redactor.addSecret(`${options.provider.provider}-api-key`, options.provider.apiKey);
    if (!this.vault) return;
    for (const name of this.vault.catalogNames()) {
      try {
        this.redactor.addSecret(name, await this.vault.get(name));
      } catch {
        return;
      }
    }
  }

  /** One model call: stream text and tool calls, persist the assistant message and the calls in one transaction. */
  private async modelStep(run: RunRow, conv: ConversationRow, options: RunOptions): Promise<'tools' | 'done' | 'aborted'> {
    const messages = this.history(conv.id);
    const maxRetries = this.opts.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const stepController = new AbortController();
      const onAbort = () => stepController.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      let timedOut = false;
      let idle: NodeJS.Timeout | undefined;
      const idleMs = this.opts.idleTimeoutMs ?? 120_000;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          timedOut = true;
          stepController.abort();
        }, idleMs);
      };
      let text = '';
      const calls: { toolCallId: string; toolName: string; input: unknown; invalidError?: string }[] = [];
      let usage: Usage = { inputTokens: 0, outputTokens: 0 };
      // Deltas are held back just enough that a secret split across deltas is redacted whole.
      const deltas = this.redactor.stream((_key, delta) => this.emit(options, { type: 'text', runId: run.id, delta }));
      try {
        arm();
        const stream = streamModelStep({
          model: (this.opts.modelFactory ?? createModel)(options.provider),
          system: this.systemPrompt(conv),
          messages,
          tools: this.registry.modelTools(),
          signal: stepController.signal,
        });
        for await (const part of stream) {
          arm();
          if (part.type === 'text') {
            text += part.delta;
            deltas.push('text', sanitizeText(part.delta, NO_REDACTION));
          } else if (part.type === 'tool-call') {
            calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, ...this.parseToolInput(part.input) });
          } else {
            usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens };
          }
        }
        if (stepController.signal.aborted) throw new DeskhandError('aborted', 'aborted');
        deltas.flush();
      } catch (err) {
        deltas.flush();
        clearTimeout(idle);
        options.signal?.removeEventListener('abort', onAbort);
        if (options.signal?.aborted) return 'aborted';
        const failure = timedOut
          ? { error: new DeskhandError('provider_timeout', `The model API sent nothing for ${Math.round(idleMs / 1000)} s.`), retryable: true, retryAfterMs: null }
          : describeProviderError(err, options.provider);
        if (!failure.retryable || attempt >= maxRetries) throw failure.error;
        const delay = Math.min(failure.retryAfterMs ?? (this.opts.retryBaseMs ?? 1000) * 2 ** attempt, 60_000);
        this.emit(options, { type: 'run.retry', runId: run.id, attempt: attempt + 1, delayMs: delay, reason: failure.error.message });
        await sleep(delay, options.signal);
        if (options.signal?.aborted) return 'aborted';
        continue;
      }
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', onAbort);

      const step = run.step + 1;
      const assistantParts: unknown[] = [];
      if (text) assistantParts.push({ type: 'text', text: sanitizeText(text, this.redactor) });
      const rows: Omit<ToolCallRow, 'created_at' | 'finished_at' | 'output' | 'is_error' | 'paths'>[] = calls.map((c, position) => {
        const input = c.input && typeof c.input === 'object' && !Array.isArray(c.input) ? c.input : {};
        assistantParts.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input });
        const args = c.invalidError !== undefined ? JSON.stringify({ __invalid: c.invalidError, raw: c.input }) : canonicalJson(input);
        return {
          id: `tc_${randomUUID()}`,
          run_id: run.id,
          step,
          position,
          call_id: c.toolCallId,
          tool: c.toolName,
          args,
          args_sha256: sha256(args),
          risk: null,
          decision: null,
          reasons: '[]',
          status: 'pending',
        };
      });
      this.store.transaction(() => {
        if (assistantParts.length) this.store.addMessage(conv.id, run.id, 'assistant', assistantParts);
        for (const row of rows) this.store.insertToolCall(row);
        this.store.updateRun(run.id, {
          step,
          input_tokens: run.input_tokens + usage.inputTokens,
          output_tokens: run.output_tokens + usage.outputTokens,
        });
      });
      this.emit(options, { type: 'usage', runId: run.id, step, usage });
      return rows.length ? 'tools' : 'done';
    }
  }

  /**
   * Decides and runs the open calls of a step. Returns the ids of approvals still waiting for a person.
   * Calls run in parallel (at most 10 at once); each is persisted as it finishes.
   */
  private async settleStep(run: RunRow, conv: ConversationRow, open: ToolCallRow[], options: RunOptions): Promise<string[]> {
    const state = new PersistentConversationState(conv.folder, conv.state);
    const toRun: { row: ToolCallRow; tool: ToolDefinition; args: unknown; decided?: DecisionFields }[] = [];
    const waiting: string[] = [];
    let tainted = run.tainted === 1 || conv.tainted === 1;
    const held = heldSecretNames(this.store.toolCallsForRun(run.id), (name) => this.toolNamed(name));

    for (const row of open) {
      if (row.status === 'denied') {
        const approval = this.approvalFor(row);
        const reason = approval?.reason ? ` Their reason: ${approval.reason}` : '';
        this.complete(run, row, `The person denied this call.${reason} Do not retry it unchanged; adjust the plan or ask them.`, 'denied', options);
        continue;
      }
      if (row.status === 'awaiting_approval') {
        const approval = this.approvalFor(row);
        if (approval?.status === 'pending') waiting.push(approval.id);
        continue;
      }
      let tool: ToolDefinition;
      let args: unknown;
      try {
        const raw = JSON.parse(row.args) as Record<string, unknown>;
        if (Object.prototype.hasOwnProperty.call(raw, '__invalid')) {
          throw new ToolError(`The arguments of ${row.tool} were not valid JSON (${String(raw.__invalid)}). Send the call again with a JSON object.`);
        }
        tool = this.registry.resolve(row.tool);
        args = this.registry.parseArgs(tool, raw);
      } catch (err) {
        // Shown like any other call (a card with its error), so a person sees what the model tried.
        if (row.status === 'pending') this.emit(options, { type: 'tool.call', runId: run.id, callId: row.call_id, tool: row.tool, args: safeJson(row.args) });
        this.complete(run, row, errorMessage(err), 'error', options);
        continue;
      }
      if (row.status === 'approved') {
        toRun.push({ row, tool, args });
        continue;
      }
      this.emit(options, { type: 'tool.call', runId: run.id, callId: row.call_id, tool: row.tool, args });

      const decision: PolicyDecision = await decide({
        tool,
        args,
        policy: run.policy,
        tainted,
        ctx: { cwd: state.cwd, workspaceRoots: state.workspaceRoots, dataDir: this.opts.dataDir, sandbox: conv.sandbox },
        hasRule: (t, p) => this.store.hasRule(t, p),
        heldSecrets: held,
      });
      this.emit(options, { type: 'tool.decision', runId: run.id, callId: row.call_id, tool: tool.name, risk: decision.risk, decision: decision.decision, reasons: decision.reasons });

      // Written together with the call's next state change: one commit per call on the hot path.
      const decided: DecisionFields = {
        risk: decision.risk,
        decision: decision.decision,
        reasons: JSON.stringify(decision.reasons),
        paths: decision.paths.length ? JSON.stringify(decision.paths) : null,
      };
      let proposal = { description: `${tool.name} ${summarizeArgs(args)}`, preview: null as string | null };
      // A tool that needs a person to type something opens an input request, answered like an approval.
      const input = tool.inputRequest?.(args);
      if (input) proposal = { description: `Type the secret ${input.name}${input.description ? ` (${input.description})` : ''}; it is saved in the OS keyring and the agent only sees [redacted:${input.name}]`, preview: input.prompt };
      if (tool.pair) {
        try {
          proposal = await tool.pair.propose(args, this.toolContext(run, row, state, options, new AbortController().signal));
        } catch (err) {
          this.complete(run, row, errorMessage(err), 'error', options, 0, decided);
          continue;
        }
      }

      if (decision.decision === 'deny') {
        this.complete(run, row, `Denied by policy: ${decision.reasons.join('; ')}`, 'denied', options, 0, decided);
      } else if (decision.decision === 'allow' && !input) {
        toRun.push({ row, tool, args, decided });
      } else {
        const approval = this.store.transaction(() => {
          this.store.updateToolCall(row.id, { ...decided, status: 'awaiting_approval' });
          return this.store.insertApproval({
            id: `apr_${randomUUID()}`,
            run_id: run.id,
            tool_call_id: row.id,
            tool: tool.name,
            args_sha256: row.args_sha256,
            risk: decision.risk,
            reasons: JSON.stringify(decision.reasons),
            description: this.redactor.redact(proposal.description),
            preview: proposal.preview === null ? null : this.redactor.redact(proposal.preview),
            always_pattern: input ? null : decision.rulePattern,
            ...(input ? { kind: 'secret' as const } : {}),
          });
        });
        waiting.push(approval.id);
        this.emit(options, {
          type: 'approval.requested',
          runId: run.id,
          conversationId: run.conversation_id,
          approvalId: approval.id,
          callId: row.call_id,
          tool: tool.name,
          args,
          risk: decision.risk,
          reasons: decision.reasons,
          description: approval.description,
          preview: approval.preview,
          alwaysPattern: approval.always_pattern,
        });
      }
    }

    // Run what may run, at most 10 at a time; each result is persisted as soon as it exists.
    let next = 0;
    const worker = async () => {
      while (next < toRun.length) {
        const item = toRun[next++]!;
        const became = await this.execute(run, item.row, item.tool, item.args, state, options, tainted, item.decided);
        if (became) tainted = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_TOOLS, toRun.length) }, worker));
    this.store.updateConversation(conv.id, { state: state.serialize() });
    return waiting;
  }

  /** Runs one call's acting half. Returns true when its output tainted the run. */
  private async execute(
    run: RunRow,
    row: ToolCallRow,
    tool: ToolDefinition,
    args: unknown,
    state: PersistentConversationState,
    options: RunOptions,
    tainted: boolean,
    decided?: DecisionFields,
  ): Promise<boolean> {
    // No "running" write: recovery treats a call without a result as interrupted either way.
    const started = Date.now();
    const controller = new AbortController();
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const timer = setTimeout(() => controller.abort(new DeskhandError('aborted', `timed out after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => controller.abort(new DeskhandError('aborted', 'stopped by the person'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const checks = parsePathChecks(decided ? decided.paths : row.paths);
    // Live output is held back just enough that a secret split across chunks, or across stdout and stderr, is
    // redacted whole; what is held is released when the call ends.
    const live = this.redactor.stream((stream, chunk) =>
      this.emit(options, { type: 'tool.output', runId: run.id, callId: row.call_id, stream: stream === 'stderr' ? 'stderr' : 'stdout', chunk: sanitizeOutput(chunk, NO_REDACTION) }),
    );
    try {
      // The paths it was decided on must still lead where they led (no swapping a link in between).
      const moved = recheckPaths(checks, { cwd: state.cwd, workspaceRoots: state.workspaceRoots, dataDir: this.opts.dataDir });
      if (moved) throw new ToolError(moved, 'conflict');
      const runArgs = await this.withSecrets(run, tool, args);
      const result = await tool.execute(runArgs, this.toolContext(run, row, state, options, controller.signal, live, checks));
      live.flush();
      let output = sanitizeOutput(result.output, this.redactor);
      if (output.length > MAX_RESULT_CHARS) {
        output = `${output.slice(0, MAX_RESULT_CHARS)}\n[… ${output.length - MAX_RESULT_CHARS} more characters cut; narrow the request to see them]`;
      }
      const untrusted = result.untrustedSource ?? untrustedReadSource(checks);
      if (untrusted) output = wrapUntrusted(untrusted, output);
      const becameTainted = !!untrusted && !tainted;
      if (untrusted) this.taint(run);
      await this.holdSecret(tool, args);
      this.complete(run, row, output, 'done', options, Date.now() - started, decided);
      return becameTainted;
    } catch (err) {
      live.flush();
      const message = controller.signal.aborted
        ? `${tool.name} was stopped: ${errorMessage(controller.signal.reason)}.`
        : sanitizeOutput(errorMessage(err), this.redactor);
      this.complete(run, row, message, controller.signal.aborted ? 'interrupted' : 'error', options, Date.now() - started, decided);
      return false;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Marks the run and its conversation as having read untrusted content (taint survives into later runs). */
  private taint(run: RunRow): void {
    const current = this.store.getRun(run.id);
    if (current?.tainted !== 1) this.store.updateRun(run.id, { tainted: 1 });
    if (this.store.getConversation(run.conversation_id)?.tainted !== 1) this.store.updateConversation(run.conversation_id, { tainted: 1 });
  }

  /** The arguments a tool runs with: its declared secret arguments with placeholders replaced by the values. */
  private async withSecrets(run: RunRow, tool: ToolDefinition, args: unknown): Promise<unknown> {
    if (!tool.secretArgs?.length) return args;
    const verdict = checkPlaceholders(tool, args);
    if (verdict.refused) throw new ToolError(verdict.refused);
    if (verdict.used.length === 0) return args;
    const held = heldSecretNames(this.store.toolCallsForRun(run.id), (name) => this.toolNamed(name));
    const values = new Map<string, string>();
    for (const name of verdict.used) {
      if (!held.has(name)) throw new ToolError(`[redacted:${name}] is not a secret this run holds; load it with use_saved_secret first.`);
      const value = this.vault ? await this.vault.get(name) : null;
      if (value === null) throw new ToolError(`The saved secret ${name} is no longer in the keyring (or the keyring is locked). Ask the person to save it again.`);
      this.redactor.addSecret(name, value);
      values.set(name, value);
    }
    return substituteSecrets(args, tool, values);
  }

  /** After ask_user_secret / use_saved_secret: the redactor holds the value even when another process saved it. */
  private async holdSecret(tool: ToolDefinition, args: unknown): Promise<void> {
    const name = tool.holdsSecret?.(args as never);
    if (!name || !this.vault) return;
    try {
      this.redactor.addSecret(name, await this.vault.get(name));
    } catch {
      // the tool itself reported whether the secret is there
    }
  }

  private toolNamed(name: string): ToolDefinition | undefined {
    try {
      return this.registry.resolve(name);
    } catch {
      return undefined;
    }
  }

  private complete(
    run: RunRow,
    row: ToolCallRow,
    output: string,
    status: 'done' | 'error' | 'denied' | 'interrupted',
    options: RunOptions | undefined,
    durationMs = 0,
    decided?: DecisionFields,
  ): void {
    const stored = status === 'denied' ? 'done' : status;
    this.store.updateToolCall(row.id, { ...decided, status: stored, output, is_error: status === 'done' ? 0 : 1, finished_at: Date.now() });
    this.emit(options, { type: 'tool.result', runId: run.id, callId: row.call_id, tool: row.tool, status: status === 'done' ? 'ok' : status, output, durationMs });
  }

  /** Writes the tool-results message once every call of the run's current step has a result. */
  private closeStepIfSettled(run: RunRow): void {
    const calls = this.store.toolCallsForStep(run.id, run.step);
    if (calls.length === 0 || calls.some((c) => c.status !== 'done' && c.status !== 'error' && c.status !== 'interrupted')) return;
    const messages = this.store.listMessages(run.conversation_id);
    const last = messages[messages.length - 1];
    if (!last || last.role !== 'assistant' || last.run_id !== run.id) return;
    const parts: ToolResultPart[] = calls.map((c) => ({
      type: 'tool-result',
      toolCallId: c.call_id,
      toolName: c.tool,
      output: { type: c.is_error ? 'error-text' : 'text', value: c.output ?? '' },
    }));
    this.store.addMessage(run.conversation_id, run.id, 'tool', parts);
  }

  private supersede(run: RunRow): void {
    this.store.transaction(() => {
      for (const approval of this.store.pendingApprovals(run.id)) {
        this.store.decideApproval(approval.id, 'denied', false, 'The person sent a new message instead of answering.');
        this.store.updateToolCall(approval.tool_call_id, {
          status: 'done',
          output: 'Not run: the person sent a new message instead of answering this approval.',
          is_error: 1,
          finished_at: Date.now(),
        });
      }
      for (const call of this.store.toolCallsForStep(run.id, run.step)) {
        if (call.status !== 'done' && call.status !== 'error' && call.status !== 'interrupted') {
          this.store.updateToolCall(call.id, { status: 'interrupted', output: 'Not run: the conversation moved on.', is_error: 1, finished_at: Date.now() });
        }
      }
      this.closeStepIfSettled(run);
      this.store.updateRun(run.id, { status: 'aborted', error: 'Superseded by a new message.', owner_pid: null });
    });
  }

  private finish(run: RunRow, status: RunStatus, options: Pick<RunOptions, 'onEvent'> | undefined, error?: string): RunOutcome {
    if (status === 'aborted') {
      this.store.transaction(() => {
        for (const call of this.store.toolCallsForStep(run.id, run.step)) {
          if (call.status === 'awaiting_approval') {
            // Nobody answered it: it expires (it was neither approved nor denied).
            const approval = this.approvalFor(call);
            if (approval?.status === 'pending') this.store.expireApproval(approval.id, 'The run was stopped.');
          }
          if (call.status !== 'done' && call.status !== 'error' && call.status !== 'interrupted') {
            this.store.updateToolCall(call.id, { status: 'interrupted', output: 'Not run: the person stopped the run.', is_error: 1, finished_at: Date.now() });
          }
        }
        this.closeStepIfSettled(run);
      });
    }
    this.store.updateRun(run.id, { status, error: error ?? null, owner_pid: null });
    const final = this.store.getRun(run.id)!;
    this.emit(options, {
      type: 'run.finished',
      runId: run.id,
      conversationId: run.conversation_id,
      status,
      ...(error ? { error } : {}),
      usage: { inputTokens: final.input_tokens, outputTokens: final.output_tokens },
      steps: final.step,
    });
    return { runId: run.id, conversationId: run.conversation_id, status, ...(error ? { error } : {}), approvalIds: [] };
  }

  /**
   * Waits until one of the run's open approvals is answered: by this process (the waiter), or by another process on
   * the same store (`deskhand runs approve` while the app waits), which polling notices.
   */
  private waitForAnswers(runId: string, approvalIds: string[], signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const poll = setInterval(() => {
        if (approvalIds.some((id) => this.store.getApproval(id)?.status !== 'pending')) done();
      }, APPROVAL_POLL_MS);
      const done = () => {
        clearInterval(poll);
        this.waiters.delete(runId);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.set(runId, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private approvalFor(row: ToolCallRow): ApprovalRow | undefined {
    return this.store.latestApprovalForCall(row.id);
  }

  private toolContext(
    run: RunRow,
    row: ToolCallRow,
    state: PersistentConversationState,
    options: RunOptions,
    signal: AbortSignal,
    live?: StreamRedactor,
    checks: readonly PathCheck[] = [],
  ): ToolContext {
    const store = this.store;
    const redactor = this.redactor;
    return {
      runId: run.id,
      conversationId: run.conversation_id,
      callId: row.call_id,
      signal,
      state,
      dataDir: this.opts.dataDir,
      emitOutput: live
        ? (stream, chunk) => live.push(stream, chunk)
        : (stream, chunk) => this.emit(options, { type: 'tool.output', runId: run.id, callId: row.call_id, stream, chunk: sanitizeOutput(chunk, redactor) }),
      checkedPaths: new Map(checks.filter((c) => !c.raw && !c.error).map((c) => [c.path, c])),
      // Names and descriptions only: values never reach a tool except through its declared secret arguments.
      ...(this.vault ? { vault: { list: () => this.vault!.list(), has: (name: string) => this.vault!.has(name) } } : {}),
      redact: (text) => redactor.redact(text),
      tasks: this.tasks,
      get sandbox() {
        return store.getConversation(run.conversation_id)?.sandbox;
      },
      usage: {
        inputTokens: run.input_tokens,
        outputTokens: run.output_tokens,
        contextWindow: this.opts.contextWindow ?? 200_000,
        get messages() {
          return store.countMessages(run.conversation_id);
        },
      },
    };
  }

  /**
   * Tool input arrives as the model's JSON text. Redaction runs on the text (placeholders contain no JSON
   * metacharacters, so valid JSON stays valid); input that is not a JSON object is kept raw for an error result.
   */
  private parseToolInput(text: string): { input: unknown; invalidError?: string } {
    const redacted = this.redactor.redact(text.trim() === '' ? '{}' : text);
    let value: unknown;
    try {
      value = JSON.parse(redacted);
    } catch (err) {
      return { input: redacted, invalidError: errorMessage(err) };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { input: redacted, invalidError: 'the arguments must be a JSON object' };
    }
    return { input: value };
  }

  private history(conversationId: string): StoredMessage[] {
    return this.store.listMessages(conversationId).map((m) => ({ role: m.role, content: JSON.parse(m.content) as unknown }));
  }

  private systemPrompt(conv: ConversationRow): string {
    const state = new PersistentConversationState(conv.folder, conv.state);
    return [
      'You are Deskhand, an AI agent working on the person\'s computer through tools.',
      `Working folder: ${conv.folder}. Current directory: ${state.cwd}. Platform: ${process.platform}. Today: ${new Date().toISOString().slice(0, 10)}.`,
      'Every tool call passes an approval engine; a call may be denied with a reason you should respect. Prefer the dedicated file tools over shell commands.',
      'Read a file with read_file before writing or editing it.',
      UNTRUSTED_GUIDANCE,
    ].join('\n');
  }

  /** Every event leaves through here, redacted (streamed text and output went through their stream redactors). */
  private emit(options: Pick<RunOptions, 'onEvent'> | undefined, raw: RunEvent): void {
    const event = sanitizeEvent(raw, this.redactor);
    options?.onEvent?.(event);
    for (const l of this.listeners) l(event);
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

/** For text whose redaction happens later (in a stream redactor). */
const NO_REDACTION = { redact: (text: string) => text };

function isAlive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function titleFrom(prompt: string): string {
  const line = prompt.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'New conversation';
}

function summarizeArgs(args: unknown): string {
  const text = JSON.stringify(args);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
