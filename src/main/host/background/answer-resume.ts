/**
 * Answering a request from a UI: the run waits in this process (answering wakes it), or it is parked and the last
 * answer resumes it here, as a run this host owns (so Stop reaches it and its end is shown).
 */
import { errorMessage } from '../../../shared/errors';
import type { RunOptions } from '../../runtime/runtime';
import { DeskhandError } from '../../../shared/errors';
import type { Logger } from '../assembly/logger';
import type { AppRuntime } from '../assembly/open-runtime';
import type { ProviderConfig } from '../../services/providers/providers';
import { type ApprovalRow } from '../../runtime/records';

export interface ActiveRun {
  runId: string | null;
  controller: AbortController;
  done: Promise<unknown>;
}

export interface AnswerHost {
  runtime: AppRuntime;
  /** The runs this host drives, by conversation. */
  active: Map<string, ActiveRun>;
  /** The provider a parked run resumes with (ProviderSettings.forRun). */
  providers: { forRun(run: { provider: string; model: string; base_url: string | null }): Promise<ProviderConfig> };
  log: Logger;
  markChanged(what: 'conversations' | 'approvals'): void;
}

/**
 * Answers one request through `act` (the runtime call). Parked: the last answer resumes the run here (true); earlier
 * ones are only recorded (false), as are answers to a run already waiting in this process.
 */
export async function answerAndResume(host: AnswerHost, approval: ApprovalRow, act: (resume?: RunOptions) => Promise<unknown>): Promise<boolean> {
  const store = host.runtime.records;
  const run = store.getRun(approval.run_id);
  if (!run) throw new DeskhandError('not_found', 'The run of this approval no longer exists.');

  // A background task's request concerns no run at all.
  const waitingHere = [...host.active.values()].some((a) => a.runId === run.id);
  if (waitingHere || run.status !== 'parked' || approval.task_id) {
    await act();
    return false;
  }

  const resumes = store.pendingApprovals(run.id).length === 1 && !host.active.has(run.conversation_id);
  if (!resumes) {
    await act();
    return false;
  }
  const provider = await host.providers.forRun(run);
  const controller = new AbortController();
  const entry: ActiveRun = { runId: run.id, controller, done: Promise.resolve() };
  host.active.set(run.conversation_id, entry);
  let decided!: () => void;
  const recorded = new Promise<void>((res) => (decided = res));
  const options: RunOptions = {
    provider,
    interactive: true,
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type === 'approval.decided' && e.approvalId === approval.id) decided();
      if (e.type === 'run.finished' && host.active.get(run.conversation_id) === entry) host.active.delete(run.conversation_id);
    },
  };
  const outcome = act(options);
  entry.done = outcome
    .catch((err: unknown) => {
      host.log.warn(`resuming run ${run.id} failed`, { error: errorMessage(err) });
      // A failed answer (refused as changed, answered elsewhere) may move requests no event names: read them again.
      host.markChanged('approvals');
    })
    .finally(() => {
      if (host.active.get(run.conversation_id) === entry) host.active.delete(run.conversation_id);
      // Otherwise the approval list followed the run's events (host/app/approval-list.ts).
      host.markChanged('conversations');
    });
  await Promise.race([recorded, outcome]);
  return true;
}
