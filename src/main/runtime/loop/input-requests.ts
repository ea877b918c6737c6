/**
 * Answering what a run asked a person: approvals (approve, always, deny) and input requests of every other kind
 * (a secret, a question, a file pick…), from any process. Requests are single use and bound to the hash of the call's
 * arguments. An answer wakes the run waiting in this process at once; a parked run whose last request was answered
 * resumes here.
 */
import { randomUUID } from 'node:crypto';
import { peerOfRulePattern } from '../../../shared/peers';
import { DeskhandError } from '../../../shared/errors';
import type { RunEvent } from '../../../shared/events';
import type { ApprovalRow } from '../../services/store/store';
import { offeredRoot } from '../../../shared/always-allow';
import { lifetimeEnd, type GrantLifetime, type GrantScope } from '../../../shared/rules';
import { sha256 } from '../decision/approval-engine';
import { notePerson } from './call-notes';
import { PersistentConversationState } from '../context/conversation-state';
import type { RunOptions, RunOutcome, RuntimeCore } from '../core';
import type { ApprovalAnswer, BackgroundAnswer } from './input-kinds';

export type { ApprovalAnswer };

export class InputRequests {
  constructor(
    private readonly core: RuntimeCore,
    private readonly resume: (runId: string, options: RunOptions) => Promise<RunOutcome>,
  ) {}

  /** Decides an approval, or declines an input request of any kind (`approved: false`). */
  async decideApproval(approvalId: string, answer: ApprovalAnswer, resume?: RunOptions): Promise<RunOutcome | null> {
    const approval = this.pending(approvalId);
    if (approval.kind !== 'approval' && answer.approved) {
      const approve = this.core.inputKinds.get(approval.kind)?.approve;
      if (approve) return this.answer(approvalId, approve(parseObject(approval.request)), resume);
      throw new DeskhandError('usage', this.howToAnswer(approval));
    }
    const reason = answer.reason?.trim() ? answer.reason.trim().slice(0, 2000) : null;
    const { store } = this.core;
    const call = this.boundCall(approval);
    if (approval.task_id) {
      // A background task's request: its call finished long ago; the refusal ends the task instead.
      const onAnswer = this.backgroundHandler(approval);
      if (!store.answerApproval(approvalId, 'denied', null, reason)) throw new DeskhandError('conflict', `Request ${approvalId} was answered by someone else just now.`);
      await onAnswer({ taskId: approval.task_id, requestId: approvalId, kind: approval.kind, declined: true, reason });
      return this.answeredInBackground(approval, reason, resume);
    }
    // "Allow this peer for this conversation": a peer is never allowed for a workspace or everywhere.
    const peer = peerOfRulePattern(approval.always_pattern);
    if (peer && answer.approved && answer.always && answer.scope && answer.scope !== 'conversation') {
      throw new DeskhandError('usage', `Peer ${peer} can be allowed for this conversation only (scope conversation), never for a workspace or everywhere; approve once, or allow it for this conversation.`);
    }
    const ok = store.transaction(() => {
      if (!store.decideApproval(approvalId, answer.approved ? 'approved' : 'denied', !!answer.always && answer.approved, reason)) return false;
      if (answer.approved && answer.always && approval.always_pattern) {
        const root = offeredRoot(approval.always_pattern);
        if (root !== null) this.addRoot(approval.run_id, root);
        else this.saveRule(approval, answer.scope ?? 'conversation', answer.lifetime ?? 'until-revoked');
      }
      store.updateToolCall(call.id, { status: answer.approved ? 'approved' : 'denied' });
      notePerson(store, call.id, answer.by);
      return true;
    });
    if (!ok) throw new DeskhandError('conflict', `Approval ${approvalId} was answered by someone else just now.`);
    return this.answered(approval, answer.approved, !!answer.always && answer.approved, reason, resume);
  }

  /** Saves the rule an "always" answer offered, in the scope the person chose (inside the caller's transaction). */
  private saveRule(approval: ApprovalRow, scope: GrantScope, lifetime: GrantLifetime): void {
    const { store } = this.core;
    const conv = store.getConversation(store.getRun(approval.run_id)!.conversation_id)!;
    // "This task": a conversation rule that applies only within the run that asked (it ends with the run).
    const stored = scope === 'task' ? 'conversation' : scope;
    store.rules.add({
      id: `rule_${randomUUID()}`,
      tool: approval.tool,
      pattern: approval.always_pattern!,
      scope: stored,
      scope_value: stored === 'conversation' ? conv.id : stored === 'workspace' ? conv.folder : null,
      source: `approval ${approval.id} in “${conv.title}”`,
      run_id: scope === 'task' ? approval.run_id : null,
      expires_at: scope === 'task' ? null : lifetimeEnd(lifetime, Date.now()),
    });
  }

  /** Adds a workspace root to the run's conversation, in its persisted state (inside the caller's transaction). */
  private addRoot(runId: string, root: string): void {
    const { store } = this.core;
    const conv = store.getConversation(store.getRun(runId)!.conversation_id)!;
    const state = new PersistentConversationState(conv.folder, conv.state);
    state.addWorkspaceRoot(root);
    store.updateConversation(conv.id, { state: state.serialize() });
  }

  /**
   * Answers any request with a JSON value: `{"approved": true}` for an approval, or a value its kind accepts (the
   * kind validates it against what was asked, and does what answering means — a secret goes to the keyring).
   * `by`: who answered (a UI, a paired device), noted on the call as an approval's answerer is.
   */
  async answer(requestId: string, value: unknown, resume?: RunOptions, by?: string): Promise<RunOutcome | null> {
    const request = this.pending(requestId);
    const { inputKinds, store, redactor } = this.core;
    if (request.kind === 'approval') return this.decideApproval(requestId, { ...(inputKinds.parse('approval', value) as ApprovalAnswer), ...(by ? { by } : {}) }, resume);
    const kind = inputKinds.get(request.kind);
    if (!kind) throw new DeskhandError('usage', `Request ${requestId} is of kind "${request.kind}", which this build of Deskhand cannot answer.`);
    const parsed = inputKinds.parse(request.kind, value);
    const call = this.boundCall(request);
    const onAnswer = request.task_id ? this.backgroundHandler(request) : null;
    const accepted = await kind.accept(parsed, request.request ? (JSON.parse(request.request) as unknown) : null);
    const stored = redactor.redact(JSON.stringify(accepted ?? null));
    if (request.task_id && onAnswer) {
      // A background task's request: the answer finishes the task; its call and run are left as they are.
      if (!store.answerApproval(requestId, 'approved', stored, null)) throw new DeskhandError('conflict', `Request ${requestId} was answered by someone else just now.`);
      await onAnswer({ taskId: request.task_id, requestId, kind: request.kind, declined: false, answer: JSON.parse(stored) as unknown });
      return this.answeredInBackground(request, null, resume);
    }
    const ok = store.transaction(() => {
      if (!store.answerApproval(requestId, 'approved', stored, null)) return false;
      store.updateToolCall(call.id, { status: 'approved' });
      notePerson(store, call.id, by);
      return true;
    });
    if (!ok) throw new DeskhandError('conflict', `Request ${requestId} was answered by someone else just now.`);
    return this.answered(request, true, false, null, resume);
  }

  /** Open requests for secrets (ask_user_secret), for one name or all. */
  pendingSecretRequests(name?: string): { approval: ApprovalRow; name: string; description: string }[] {
    const out: { approval: ApprovalRow; name: string; description: string }[] = [];
    for (const approval of this.core.store.pendingApprovals()) {
      if (approval.kind !== 'secret') continue;
      const data = parseObject(approval.request);
      if (typeof data.name !== 'string' || (name !== undefined && data.name !== name)) continue;
      out.push({ approval, name: data.name, description: typeof data.description === 'string' ? data.description : '' });
    }
    return out;
  }

  private pending(id: string): ApprovalRow {
    const row = this.core.store.getApproval(id);
    if (!row) throw new DeskhandError('not_found', `No request ${id}. Pending requests: \`deskhand runs list\`.`);
    if (row.status !== 'pending') throw new DeskhandError('conflict', `Request ${id} was already ${row.status}; each request can be answered once.`);
    return row;
  }

  /** The request's call, unchanged since it was asked (its arguments' hash); a mismatch refuses the request. */
  private boundCall(request: ApprovalRow) {
    const call = this.core.store.getToolCall(request.tool_call_id);
    if (!call || sha256(call.args) !== request.args_sha256) {
      this.core.store.decideApproval(request.id, 'denied', false, 'arguments changed after the approval was requested');
      throw new DeskhandError('conflict', `Request ${request.id} no longer matches its tool call; it was refused.`);
    }
    return call;
  }

  private backgroundHandler(request: ApprovalRow): (answer: BackgroundAnswer) => void | Promise<void> {
    const handler = this.core.onBackgroundAnswer;
    if (!handler) throw new DeskhandError('unsupported', `Request ${request.id} belongs to background task ${request.task_id}, which this host cannot finish.`);
    return handler;
  }

  /** After a background task's request was answered: the UI hears of it; no run is woken or resumed. */
  private answeredInBackground(request: ApprovalRow, reason: string | null, resume?: RunOptions): RunOutcome {
    const approved = this.core.store.getApproval(request.id)?.status === 'approved';
    this.core.emit(resume, { type: 'approval.decided', runId: request.run_id, approvalId: request.id, decision: approved ? 'approved' : 'denied', always: false, ...(reason ? { reason } : {}) });
    const run = this.core.store.getRun(request.run_id)!;
    return { runId: run.id, conversationId: run.conversation_id, status: run.status, approvalIds: this.core.store.pendingApprovals(run.id).map((a) => a.id) };
  }

  private howToAnswer(request: ApprovalRow): string {
    if (request.kind === 'secret') {
      return `Approval ${request.id} asks the person to type a secret; it is answered by providing the value (in the app, at the terminal prompt, or with \`deskhand secrets set NAME\`), or denied.`;
    }
    const label = this.core.inputKinds.get(request.kind)?.label(parseObject(request.request)) ?? `a ${request.kind} request`;
    return `${request.id} is ${label}, not an approval: answer it with \`deskhand runs answer ${request.id} --value JSON\`, or deny it.`;
  }

  private async answered(request: ApprovalRow, approved: boolean, always: boolean, reason: string | null, resume?: RunOptions): Promise<RunOutcome | null> {
    const event: RunEvent = {
      type: 'approval.decided',
      runId: request.run_id,
      approvalId: request.id,
      decision: approved ? 'approved' : 'denied',
      always,
      ...(reason ? { reason } : {}),
    };
    this.core.emit(resume, event);
    if (this.core.waiters.wake(request.run_id)) return null;
    const { store } = this.core;
    const run = store.getRun(request.run_id)!;
    const open = store.pendingApprovals(run.id);
    if (run.status !== 'parked' || open.length > 0 || !resume) {
      return { runId: run.id, conversationId: run.conversation_id, status: run.status, approvalIds: open.map((a) => a.id) };
    }
    // A parked subagent's run resumes through the top of its parked tree: the parent's call runs again and continues it.
    const root = this.core.parkedRoot(run.id);
    return this.core.parkedResume(root, resume) ?? this.resume(root, resume);
  }
}

function parseObject(json: string | null): Record<string, unknown> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
