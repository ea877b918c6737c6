/**
 * The goal loop: while a conversation has an active goal and is idle, it gets the next cycle — a turn started by
 * Deskhand with the goal and what is left of its budgets. After each cycle the run's tokens and the wall time are
 * counted; a used-up budget, a complete report (evidence checked by report_goal_cycle), 3 consecutive blocked cycles
 * (or one with a verdict that the objective is impossible, unsafe or contradictory) or end_loop stop it. A `question`
 * report makes it wait: the person is told, and the loop resumes once they answer in the conversation. A cycle that needs an approval parks like any unattended turn (the UI lists it and notifies);
 * answering resumes it, and the loop continues when it finishes. Stopping a cycle ends the goal.
 */
import { errorMessage } from '../../../shared/errors';
import type { RunEvent } from '../../../shared/events';
import type { RunOutcome } from '../../runtime/runtime';
import type { ProviderConfig } from '../../services/providers/providers';
import { describeBudget, type GoalView } from '../../services/goals';
import { notificationLine, type NotificationSpec, type Notifier } from '../../services/notify';
import type { AppRuntime } from '../assembly/open-runtime';
import { GOAL_CYCLE_TRAILER } from '../assembly/memory-host';
import { type RunRow } from '../../runtime/records';

export interface GoalLoopOptions {
  runtime: AppRuntime;
  provider(lastRun: RunRow): Promise<ProviderConfig> | ProviderConfig;
  /** Runs one cycle's turn; default `runtime.wake` unattended (parks on approvals). */
  run?(conversationId: string, message: string, provider: ProviderConfig, signal: AbortSignal): Promise<RunOutcome>;
  onEvent?(event: RunEvent): void;
  /** A goal stopped (complete, blocked, exhausted, ended) or waits for the person's answer (waiting): hosts notify the person. */
  onGoalStopped?(goal: GoalView): void;
  onError?(error: unknown, conversationId: string): void;
}

export function cycleMessage(goal: GoalView, n: number): string {
  const last = goal.cycles.at(-1);
  const lines = [
    `[goal cycle ${n} of ${goal.id}] Objective: ${goal.objective}`,
    'Criteria:',
    ...goal.criteria.map((c) => `- ${c}`),
    `Budget used: ${describeBudget(goal.budget, goal.used)}.`,
    ...(last && last.reported === 'unreported' ? ['The last cycle ended without report_goal_cycle.'] : []),
    ...(last && last.reported === 'question' ? [`The last cycle asked the person: ${last.summary}\nTheir answer is their latest message in this conversation.`] : []),
    ...(goal.consecutiveBlocked ? [`Consecutive blocked cycles: ${goal.consecutiveBlocked}.`] : []),
    'Work toward the objective, then call report_goal_cycle: continue, complete (with evidence: call ids of tool results in this conversation and a quote from each), or blocked. Call end_loop to stop the loop.',
    '',
    GOAL_CYCLE_TRAILER,
  ];
  return lines.join('\n');
}

export class GoalLoop {
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private off: (() => void) | null = null;
  /** Conversations whose cycle turn is being started → the goal it belongs to (its run.started marks the cycle). */
  private readonly starting = new Map<string, string>();
  private stopped = false;
  private readonly notified = new Set<string>();

  constructor(private readonly opts: GoalLoopOptions) {}

  start(): this {
    const { runtime } = this.opts;
    this.off = runtime.onEvent((e) => {
      if (e.type === 'run.started' && !e.resumed) {
        const goalId = this.starting.get(e.conversationId);
        if (goalId) {
          this.starting.delete(e.conversationId);
          runtime.goals.startCycle(goalId, e.runId);
        }
      }
      if (e.type === 'run.finished') setImmediate(() => this.advance(e.conversationId));
    });
    for (const g of runtime.goals.list()) if (g.status === 'active') setImmediate(() => this.advance(g.conversationId));
    return this;
  }

  /** Counts a finished cycle and starts the next one when the goal is active and the conversation idle. */
  advance(conversationId: string): void {
    if (this.stopped || this.inFlight.has(conversationId)) return;
    const { runtime } = this.opts;
    const { store, goals } = runtime;
    if (!store.isOpen) return;
    let goal = goals.current(conversationId);
    if (!goal || (goal.status !== 'active' && this.notified.has(goal.id))) return;
    const last = store.latestRunForConversation(conversationId);
    if (last && goals.isCycleRun(goal.id, last.id) && ['finished', 'failed', 'aborted', 'interrupted'].includes(last.status)) {
      goal = goals.finishCycle(goal.id, last.id, last.input_tokens + last.output_tokens);
      if (goal.status === 'active' && last.status === 'aborted') goal = goals.end(goal.id, 'The person stopped a cycle.');
    }
    if (goal.status === 'waiting') {
      // The person's own turn after the question (not a cycle, started after it) is their answer: the loop resumes.
      const asked = goal.cycles.at(-1)?.at ?? goal.createdAt;
      const answered = !!last && !goals.isCycleRun(goal.id, last.id) && last.created_at >= asked && last.status === 'finished';
      if (!answered) {
        const key = `${goal.id}:question:${goal.cycles.length}`;
        if (!this.notified.has(key)) {
          this.notified.add(key);
          this.opts.onGoalStopped?.(goal);
        }
        return;
      }
      goal = goals.resume(goal.id);
    }
    if (goal.status !== 'active') {
      // A cycle that completed, blocked or ended the goal is counted above; the person hears once that it stopped.
      this.notified.add(goal.id);
      this.opts.onGoalStopped?.(goal);
      return;
    }
    if (!last || store.activeRunForConversation(conversationId)) return; // busy or parked: continued when it ends
    const controller = new AbortController();
    const entry = { controller, done: Promise.resolve() };
    this.inFlight.set(conversationId, entry);
    entry.done = this.cycle(goal, last, controller.signal)
      .catch((err: unknown) => this.opts.onError?.(err, conversationId))
      .finally(() => {
        this.inFlight.delete(conversationId);
        setImmediate(() => this.advance(conversationId));
      });
  }

  private async cycle(goal: GoalView, lastRun: RunRow, signal: AbortSignal): Promise<void> {
    const { runtime } = this.opts;
    const provider = await this.opts.provider(lastRun);
    const message = cycleMessage(goal, goal.cycles.length + 1);
    this.starting.set(goal.conversationId, goal.id);
    try {
      if (this.opts.run) await this.opts.run(goal.conversationId, message, provider, signal);
      else await runtime.wake(goal.conversationId, message, { provider, interactive: false, signal, ...(this.opts.onEvent ? { onEvent: this.opts.onEvent } : {}) });
    } finally {
      this.starting.delete(goal.conversationId);
    }
  }

  /** Waits for the cycles running now (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    for (const w of this.inFlight.values()) w.controller.abort();
    await Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
  }
}

/** For hosts: starts the loop with their provider lookup and turn runner, logging what fails. */
export function startGoalLoop(
  runtime: AppRuntime,
  provider: GoalLoopOptions['provider'],
  run: GoalLoopOptions['run'],
  log: { warn(message: string, details?: Record<string, unknown>): void },
  notifier: Pick<Notifier, 'notify'> | null = null,
): GoalLoop {
  // The person hears when a goal stops or asks them something (nobody watches a goal's cycles).
  const onGoalStopped = notifier
    ? (goal: GoalView) => {
        const title = runtime.records.getConversation(goal.conversationId)?.title ?? 'a conversation';
        notifier.notify(goalNotification(goal, title, (t) => runtime.redactor.redact(t))).catch((err: unknown) => log.warn('could not tell the person about a goal', { goal: goal.id, error: errorMessage(err) }));
      }
    : undefined;
  return new GoalLoop({ runtime, provider, ...(run ? { run } : {}), ...(onGoalStopped ? { onGoalStopped } : {}), onError: (err, conversationId) => log.warn('the goal loop could not run a cycle', { conversationId, error: errorMessage(err) }) }).start();
}

const GOAL_HEADLINES: Record<GoalView['status'], string> = {
  waiting: 'A goal asks you something',
  complete: 'A goal is complete',
  blocked: 'A goal is blocked',
  exhausted: 'A goal used up its budget',
  ended: 'A goal ended',
  active: 'A goal is running',
};

/**
 * What the person is told when a goal stops or waits for them: the headline and the conversation's title in public;
 * the question or the reason (the model's words, redacted) only as private detail, never on a lock screen.
 */
export function goalNotification(goal: GoalView, conversationTitle: string, redact: (text: string) => string): NotificationSpec {
  const detail = goal.status === 'waiting' ? (goal.cycles.at(-1)?.summary ?? goal.endedReason) : goal.endedReason;
  return {
    title: GOAL_HEADLINES[goal.status],
    body: notificationLine(`In “${redact(conversationTitle)}”: ${redact(goal.objective)}`),
    ...(detail ? { privateBody: notificationLine(redact(detail), 300) } : {}),
    urgency: goal.status === 'waiting' || goal.status === 'blocked' ? 'critical' : 'normal',
    category: 'deskhand.goal',
    target: { kind: 'conversation', id: goal.conversationId },
  };
}
