/**
 * The call pipeline: every tool call of a step goes lookup (in the turn's tool set) → parse once → effects →
 * inspectors → allow | ask | deny → (ask: an approval or input request, bound to the arguments' hash) → re-check
 * paths → execute with a signal and timeout → redact → cut → untrusted envelope → persist. Calls of a step run in
 * parallel, at most 10 at once, each persisted as it finishes.
 */
import { noteRule } from './call-notes';
import { ToolError, errorMessage } from '../../../shared/errors';
import type { ConversationRow, RunRow, ToolCallRow } from '../../services/store/store';
import { callEffects, decide, type PolicyDecision } from '../decision/approval-engine';
import { heldSecretNames } from '../decision/call-security';
import { enabledFamiliesOf } from '../prompt/tool-families';
import { PersistentConversationState } from '../context/conversation-state';
import type { RunOptions, RuntimeCore } from '../core';
import type { TurnToolSet } from '../registry';
import { decisionBase } from '../decision/decision-input';
import { deniedText, fireHooks, toolTarget } from './hook-calls';
import { CallRunner, isQuiet, mayChangeFiles, safeJson, swallow, type Prepared, type Runnable } from './call-execution';
import { openRequest, proposalOf, requestData, type CallInput, type DecisionFields, type Proposal } from './open-request';

const MAX_PARALLEL_TOOLS = 10;

export class CallPipeline {
  private readonly prepared = new Map<string, Prepared>();
  /** Per live run: the tool set its current step was offered (calls of that step resolve against it). */
  private readonly offered = new Map<string, { step: number; set: TurnToolSet }>();
  /** Per live run: the secrets its successful calls hold (read from the store once, then kept as calls succeed). */
  private readonly heldByRun = new Map<string, Set<string>>();
  private readonly runner: CallRunner;

  constructor(private readonly core: RuntimeCore) {
    this.runner = new CallRunner(core, { prepared: this.prepared, heldByRun: this.heldByRun });
  }

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
        this.runner.complete(run, row, `${what}${reason} Do not retry it unchanged; adjust the plan or ask them.`, 'denied', options);
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
        this.runner.complete(run, row, `${errorMessage(err)}${loaded}`, 'error', options);
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
        // A project hook's words reach the model inside the untrusted envelope (hook-calls.ts), and taint the run.
        const denied = deniedText(decision, hook);
        if (denied.untrusted) {
          store.updateRun(run.id, { tainted: 1 });
          tainted = true;
        }
        this.runner.complete(run, row, denied.text, 'denied', options, 0, decided);
        continue;
      }
      if (decision.ruleIds.length) {
        store.rules.noteMatch(decision.ruleIds, Date.now());
        if (decision.decision === 'allow') noteRule(store, row.id, rules, decision.ruleIds);
      }
      let input: CallInput | undefined;
      try {
        input = tool.input?.(args as never, { conversationId: run.conversation_id });
      } catch (err) {
        // The request cannot be made as asked (propose_goal while a goal is open, without replace): the model hears why.
        this.runner.complete(run, row, errorMessage(err), 'error', options, 0, decided);
        continue;
      }
      if (decision.decision === 'allow' && !input) {
        toRun.push({ row, ...prepared, decided });
        continue;
      }
      let proposal: Proposal;
      try {
        proposal = await proposalOf(this.core, tool, args, input, () => this.runner.toolContext(run, row, state, options, new AbortController().signal));
      } catch (err) {
        this.runner.complete(run, row, errorMessage(err), 'error', options, 0, decided);
        continue;
      }
      const data = requestData(this.core, { tool, args, effects, decision, input }, conv, state, base);
      waiting.push(openRequest(this.core, run, row, tool, args, decision, proposal, input?.kind ?? 'approval', data, decided, options));
    }

    // Run what may run, at most 10 at a time. A result is persisted as soon as it exists, except a quiet read's
    // (read-only, allowed): it is shown at once and written with the step's end, in the commit below — a read lost
    // to a crash before it is recovered as interrupted, and the model reads again.
    const quietResults: (() => void)[] = [];
    let next = 0;
    const worker = async () => {
      while (next < toRun.length) {
        const item = toRun[next++]!;
        const became = await this.runner.execute(run, item, state, options, tainted, held, quietResults);
        // A call whose work is parked on a person (a foreground subagent's request): it stays open, and the run
        // parks (or waits) on those requests; it runs again when the run resumes.
        if (typeof became !== 'boolean') waiting.push(...became.requestIds.filter((id) => !waiting.includes(id)));
        else if (became) tainted = true;
      }
    };
    const watched = toRun.some(mayChangeFiles) ? await this.runner.watchFiles(run, state) : [];
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
}
