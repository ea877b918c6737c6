/**
 * The call pipeline: every tool call of a step goes lookup (in the turn's tool set) → parse once → effects →
 * inspectors → allow | ask | deny → (ask: an approval or input request, bound to the arguments' hash) → re-check
 * paths → execute with a signal and timeout → redact → cut → untrusted envelope → persist. Calls of a step run in
 * parallel, at most 10 at once, each persisted as it finishes.
 */
import { WaitingForPeople } from '../../../shared/waiting';
import { chatModule } from '../../services/store/modules/chat';
import { noteRule } from './call-notes';
import { callSentence } from '../decision/call-sentence';
import { callReversibility } from '../decision/reversibility';
import { randomUUID } from 'node:crypto';
import { rootOfferPattern } from '../../../shared/always-allow';
import { fallbackTitle } from '../../../shared/tool-presentation';
import { DeskhandError, ToolError, errorMessage } from '../../../shared/errors';
import type { ConversationRow, RunRow, ToolCallRow } from '../../services/store/store';
import { callEffects, decide, type PolicyDecision } from '../decision/approval-engine';
import { heldSecretNames, parsePathChecks, sanitizeOutput, untrustedReadSource } from '../decision/call-security';
import { credentialFileValues } from '../decision/credential-files';
import { enabledFamiliesOf } from '../prompt/tool-families';
import { PersistentConversationState } from '../context/conversation-state';
import type { RunOptions, RuntimeCore } from '../core';
import { recheckPaths, type PathCheck } from '../decision/path-guard';
import type { StreamRedactor } from '../context/redaction';
import type { TurnToolSet } from '../registry';
import { checkPlaceholders, substituteSecrets } from '../decision/secret-args';
import type { Effects, InputSpec, ToolContext, ToolDefinition } from '../tool';
import { wrapUntrusted } from '../context/untrusted';
import { NO_REDACTION } from './model-step';
import { decisionBase } from '../decision/decision-input';
import { offloadResult } from './offload';
import { contextFigures } from '../context/compaction';
import { fireHooks, postToolText, toolTarget } from './hook-calls';
import { askDuringCall, type Pausable } from './call-requests';
import { ledgerSink } from './usage-meter';

const MAX_PARALLEL_TOOLS = 10;
const DEFAULT_TOOL_TIMEOUT_MS = 3 * 60_000;
/** What the model receives of one tool result; tools page larger outputs themselves. */
const MAX_RESULT_CHARS = 200_000;

type DecisionFields = Pick<ToolCallRow, 'risk' | 'decision' | 'reasons' | 'paths'>;

/** A call parsed and inspected once; kept while its run lives in this process (approval waits included). */
interface Prepared {
  runId: string;
  tool: ToolDefinition;
  args: unknown;
  effects: Effects;
}

interface Runnable extends Prepared {
  row: ToolCallRow;
  decided?: DecisionFields;
}

/**
 * A call that only reads local files, allowed without asking: its rows may be committed without an fsync
 * (Store.withoutFsync). Losing them to a power loss loses nothing that happened outside Deskhand, and reading again
 * is harmless. Anything else (writes, processes, network, URLs, apps, screens, secrets, a person's answer) is not.
 */
function isQuiet(item: Runnable): boolean {
  const e = item.effects;
  return (
    item.decided?.risk === 'read-only' &&
    item.decided.decision === 'allow' &&
    item.row.status === 'pending' &&
    !e.network &&
    !e.egress &&
    !e.processes &&
    !e.urls?.length &&
    !e.hosts?.length &&
    !e.apps?.length &&
    !e.screens?.length &&
    !e.secretArgs?.length &&
    !e.paths?.write?.length
  );
}

/** A call that may change files under the writable roots: it writes, starts processes, or comes from outside. */
function mayChangeFiles(item: Runnable): boolean {
  return !!item.effects.paths?.write?.length || !!item.effects.processes || (item.tool.kind ?? 'builtin') !== 'builtin';
}

/** The change ledger records what it can; a failure of its own never fails the call or the run. */
async function swallow(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch {
    // the step's changes go unrecorded; the next scan records them as found between steps
  }
}

export class CallPipeline {
  private readonly prepared = new Map<string, Prepared>();
  /** Per live run: the tool set its current step was offered (calls of that step resolve against it). */
  private readonly offered = new Map<string, { step: number; set: TurnToolSet }>();
  /** Per live run: the secrets its successful calls hold (read from the store once, then kept as calls succeed). */
  private readonly heldByRun = new Map<string, Set<string>>();

  constructor(private readonly core: RuntimeCore) {}

  /** Forgets the prepared calls of a run that ended or parked here. */
  release(runId: string): void {
    for (const [id, p] of this.prepared) if (p.runId === runId) this.prepared.delete(id);
    this.offered.delete(runId);
    this.heldByRun.delete(runId);
  }

  private heldSecrets(runId: string): Set<string> {
    let held = this.heldByRun.get(runId);
    if (!held) {
      held = heldSecretNames(this.core.store.succeededCallArgs(runId, this.core.registry.secretHolders()), (name) => this.core.registry.lookup(name));
      this.heldByRun.set(runId, held);
    }
    return held;
  }

  /** The turn's tool set for a conversation: deferred tools it revealed, the registry's filters. */
  toolSet(run: RunRow, state: PersistentConversationState, interactive?: boolean): TurnToolSet {
    return this.core.registry.toolSet({ conversationId: run.conversation_id, policy: run.policy, revealed: state.revealedTools, slots: state.slots, enabled: enabledFamiliesOf(state.slots), ...(interactive !== undefined ? { interactive } : {}) });
  }

  /**
   * The tool set offered to the model for the run's next step (`run.step + 1`): computed once, and the calls of that
   * step resolve against the very set the model saw (unless the registry changed since, or the run resumes in another
   * process or after a park: then it is computed again).
   */
  offer(run: RunRow, state: PersistentConversationState, interactive?: boolean): TurnToolSet {
    const set = this.toolSet(run, state, interactive);
    this.offered.set(run.id, { step: run.step + 1, set });
    return set;
  }

  private stepToolSet(run: RunRow, state: PersistentConversationState, interactive?: boolean): TurnToolSet {
    const kept = this.offered.get(run.id);
    if (kept && kept.step === run.step && kept.set.version === this.core.registry.version) return kept.set;
    return this.toolSet(run, state, interactive);
  }

  /**
   * Decides and runs the open calls of a step. Returns the ids of requests still waiting for a person. `closeStep`
   * (the loop's tool-results message, once every call has a result) is written in the commit that saves the
   * conversation's state.
   */
  async settleStep(run: RunRow, conv: ConversationRow, open: ToolCallRow[], options: RunOptions, closeStep: () => void = () => {}): Promise<string[]> {
    const { store } = this.core;
    const state = new PersistentConversationState(conv.folder, conv.state);
    const tools = this.stepToolSet(run, state, options.interactive);
    const toRun: Runnable[] = [];
    const waiting: string[] = [];
    // What the run's earlier calls hold (calls of this step that succeed count from the next step on, as before).
    const held: ReadonlySet<string> = new Set(this.heldSecrets(run.id));
    // The decision's input, read once per step with the function `policy explain` uses (decision-input.ts): the
    // rules, the grants, run-later files, and what holds the conversation (plan mode, a scope, inherited ceilings).
    const base = decisionBase(
      { store, decisions: this.core.decisions, grants: this.core.grants, dataDir: this.core.limits.dataDir, runLater: this.core.limits.runLater, recordsRoots: this.core.recordsRoots },
      {
        conversationId: conv.id,
        folder: conv.folder,
        cwd: state.cwd,
        workspaceRoots: state.workspaceRoots,
        readableRoots: state.readableRoots,
        slots: state.slots,
        sandbox: conv.sandbox,
        policy: run.policy,
        tainted: run.tainted === 1 || conv.tainted === 1,
        taintOnly: conv.tainted === 1 ? conv.taint_only : null,
        heldSecrets: held,
        interactive: !!options.interactive,
      },
    );
    let tainted = base.tainted;
    const rules = base.rules;
    const ectx = base.ctx;
    const inspectors = this.core.decisions.inspectors();

    for (const row of open) {
      if (row.status === 'denied') {
        const request = store.latestApprovalForCall(row.id);
        // A sentence of its own: "Their reason: not now." never runs into the next one.
        const said = request?.reason?.trim();
        const reason = said ? ` Their reason: ${/[.!?…]["'”’)\]]*$/.test(said) ? said : `${said}.`}` : '';
        const what = request && request.kind !== 'approval' ? 'The person declined this request.' : 'The person denied this call.';
        this.complete(run, row, `${what}${reason} Do not retry it unchanged; adjust the plan or ask them.`, 'denied', options);
        continue;
      }
      if (row.status === 'awaiting_approval') {
        const request = store.latestApprovalForCall(row.id);
        if (request?.status === 'pending') waiting.push(request.id);
        continue;
      }
      // A call of a deferred tool loads its family for the next step; the call itself runs if its arguments are valid.
      const loads = row.status === 'pending' ? tools.loadOnCall(row.tool) : [];
      if (loads.length) state.revealTools(loads);
      let prepared: Prepared;
      try {
        prepared = await this.prepareCall(row, tools, ectx, run.id);
      } catch (err) {
        // Shown like any other call (a card with its error), so a person sees what the model tried.
        if (row.status === 'pending') this.emitCall(run, row, safeJson(row.args), options);
        const loaded = loads.length ? `\n(${row.tool} was not loaded: its schema is in your next step.)` : '';
        this.complete(run, row, `${errorMessage(err)}${loaded}`, 'error', options);
        continue;
      }
      const { tool, args, effects } = prepared;
      if (row.status === 'approved') {
        toRun.push({ row, ...prepared });
        continue;
      }
      this.emitCall(run, row, args, options);
      // PreToolUse hooks (processes) run before the fold; their outcome is one inspector's verdict (hook-inspector.ts).
      const hook = await fireHooks(this.core, 'PreToolUse', run, conv, { tool_name: tool.name, tool_input: args, tool_use_id: row.call_id }, toolTarget(tool), options.signal);

      const decision: PolicyDecision = decide({ ...base, tainted, tool, args, effects, hook }, inspectors);
      this.core.emit(options, { type: 'tool.decision', runId: run.id, callId: row.call_id, tool: tool.name, risk: decision.risk, decision: decision.decision, reasons: decision.reasons });

      // Written together with the call's next state change: one commit per call on the hot path.
      const decided: DecisionFields = {
        risk: decision.risk,
        decision: decision.decision,
        reasons: JSON.stringify(decision.reasons),
        paths: decision.paths.length ? JSON.stringify(decision.paths) : null,
      };
      if (decision.decision === 'deny') {
        this.complete(run, row, `Denied by policy: ${decision.reasons.join('; ')}`, 'denied', options, 0, decided);
        continue;
      }
      if (decision.ruleIds.length) {
        store.rules.noteMatch(decision.ruleIds, Date.now());
        if (decision.decision === 'allow') noteRule(store, row.id, rules, decision.ruleIds);
      }
      let input: ReturnType<NonNullable<typeof tool.input>> | undefined;
      try {
        input = tool.input?.(args as never, { conversationId: run.conversation_id });
      } catch (err) {
        // The request cannot be made as asked (propose_goal while a goal is open, without replace): the model hears why.
        this.complete(run, row, errorMessage(err), 'error', options, 0, decided);
        continue;
      }
      if (decision.decision === 'allow' && !input) {
        toRun.push({ row, ...prepared, decided });
        continue;
      }
      let proposal = { description: plainDescription(tool, this.core.registry.summarize(tool.name, args), args), preview: null as string | null };
      if (input) proposal = { description: input.description, preview: input.prompt };
      else if (!tool.pair && tool.presentation?.ask) {
        try {
          proposal = { description: tool.presentation.ask(args as never), preview: null };
        } catch {
          // arguments it cannot put in words (a `when` that does not parse): the plain summary stays
        }
      } else if (tool.pair) {
        try {
          proposal = await tool.pair.propose(args as never, this.toolContext(run, row, state, options, new AbortController().signal));
        } catch (err) {
          this.complete(run, row, errorMessage(err), 'error', options, 0, decided);
          continue;
        }
      }
      // An approval's data: whether the call can be taken back from the change list (runtime/decision/reversibility.ts).
      // And what it will do, in one sentence from its declared effects (call-sentence.ts).
      const doing = input ? null : callSentence({ tool, summary: this.core.registry.summarize(tool.name, args), effects, paths: decision.paths, network: decision.network, egress: decision.egress, risk: decision.risk, secrets: decision.secrets, sandbox: conv.sandbox, workspaceRoots: state.workspaceRoots });
      const data = input ? input.data : { reversibility: callReversibility({ tool, effects, paths: decision.paths, network: decision.network, egress: decision.egress, sandbox: conv.sandbox, workspaceRoots: state.workspaceRoots, ledger: this.core.fileWatchers.size > 0, recorded: base.recorded }), ...(doing ? { doing } : {}) };
      waiting.push(this.openRequest(run, row, tool, args, decision, proposal, input?.kind ?? 'approval', data, decided, options));
    }

    // Run what may run, at most 10 at a time. A result is persisted as soon as it exists, except a quiet read's
    // (read-only, allowed): it is shown at once and written with the step's end, in the commit below — a read lost
    // to a crash before it is recovered as interrupted, and the model reads again.
    const quietResults: (() => void)[] = [];
    let next = 0;
    const worker = async () => {
      while (next < toRun.length) {
        const item = toRun[next++]!;
        const became = await this.execute(run, item, state, options, tainted, held, quietResults);
        // A call whose work is parked on a person (a foreground subagent's request): it stays open, and the run
        // parks (or waits) on those requests; it runs again when the run resumes.
        if (typeof became !== 'boolean') waiting.push(...became.requestIds.filter((id) => !waiting.includes(id)));
        else if (became) tainted = true;
      }
    };
    const watched = toRun.some(mayChangeFiles) ? await this.watchFiles(run, state) : [];
    try {
      await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_TOOLS, toRun.length) }, worker));
    } finally {
      for (const after of watched) await swallow(after);
    }
    const serialized = state.serialize();
    const save = () =>
      store.transaction(() => {
        for (const write of quietResults) write();
        if (serialized !== conv.state) store.updateConversation(conv.id, { state: serialized });
        if (waiting.length === 0) closeStep();
      });
    if (toRun.length > 0 && toRun.every(isQuiet)) store.withoutFsync(save);
    else save();
    return waiting;
  }

  /** Starts the file watchers (the change ledger) for a step's calls; returns what ends them. */
  private async watchFiles(run: RunRow, state: PersistentConversationState): Promise<(() => Promise<void>)[]> {
    const out: (() => Promise<void>)[] = [];
    for (const watch of this.core.fileWatchers) {
      await swallow(async () => {
        const after = await watch({ conversationId: run.conversation_id, runId: run.id, step: run.step, roots: state.workspaceRoots });
        if (after) out.push(after);
      });
    }
    return out;
  }

  /** Looks the call up in the turn's tool set, parses its arguments and asks the tool for its effects: once. */
  private async prepareCall(row: ToolCallRow, tools: TurnToolSet, ectx: Parameters<typeof callEffects>[2], runId: string): Promise<Prepared> {
    const cached = this.prepared.get(row.id);
    if (cached) return cached;
    const raw = JSON.parse(row.args) as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(raw, '__refused')) throw new ToolError(String(raw.__refused));
    if (Object.prototype.hasOwnProperty.call(raw, '__invalid')) {
      throw new ToolError(`The arguments of ${row.tool} were not valid JSON (${String(raw.__invalid)}). Send the call again with a JSON object.`);
    }
    const tool = tools.resolve(row.tool);
    const args = this.core.registry.parseArgs(tool, raw);
    const prepared: Prepared = { runId, tool, args, effects: await callEffects(tool, args, ectx) };
    this.prepared.set(row.id, prepared);
    return prepared;
  }

  private emitCall(run: RunRow, row: ToolCallRow, args: unknown, options: RunOptions): void {
    const summary = this.core.registry.summarize(row.tool, args);
    this.core.emit(options, { type: 'tool.call', runId: run.id, callId: row.call_id, tool: row.tool, args, ...(summary ? { summary } : {}) });
  }

  /** Opens an approval or an input request for the call; returns its id. */
  private openRequest(
    run: RunRow,
    row: ToolCallRow,
    tool: ToolDefinition,
    args: unknown,
    decision: PolicyDecision,
    proposal: { description: string; preview: string | null },
    kind: string,
    data: unknown,
    decided: DecisionFields,
    options: RunOptions,
  ): string {
    const { store, redactor } = this.core;
    const isApproval = kind === 'approval';
    const request = store.transaction(() => {
      store.updateToolCall(row.id, { ...decided, status: 'awaiting_approval' });
      return store.insertApproval({
        id: `apr_${randomUUID()}`,
        run_id: run.id,
        tool_call_id: row.id,
        tool: tool.name,
        args_sha256: row.args_sha256,
        risk: decision.risk,
        reasons: JSON.stringify(decision.reasons),
        description: redactor.redact(proposal.description),
        preview: proposal.preview === null ? null : redactor.redact(proposal.preview),
        // A rule pattern, or an offer to add a workspace root (`workspace-root:<folder>`): what "always" saves.
        always_pattern: isApproval ? (decision.rulePattern ?? (decision.rootOffer ? rootOfferPattern(decision.rootOffer) : null)) : null,
        kind,
        request: redactor.redact(JSON.stringify(data ?? null)),
      });
    });
    if (isApproval) {
      this.core.emit(options, {
        type: 'approval.requested',
        runId: run.id,
        conversationId: run.conversation_id,
        approvalId: request.id,
        callId: row.call_id,
        tool: tool.name,
        args,
        risk: decision.risk,
        reasons: decision.reasons,
        description: request.description,
        preview: request.preview,
        alwaysPattern: request.always_pattern,
      });
    } else {
      this.core.emit(options, {
        type: 'input.requested',
        runId: run.id,
        conversationId: run.conversation_id,
        requestId: request.id,
        kind,
        callId: row.call_id,
        tool: tool.name,
        description: request.description,
        prompt: request.preview ?? '',
        data: JSON.parse(request.request ?? 'null') as unknown,
        schema: this.core.inputKinds.schemaOf(kind),
      });
    }
    return request.id;
  }

  /** A request that belongs to a background task: bound to the call (for the UI) but no call or run waits for it. */
  private openBackgroundRequest(run: RunRow, row: ToolCallRow, spec: InputSpec & { taskId: string }, options: RunOptions): string {
    const { store, redactor, inputKinds } = this.core;
    if (!inputKinds.get(spec.kind)) throw new DeskhandError('internal', `No input kind "${spec.kind}".`);
    const request = store.insertApproval({
      id: `apr_${randomUUID()}`,
      run_id: run.id,
      tool_call_id: row.id,
      tool: row.tool,
      args_sha256: row.args_sha256,
      risk: 'read-only',
      reasons: JSON.stringify(['asked in the background']),
      description: redactor.redact(spec.description),
      preview: redactor.redact(spec.prompt),
      always_pattern: null,
      kind: spec.kind,
      request: redactor.redact(JSON.stringify(spec.data ?? null)),
      task_id: spec.taskId,
    });
    this.core.emit(options, {
      type: 'input.requested',
      runId: run.id,
      conversationId: run.conversation_id,
      requestId: request.id,
      kind: spec.kind,
      callId: row.call_id,
      tool: row.tool,
      description: request.description,
      prompt: request.preview ?? '',
      data: JSON.parse(request.request ?? 'null') as unknown,
      schema: inputKinds.schemaOf(spec.kind),
    });
    return request.id;
  }

  /** Runs one call's acting half. Returns true when its output tainted the run, or what it waits for (left open). */
  private async execute(
    run: RunRow,
    item: Runnable,
    state: PersistentConversationState,
    options: RunOptions,
    tainted: boolean,
    held: ReadonlySet<string>,
    quietResults: (() => void)[],
  ): Promise<boolean | WaitingForPeople> {
    const { row, tool, args, effects, decided } = item;
    const { redactor } = this.core;
    // No "running" write: recovery treats a call without a result as interrupted either way.
    const started = Date.now();
    // After a wait for a person, the card's duration counts from here, not from when the call was proposed.
    if (row.status === 'approved') this.core.store.module(chatModule).noteStarted(row.id, started);
    const controller = new AbortController();
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const timer = pausableTimer(() => controller.abort(new DeskhandError('aborted', `timed out after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => controller.abort(new DeskhandError('aborted', 'stopped by the person'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const checks = parsePathChecks(decided ? decided.paths : row.paths);
    // Live output is held back just enough that a secret split across chunks, or across stdout and stderr, is
    // redacted whole; what is held is released when the call ends.
    const live = redactor.stream((stream, chunk) =>
      this.core.emit(options, { type: 'tool.output', runId: run.id, callId: row.call_id, stream: stream === 'stderr' ? 'stderr' : 'stdout', chunk: sanitizeOutput(chunk, NO_REDACTION) }),
    );
    try {
      // A call that acts on the world (writes, runs processes, reaches the network, asks a person…) finds its own
      // record and everything before it on disk, even if earlier steps that only read skipped the fsync.
      if (!isQuiet(item)) this.core.store.sync();
      // The paths it was decided on must still lead where they led (no swapping a link in between).
      const runLater = this.core.limits.runLater?.() ?? [];
      const moved = recheckPaths(checks, { cwd: state.cwd, workspaceRoots: [...state.workspaceRoots, ...state.readableRoots], dataDir: this.core.limits.dataDir, ...(runLater.length ? { runLater } : {}) });
      if (moved) throw new ToolError(moved, 'conflict');
      // A file this call reaches whose content holds credentials teaches the redactor its values first, so output
      // that carries them bare (cut, rev, awk) is redacted exactly, live output included (credential-files.ts).
      for (const c of checks) if (c.exists && !c.error) for (const v of credentialFileValues(c.resolved)) redactor.addSecret(v.name, v.value);
      const runArgs = await this.withSecrets(tool, args, effects, held);
      const answer = this.answerOf(row);
      const decision = { byPerson: row.status === 'approved', reasons: parseReasons(decided ? decided.reasons : row.reasons) };
      const asked = new Map<string, number>();
      const ask: ToolContext['ask'] = (spec) => askDuringCall(this.core, run, row, spec, options, controller.signal, asked, timer);
      const result = await tool.execute(runArgs as never, this.toolContext(run, row, state, options, controller.signal, live, checks, answer, decision, ask));
      live.flush();
      let output = sanitizeOutput(result.output, redactor);
      const untrusted = result.untrustedSource ?? untrustedReadSource(checks);
      const { offloadChars, dataDir } = this.core.limits;
      // A large result is stored in full; the model reads a head, a tail and the id (retrieve_tool_result pages it).
      if (output.length > offloadChars && tool.offload !== false) {
        output = offloadResult(dataDir, run.conversation_id, tool.name, output, offloadChars, untrusted ?? null);
        // The notice names retrieve_tool_result: it is loaded from the next step on (it may be deferred).
        if (this.core.registry.lookup('retrieve_tool_result')) state.revealTools(['retrieve_tool_result']);
      }
      if (output.length > MAX_RESULT_CHARS) {
        output = `${output.slice(0, MAX_RESULT_CHARS)}\n[… ${output.length - MAX_RESULT_CHARS} more characters cut; narrow the request to see them]`;
      }
      if (untrusted) output = wrapUntrusted(untrusted, output);
      // PostToolUse hooks: what they say reaches the model after the output (a project hook's as untrusted text).
      const conv = this.core.hooks ? this.core.store.getConversation(run.conversation_id) : undefined;
      const post = conv ? postToolText(await fireHooks(this.core, 'PostToolUse', run, conv, { tool_name: tool.name, tool_input: args, tool_response: output, tool_use_id: row.call_id }, toolTarget(tool), options.signal)) : null;
      if (post) output = `${output}\n\n${sanitizeOutput(post.text, redactor)}`;
      const taintedBy = untrusted ?? post?.untrusted;
      const becameTainted = !!taintedBy && !tainted;
      if (taintedBy) this.taint(run, taintedBy);
      await this.holdSecret(tool, args);
      const holds = tool.holdsSecret?.(args as never);
      if (holds) this.heldByRun.get(run.id)?.add(holds);
      if (isQuiet(item)) {
        const result = this.result(run, row, output, 'done', options, Date.now() - started, decided);
        result.show();
        quietResults.push(result.write);
      } else this.complete(run, row, output, 'done', options, Date.now() - started, decided);
      return becameTainted;
    } catch (err) {
      live.flush();
      if (WaitingForPeople.isInstance(err) && !controller.signal.aborted && err.requestIds.length > 0) return err;
      const message = controller.signal.aborted ? `${tool.name} was stopped: ${errorMessage(controller.signal.reason)}.` : sanitizeOutput(errorMessage(err), redactor);
      this.complete(run, row, message, controller.signal.aborted ? 'interrupted' : 'error', options, Date.now() - started, decided);
      return false;
    } finally {
      timer.clear();
      options.signal?.removeEventListener('abort', onAbort);
      this.prepared.delete(row.id);
    }
  }

  /** The stored answer of the call's input request (what its kind accepted), if it had one. */
  private answerOf(row: ToolCallRow): unknown {
    if (row.status !== 'approved') return undefined;
    const request = this.core.store.latestApprovalForCall(row.id);
    if (!request || request.kind === 'approval' || request.answer === null) return undefined;
    return JSON.parse(request.answer) as unknown;
  }

  /**
   * Marks the run and its conversation as having read untrusted content (taint survives into later runs), and keeps
   * which one source it all came from while there is only one (`taint_only`; a second source, or a run tainted
   * before the conversation knew its source, makes it null for good).
   */
  private taint(run: RunRow, source: string): void {
    const { store } = this.core;
    const wasRun = store.getRun(run.id)?.tainted === 1;
    if (!wasRun) store.updateRun(run.id, { tainted: 1 });
    const conv = store.getConversation(run.conversation_id);
    if (!conv) return;
    if (conv.tainted !== 1) store.updateConversation(conv.id, { tainted: 1, taint_only: wasRun ? null : source });
    else if (conv.taint_only !== null && conv.taint_only !== source) store.updateConversation(conv.id, { taint_only: null });
  }

  /** The arguments a tool runs with: its declared secret arguments with placeholders replaced by the values. */
  private async withSecrets(tool: ToolDefinition, args: unknown, effects: Effects, held: ReadonlySet<string>): Promise<unknown> {
    if (!effects.secretArgs?.length) return args;
    const declared = { name: tool.name, secretArgs: effects.secretArgs, secretQuoting: effects.secretQuoting };
    const verdict = checkPlaceholders(declared, args);
    if (verdict.refused) throw new ToolError(verdict.refused);
    if (verdict.used.length === 0) return args;
    const values = new Map<string, string>();
    for (const name of verdict.used) {
      if (!held.has(name)) throw new ToolError(`[redacted:${name}] is not a secret this run holds; load it with use_saved_secret first.`);
      const value = this.core.vault ? await this.core.vault.get(name) : null;
      if (value === null) throw new ToolError(`The saved secret ${name} is no longer in the keyring (or the keyring is locked). Ask the person to save it again.`);
      this.core.redactor.addSecret(name, value);
      values.set(name, value);
    }
    return substituteSecrets(args, declared, values);
  }

  /** After ask_user_secret / use_saved_secret: the redactor holds the value even when another process saved it. */
  private async holdSecret(tool: ToolDefinition, args: unknown): Promise<void> {
    const name = tool.holdsSecret?.(args as never);
    if (!name || !this.core.vault) return;
    try {
      this.core.redactor.addSecret(name, await this.core.vault.get(name));
    } catch {
      // the tool itself reported whether the secret is there
    }
  }

  /** Records the call's result, then shows it. */
  complete(
    run: RunRow,
    row: ToolCallRow,
    output: string,
    status: 'done' | 'error' | 'denied' | 'interrupted',
    options: Pick<RunOptions, 'onEvent'> | undefined,
    durationMs = 0,
    decided?: DecisionFields,
  ): void {
    const result = this.result(run, row, output, status, options, durationMs, decided);
    result.write();
    result.show();
  }

  /** A call's result: the write that records it and its `tool.result` event, for the caller to order. */
  private result(
    run: RunRow,
    row: ToolCallRow,
    output: string,
    status: 'done' | 'error' | 'denied' | 'interrupted',
    options: Pick<RunOptions, 'onEvent'> | undefined,
    durationMs: number,
    decided?: DecisionFields,
  ): { write: () => void; show: () => void } {
    const stored = status === 'denied' ? 'done' : status;
    const finishedAt = Date.now();
    return {
      write: () => this.core.store.updateToolCall(row.id, { ...decided, status: stored, output, is_error: status === 'done' ? 0 : 1, finished_at: finishedAt }),
      show: () => {
        const summary = status === 'done' ? this.core.registry.summarize(row.tool, safeJson(row.args), output) : null;
        this.core.emit(options, { type: 'tool.result', runId: run.id, callId: row.call_id, tool: row.tool, status: status === 'done' ? 'ok' : status, output, durationMs, ...(summary ? { summary } : {}) });
      },
    };
  }

  private toolContext(
    run: RunRow,
    row: ToolCallRow,
    state: PersistentConversationState,
    options: RunOptions,
    signal: AbortSignal,
    live?: StreamRedactor,
    checks: readonly PathCheck[] = [],
    answer?: unknown,
    decision?: { byPerson: boolean; reasons: string[] },
    ask?: ToolContext['ask'],
  ): ToolContext {
    const { store, redactor, limits } = this.core;
    return {
      runId: run.id,
      conversationId: run.conversation_id,
      callId: row.call_id,
      signal,
      state,
      progress: live
        ? (stream, chunk) => live.push(stream, chunk)
        : (stream, chunk) => this.core.emit(options, { type: 'tool.output', runId: run.id, callId: row.call_id, stream, chunk: sanitizeOutput(chunk, redactor) }),
      redact: (text) => redactor.redact(text),
      unchangedByRedaction: redactor.unchangedFiles,
      publish: (update) => this.core.emit(options, { type: 'state.changed', conversationId: run.conversation_id, ...update }),
      meter: (cause, usage) => ledgerSink(store, { cause, conversationId: run.conversation_id, runId: run.id, toolCallId: row.id })(usage),
      checkedPaths: new Map(checks.filter((c) => !c.raw && !c.error).map((c) => [c.path, c])),
      writePaths: checks.filter((c) => c.access === 'write' && !c.error).map((c) => c.resolved),
      get sandbox() {
        return store.getConversation(run.conversation_id)?.sandbox;
      },
      get tainted() {
        return store.getRun(run.id)?.tainted === 1 || store.getConversation(run.conversation_id)?.tainted === 1;
      },
      ...(answer !== undefined ? { answer } : {}),
      ...(decision ? { approvedByPerson: decision.byPerson, decisionReasons: decision.reasons } : {}),
      openBackgroundRequest: (spec) => this.openBackgroundRequest(run, row, spec, options),
      ...(ask ? { ask } : {}),
      ...(this.core.editors.has(run.conversation_id) ? { editor: this.core.editors.get(run.conversation_id)! } : {}),
      usage: {
        inputTokens: run.input_tokens,
        outputTokens: run.output_tokens,
        contextWindow: limits.contextWindow,
        get messages() {
          return store.countMessages(run.conversation_id);
        },
        figures: () => contextFigures(this.core, run.conversation_id),
        instructions: () => this.core.instructions.report(state.cwd, state.workspaceRoots),
      },
    };
  }
}

/** A timeout that stops counting while the call waits for a person (call-requests.ts), and counts on after. */
function pausableTimer(fire: () => void, ms: number): Pausable & { clear(): void } {
  let left = ms;
  let started = Date.now();
  let handle: NodeJS.Timeout | null = setTimeout(fire, ms);
  let paused = 0;
  let cleared = false;
  return {
    pause() {
      if (cleared || paused++ > 0 || !handle) return;
      clearTimeout(handle);
      handle = null;
      left -= Date.now() - started;
    },
    resume() {
      if (cleared || paused === 0 || --paused > 0) return;
      started = Date.now();
      handle = setTimeout(fire, Math.max(0, left));
    },
    clear() {
      if (handle) clearTimeout(handle);
      handle = null;
      cleared = true;
    },
  };
}

function parseReasons(text: string | null | undefined): string[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The approval's line for a tool without its own proposal: its title and its own summary of the call ("Set a
 * reminder: tomorrow 9:00: call Ann"), never the raw JSON (the card shows the exact arguments beneath).
 */
export function plainDescription(tool: Pick<ToolDefinition, 'name' | 'presentation'>, summary: string | null, args: unknown): string {
  const title = tool.presentation?.title ?? fallbackTitle(tool.name);
  if (summary) return `${title}: ${summary}`;
  const n = args && typeof args === 'object' ? Object.keys(args).length : 0;
  return n ? `${title} (${n} argument${n === 1 ? '' : 's'}, shown below)` : title;
}
