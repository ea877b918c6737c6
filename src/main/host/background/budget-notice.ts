/**
 * A run that parks on a budget tells the person (nobody may be watching a goal's cycle or a background run): a
 * notification with the conversation's title in public, "budget reached: N spent of M" as private detail, and two
 * answers — "Double it and continue" (the hold's limit twice over, in its unit) and "Stop run" — besides opening the
 * conversation, whose card takes any other limit. The answer goes where the app's card sends it (hold-resume.ts).
 */
import { errorMessage } from '../../../shared/errors';
import type { RunEvent } from '../../../shared/events';
import { notificationLine, type NotificationSpec, type Notifier } from '../../services/notify';
import type { UsageHoldRow } from '../../runtime/records';
import { holdMessage } from '../../runtime/loop/usage-budget';
import type { AppRuntime } from '../assembly/open-runtime';

const CATEGORY = 'deskhand.budget';
const TAG = 'budget:';

export function budgetNotification(hold: UsageHoldRow, conversationTitle: string, redact: (text: string) => string): NotificationSpec {
  return {
    title: hold.scope === 'goal' ? 'A goal paused on its budget' : 'A run paused on its budget',
    body: notificationLine(`In “${redact(conversationTitle)}”`),
    privateBody: notificationLine(holdMessage(hold), 300),
    urgency: 'critical',
    category: CATEGORY,
    actions: [
      { id: 'raise', label: 'Double it and continue' },
      { id: 'stop', label: 'Stop run' },
      { id: 'open', label: 'Open' },
    ],
    target: { kind: 'conversation', id: hold.conversation_id },
    tag: `${TAG}${hold.id}`,
  };
}

/** The answer a notification action gives a hold, or null (open, dismiss, another notification). */
export function budgetActionAnswer(hold: Pick<UsageHoldRow, 'unit' | 'limit_value'>, action: string): object | null {
  if (action === 'stop') return { stop: true };
  if (action !== 'raise') return null;
  return hold.unit === 'usd' ? { usd: hold.limit_value * 2 } : { tokens: Math.ceil(hold.limit_value * 2) };
}

/** Notifies on every budget park; answers the hold from the notification's actions. Returns the unsubscribe. */
export function startBudgetNotices(
  runtime: Pick<AppRuntime, 'onEvent' | 'records' | 'redactor'>,
  notifier: Pick<Notifier, 'notify' | 'onAction'> | undefined,
  answer: (holdId: string, value: unknown) => Promise<unknown>,
  log: { warn(message: string, details?: Record<string, unknown>): void },
): () => void {
  // A runtime opened without a notifier (a benchmark's or a test's host) has no one to tell.
  if (!notifier) return () => undefined;
  const offEvents = runtime.onEvent((e: RunEvent) => {
    if (e.type !== 'run.parked' || !e.budget) return;
    const hold = runtime.records.usage.hold(e.budget.holdId);
    if (!hold) return;
    const title = runtime.records.getConversation(hold.conversation_id)?.title ?? 'a conversation';
    notifier.notify(budgetNotification(hold, title, (t) => runtime.redactor.redact(t))).catch((err: unknown) => log.warn('could not tell the person about a budget hold', { hold: hold.id, error: errorMessage(err) }));
  });
  const offActions = notifier.onAction((action, spec) => {
    if (spec.category !== CATEGORY || !spec.tag?.startsWith(TAG)) return;
    const hold = runtime.records.usage.hold(spec.tag.slice(TAG.length));
    if (!hold || hold.status !== 'pending') return;
    const value = budgetActionAnswer(hold, action);
    if (value) answer(hold.id, value).catch((err: unknown) => log.warn('answering a budget hold from a notification failed', { hold: hold.id, error: errorMessage(err) }));
  });
  return () => {
    offEvents();
    offActions();
  };
}
