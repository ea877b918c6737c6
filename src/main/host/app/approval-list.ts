/**
 * The pending requests every UI shows (`approvalsChanged`, `listPendingApprovals`), kept from the runtime's events
 * instead of read again from SQLite at every change (issue 44, "the UI's lists are kept from events"):
 * - `approval.requested` / `input.requested`: the new request is added (its own rows read once, by id);
 * - `approval.decided` (approved, denied or answered, here or by a parked run's resume): it leaves the list;
 * - `run.started` / `run.parked` / `run.finished`: the requests of that run's conversation are checked one by one
 *   (still pending? the run's status now), which is how a stopped, superseded or expired run's requests leave.
 * What no event of this process says — another process's commit (`deskhand runs approve`, a CLI run parking), a
 * conversation deleted, a stale answer — marks the list `stale`, and it is read whole once at its next use.
 */
import type { PendingApproval } from '../../../shared/contract';
import type { RunEvent } from '../../../shared/events';
import type { Records } from '../../runtime/records';
import { projectApproval, projectApprovals, type ToolPresenter } from './projections';

interface Kept {
  view: PendingApproval;
  /** The run and the conversation the request was asked in (a subagent's, where `view` names its parent's). */
  runId: string;
  conversationId: string;
}

export class ApprovalList {
  private readonly kept = new Map<string, Kept>();
  private whole = false;

  constructor(
    private readonly records: Records,
    private readonly presenter: () => ToolPresenter,
  ) {}

  /** The list as the UIs are shown it, oldest first. Reads the store whole only when it was never read or is stale. */
  list(): PendingApproval[] {
    if (!this.whole) this.reload();
    return [...this.kept.values()].map((k) => k.view);
  }

  /** Something changed that no event of this process describes: the next `list()` reads the store again. */
  stale(): void {
    this.whole = false;
  }

  /** Follows one run event; returns whether the list may have changed. */
  apply(event: RunEvent): boolean {
    if (!this.whole) return true;
    switch (event.type) {
      case 'approval.requested':
        return this.add(event.approvalId, event.runId);
      case 'input.requested':
        return this.add(event.requestId, event.runId);
      case 'approval.decided':
        return this.kept.delete(event.approvalId);
      case 'run.started':
      case 'run.parked':
      case 'run.finished':
        return this.recheck(event.conversationId);
      default:
        return false;
    }
  }

  private reload(): void {
    this.kept.clear();
    for (const view of projectApprovals(this.records, this.presenter())) {
      const run = this.records.getRun(view.runId);
      this.kept.set(view.approvalId, { view, runId: view.runId, conversationId: run?.conversation_id ?? view.conversationId });
    }
    this.whole = true;
  }

  private add(approvalId: string, runId: string): boolean {
    const view = projectApproval(this.records, this.presenter(), approvalId);
    if (!view) return false;
    const run = this.records.getRun(runId);
    this.kept.set(approvalId, { view, runId, conversationId: run?.conversation_id ?? view.conversationId });
    return true;
  }

  /** The kept requests of one conversation, each checked by id: gone when no longer pending, its run's status now. */
  private recheck(conversationId: string): boolean {
    let changed = false;
    for (const [id, k] of this.kept) {
      if (k.conversationId !== conversationId) continue;
      if (this.records.getApproval(id)?.status !== 'pending') {
        this.kept.delete(id);
        changed = true;
        continue;
      }
      const status = this.records.getRun(k.runId)?.status;
      const runStatus = status === 'running' || status === 'parked' ? status : 'other';
      if (runStatus !== k.view.runStatus) {
        k.view = { ...k.view, runStatus };
        changed = true;
      }
    }
    return changed;
  }
}
