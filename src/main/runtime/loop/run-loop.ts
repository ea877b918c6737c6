/**
 * The run loop: settle the step's calls, wait for (or park on) what a person must answer, ask the model for the next
 * step, finish. Also what keeps the store consistent when runs end other ways: superseded by a new message, stopped,
 * or left behind by a process that died.
 */
import type { RunStatus } from '../../../shared/events';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { RunRow } from '../../services/store/store';
import type { CallPipeline } from './call-pipeline';
import type { RunOptions, RunOutcome, RuntimeCore } from '../core';
import { PersistentConversationState } from '../context/conversation-state';
import { runModelStep } from './model-step';
import { mediaOutput, type MediaOutput } from './media-output';
import { MEDIA_TOOL } from '../../../shared/media-marker';
import { maybeCompact } from '../context/compaction';
import { syncCompactedTaint } from '../decision/taint-scope';
import { runOwnerAlive } from '../../services/processes/proc-info';
import { stopHooks } from './hook-calls';
import { budgetConversationOf, budgetReached, closeHolds, holdMessage, openHold, type BudgetReached } from './usage-budget';

type ToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'text' | 'error-text'; value: string } | MediaOutput };

const settled = (status: string) => status === 'done' || status === 'error' || status === 'interrupted';

export class RunLoop {
  constructor(
    private readonly core: RuntimeCore,
    private readonly calls: CallPipeline,
  ) {}

  async drive(runId: string, given: RunOptions): Promise<RunOutcome> {
    const { store } = this.core;
    // The run's own copy: a switch to the fallback model (model-step.ts) lasts for this run, not the caller's next.
    const options: RunOptions = { ...given };
    // A run never changes conversation; its row is read fresh where it may have changed (state, taint).
    let conversationId: string | undefined;
    const conv = () => store.getConversation((conversationId ??= store.getRun(runId)!.conversation_id))!;
    await this.loadSecrets(options);
    this.core.live.set(runId, options);
    // The step this loop settled whole (every call has its result, and the results message was written with them).
    let settledStep = -1;
    // Set when the model repeated one call until the repeat guard's bound (model-step.ts): the run ends once that
    // step's calls have their (refusal) results.
    let stopAfterSettling: string | null = null;
    // How often this drive's Stop hooks sent the model back to work (hook-calls.ts bounds it).
    let stopBlocks = 0;
    try {
      for (;;) {
        const run = store.getRun(runId)!;
        if (options.signal?.aborted) return this.finish(run, 'aborted', options, 'Stopped by the person.');
        let c = conv();

        // 1. Settle the current step's tool calls (approved ones run now, denied ones get the reason).
        const open = settledStep === run.step ? [] : store.toolCallsForStep(runId, run.step).filter((call) => !settled(call.status));
        if (open.length > 0) {
          let closed = false;
          const pending = await this.calls.settleStep(run, c, open, options, () => (closed = this.closeStepIfSettled(run)));
          if (pending.length > 0) {
            if (options.interactive && !options.signal?.aborted) {
              await this.core.waiters.wait(run.id, pending, options.signal);
              continue;
            }
            if (options.signal?.aborted) continue;
            store.updateRun(run.id, { status: 'parked', owner_pid: null });
            this.calls.release(runId);
            this.core.emit(options, { type: 'run.parked', runId, conversationId: run.conversation_id, approvalIds: pending });
            return { runId, conversationId: run.conversation_id, status: 'parked', approvalIds: pending };
          }
          if (!closed || options.signal?.aborted) continue;
          // Every call has its result and the results message is written: nothing of this step to read again. The
          // run's row is still this one (settling changes only its taint, which the model step does not read); the
          // conversation's state may have changed.
          settledStep = run.step;
          c = conv();
        } else if (settledStep !== run.step) this.closeStepIfSettled(run);
        if (stopAfterSettling) return this.finish(store.getRun(runId)!, 'failed', options, stopAfterSettling);

        // 2. Ask the model for the next step, with this turn's tool set.
        if (run.step >= this.core.limits.maxSteps) {
          return this.finish(run, 'failed', options, `Stopped after ${this.core.limits.maxSteps} steps (the step limit). Send a message to continue.`);
        }
        // Before each model call: a budget it would cross parks the run (usage-budget.ts; a subagent's calls count
        // toward its root conversation, whose next step parks), then compaction at the threshold, then hooks (a subagent's steering messages; hooks add
        // messages, never change the conversation's row).
        const reached = c.id === budgetConversationOf(store, c.id) ? budgetReached(store, run) : null;
        if (reached) return this.parkOnBudget(run, reached, options);
        if (await maybeCompact(this.core, run, c, options)) c = conv();
        // Compaction may have taken the last untrusted content out of the model's view (taint-scope.ts).
        if (syncCompactedTaint(store, run.id, c.id)) c = conv();
        for (const hook of this.core.stepHooks) await hook(run, c, options);
        const tools = this.calls.offer(run, new PersistentConversationState(c.folder, c.state), options.interactive).specs;
        const step = await runModelStep(this.core, run, c, tools, options);
        if (step === 'aborted') return this.finish(store.getRun(runId)!, 'aborted', options, 'Stopped by the person.');
        if (step === 'done') {
          // A Stop (SubagentStop) hook may send the model back to work, with its reason as the next message.
          if (!(await stopHooks(this.core, store.getRun(runId)!, conv(), stopBlocks, options))) return this.finish(store.getRun(runId)!, 'finished', options);
          stopBlocks++;
          continue;
        }
        if (typeof step === 'object') stopAfterSettling = step.repeating;
      }
    } catch (err) {
      const run = store.getRun(runId)!;
      const message = this.core.redactor.redact(DeskhandError.isInstance(err) ? err.message : `Internal error: ${errorMessage(err)}`);
      if (options.signal?.aborted) return this.finish(run, 'aborted', options, 'Stopped by the person.');
      return this.finish(run, 'failed', options, message);
    } finally {
      if (this.core.live.get(runId) === options) this.core.live.delete(runId);
    }
  }

  /**
   * Teaches the redactor every value it must hide in this run: the provider key, and the vault's saved secrets (read
   * only when the catalog lists some, so a host without saved secrets never touches the keyring). A keyring that is
   * not reachable holds nothing this run can use either, so the run goes on.
   */
  private async loadSecrets(options: RunOptions): Promise<void> {
    const { redactor, vault } = this.core;
    if (options.provider.apiKey) redactor.addSecret(`${options.provider.provider}-api-key`, options.provider.apiKey);
    if (!vault) return;
    for (const name of vault.catalogNames()) {
      try {
        redactor.addSecret(name, await vault.get(name));
      } catch {
        return;
      }
    }
  }

  /** Writes the tool-results message once every call of the run's current step has a result; says whether it did. */
  closeStepIfSettled(run: RunRow): boolean {
    const { store } = this.core;
    const calls = store.toolCallsForStep(run.id, run.step);
    if (calls.length === 0 || calls.some((c) => !settled(c.status))) return false;
    const last = store.lastMessage(run.conversation_id);
    if (!last || last.role !== 'assistant' || last.run_id !== run.id) return false;
    const parts: ToolResultPart[] = calls.map((c) => ({
      type: 'tool-result',
      toolCallId: c.call_id,
      toolName: c.tool,
      output: (!c.is_error && c.tool === MEDIA_TOOL && mediaOutput(this.core.limits.dataDir, run.provider, c.output ?? '')) || { type: c.is_error ? 'error-text' : 'text', value: c.output ?? '' },
    }));
    // The results of a step of quiet reads (their rows were committed without an fsync too) skip it as well.
    const quiet = calls.every((c) => c.risk === 'read-only' && c.decision === 'allow');
    if (quiet) store.withoutFsync(() => store.addMessage(run.conversation_id, run.id, 'tool', parts));
    else store.addMessage(run.conversation_id, run.id, 'tool', parts);
    return true;
  }

  /** Parks a run before a model call that would cross a budget: a hold a person answers (raise, or stop). */
  private parkOnBudget(run: RunRow, reached: BudgetReached, options: RunOptions): RunOutcome {
    const { store } = this.core;
    const hold = openHold(store, run, reached);
    store.updateRun(run.id, { status: 'parked', owner_pid: null });
    this.calls.release(run.id);
    this.core.emit(options, { type: 'run.parked', runId: run.id, conversationId: run.conversation_id, approvalIds: [hold.id], budget: { holdId: hold.id, message: holdMessage(hold) } });
    return { runId: run.id, conversationId: run.conversation_id, status: 'parked', approvalIds: [hold.id] };
  }

  /** A new message replaces a parked run: its requests are refused, its open calls end, the run is aborted. */
  supersede(run: RunRow): void {
    const { store } = this.core;
    store.transaction(() => {
      for (const approval of store.pendingApprovals(run.id)) {
        store.decideApproval(approval.id, 'denied', false, 'The person sent a new message instead of answering.');
        store.updateToolCall(approval.tool_call_id, {
          status: 'done',
          output: 'Not run: the person sent a new message instead of answering this approval.',
          is_error: 1,
          finished_at: Date.now(),
        });
      }
      for (const call of store.toolCallsForStep(run.id, run.step)) {
        if (!settled(call.status)) {
          store.updateToolCall(call.id, { status: 'interrupted', output: 'Not run: the conversation moved on.', is_error: 1, finished_at: Date.now() });
        }
      }
      this.closeStepIfSettled(run);
      store.updateRun(run.id, { status: 'aborted', error: 'Superseded by a new message.', owner_pid: null });
      closeHolds(store, run.id);
    });
    this.calls.release(run.id);
    this.parkedEnded(run, 'its parent run was replaced by a new message while it waited for a person');
  }

  /** A parked run ended unresumed: the hooks end what parked with it (its parked subagents, their runs). */
  parkedEnded(run: RunRow, reason: string): void {
    for (const hook of this.core.parkedEndHooks) {
      try {
        hook(run, reason);
      } catch {
        // a hook's failure is its own: the run has ended either way
      }
    }
  }

  finish(run: RunRow, status: RunStatus, options: Pick<RunOptions, 'onEvent' | 'syncedByParent'> | undefined, error?: string): RunOutcome {
    const { store } = this.core;
    if (status === 'aborted') {
      store.transaction(() => {
        for (const call of store.toolCallsForStep(run.id, run.step)) {
          if (call.status === 'awaiting_approval') {
            // Nobody answered it: it expires (it was neither approved nor denied).
            const approval = store.latestApprovalForCall(call.id);
            if (approval?.status === 'pending') store.expireApproval(approval.id, 'The run was stopped.');
          }
          if (!settled(call.status)) {
            store.updateToolCall(call.id, { status: 'interrupted', output: 'Not run: the person stopped the run.', is_error: 1, finished_at: Date.now() });
          }
        }
        this.closeStepIfSettled(run);
      });
    }
    const end = () => store.updateRun(run.id, { status, error: error ?? null, owner_pid: null });
    // A foreground subagent's end is synced by its parent's call result (RunOptions.syncedByParent).
    if (options?.syncedByParent) store.withoutFsync(end);
    else end();
    closeHolds(store, run.id);
    this.calls.release(run.id);
    const final = store.getRun(run.id)!;
    this.core.emit(options, {
      type: 'run.finished',
      runId: run.id,
      conversationId: run.conversation_id,
      status,
      ...(error ? { error } : {}),
      usage: { inputTokens: final.input_tokens, outputTokens: final.output_tokens, cacheReadTokens: final.cache_read_tokens, cacheWriteTokens: final.cache_write_tokens },
      steps: final.step,
    });
    return { runId: run.id, conversationId: run.conversation_id, status, ...(error ? { error } : {}), approvalIds: [] };
  }

  /**
   * After a crash (SIGKILL, power loss): runs owned by dead processes are closed so every conversation is consistent
   * again. Calls that were running get an "interrupted" result; runs with open requests stay resumable (parked).
   */
  recoverInterrupted(): string[] {
    const { store } = this.core;
    const recovered: string[] = [];
    for (const run of store.runsWithStatus('running')) {
      if (run.owner_pid === process.pid || runOwnerAlive(run)) continue;
      store.transaction(() => {
        for (const call of store.toolCallsForStep(run.id, run.step)) {
          if (call.status === 'pending' || call.status === 'running' || call.status === 'approved') {
            store.updateToolCall(call.id, {
              status: 'interrupted',
              output: 'This call was interrupted when Deskhand stopped; it may or may not have completed. Check before retrying.',
              is_error: 1,
              finished_at: Date.now(),
            });
          }
        }
        const parked = store.pendingApprovals(run.id).length > 0;
        if (!parked) this.closeStepIfSettled(run);
        store.updateRun(run.id, {
          status: parked ? 'parked' : 'interrupted',
          error: parked ? null : 'Deskhand stopped while this run was in progress.',
          owner_pid: null,
        });
      });
      recovered.push(run.id);
    }
    return recovered;
  }
}
