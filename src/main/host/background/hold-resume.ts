/**
 * Answering a budget hold from a UI: a raise resumes the parked run here, as a run this host owns (Stop reaches it,
 * its end is shown); a stop ends it. The same as the last answer to a parked run's request (answer-resume.ts).
 */
import { errorMessage } from '../../../shared/errors';
import { DeskhandError } from '../../../shared/errors';
import type { RunOptions } from '../../runtime/runtime';
import { answerHold, type BudgetAnswer } from '../../runtime/loop/usage-budget';
import type { ActiveRun, AnswerHost } from './answer-resume';

export async function answerHoldAndResume(host: AnswerHost, holdId: string, value: unknown): Promise<boolean> {
  const store = host.runtime.records;
  const hold = store.usage.hold(holdId);
  if (!hold) throw new DeskhandError('not_found', 'That budget hold no longer exists.');
  const run = store.getRun(hold.run_id);
  if (!run) throw new DeskhandError('not_found', 'The run of this budget hold no longer exists.');
  if (host.active.has(run.conversation_id) || run.status !== 'parked') {
    // Recorded only (the budget is raised or the hold stopped); the run is not this host's to drive now.
    await host.runtime.answerBudgetHold(holdId, value);
    return false;
  }
  const provider = await host.providers.forRun(run);
  const controller = new AbortController();
  const entry: ActiveRun = { runId: run.id, controller, done: Promise.resolve() };
  host.active.set(run.conversation_id, entry);
  const options: RunOptions = {
    provider,
    interactive: true,
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type === 'run.finished' && host.active.get(run.conversation_id) === entry) host.active.delete(run.conversation_id);
    },
  };
  let answer: BudgetAnswer;
  try {
    // Validation and the raise happen before the resume starts: a refused answer throws here, to the person.
    ({ answer } = answerHold(store, holdId, value));
  } catch (err) {
    host.active.delete(run.conversation_id);
    throw err;
  }
  if ('stop' in answer) {
    host.active.delete(run.conversation_id);
    host.runtime.stopParked(run.id);
    host.markChanged('conversations');
    return false;
  }
  entry.done = host.runtime
    .resume(run.id, options)
    .catch((err: unknown) => {
      host.log.warn(`resuming run ${run.id} after a budget raise failed`, { error: errorMessage(err) });
      host.markChanged('approvals');
    })
    .finally(() => {
      if (host.active.get(run.conversation_id) === entry) host.active.delete(run.conversation_id);
      host.markChanged('conversations');
    });
  return true;
}
