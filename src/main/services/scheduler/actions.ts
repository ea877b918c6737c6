/**
 * What a rung reminder's notification offers, and what each action does: Snooze (10 min, 1 h, tomorrow 09:00) arms
 * the reminder again with the OS scheduler, Dismiss marks its fire, Open (the click) asks the host to show the
 * reminder's conversation. The same actions work wherever the notification was shown: the desktop app, `deskhand
 * web`, and `deskhand fire` with the app closed (that process waits, bounded, for the person's answer, then exits).
 * The schedule service acts (`ScheduleService.act`); `listenForActions` connects a notifier to it.
 */
import type { NotificationSpec, Notifier, NotifyAction, NotifyResult } from '../notify';

/** The reminder's buttons, in order. `open` is the notification's click (D-Bus `default`). */
export const REMINDER_ACTIONS: readonly NotifyAction[] = [
  { id: 'open', label: 'Open' },
  { id: 'snooze-10', label: 'Snooze 10 min' },
  { id: 'snooze-60', label: 'Snooze 1 h' },
  { id: 'snooze-tomorrow', label: 'Tomorrow 09:00' },
  { id: 'dismiss', label: 'Dismiss' },
];

export type ReminderAction = 'open' | 'snooze-10' | 'snooze-60' | 'snooze-tomorrow' | 'dismiss';

export const isReminderAction = (a: string): a is ReminderAction => REMINDER_ACTIONS.some((x) => x.id === a);

/** What acting did, for the host (and the log). `open` is set when the host should show the conversation. */
export interface ActResult {
  scheduleId: string;
  action: ReminderAction;
  message: string;
  open?: { scheduleId: string; conversationId: string | null };
}

/** The part of the schedule service that acts on a reminder's notification. */
export interface ActsOnReminders {
  act(scheduleId: string, action: ReminderAction): Promise<ActResult>;
}

export interface ActionListener {
  /** Stops listening. */
  off(): void;
  /** Settles once every action received so far has been acted on. */
  idle(): Promise<void>;
}

/**
 * Connects a notifier's actions on schedule notifications to the schedule service. `open` is what differs between
 * hosts (the app shows the conversation; a closed app starts the app, when it knows how). Errors go to `onError`.
 */
export function listenForActions(
  notifier: Pick<Notifier, 'onAction'>,
  schedules: ActsOnReminders,
  hooks: { open?: (target: NonNullable<ActResult['open']>) => void | Promise<void>; onActed?: (r: ActResult) => void; onError?: (err: unknown) => void } = {},
): ActionListener {
  const inFlight = new Set<Promise<void>>();
  const off = notifier.onAction((action: string, spec: NotificationSpec) => {
    if (spec.target?.kind !== 'schedule' || !isReminderAction(action)) return;
    const p = (async () => {
      const r = await schedules.act(spec.target!.id, action);
      if (r.open) await hooks.open?.(r.open);
      hooks.onActed?.(r);
    })()
      .catch((err: unknown) => hooks.onError?.(err))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  });
  return {
    off,
    async idle() {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
  };
}

/**
 * A notifier that keeps the notifications it showed with actions until each was acted on or closed. `deskhand fire`
 * shows through it and waits on `settled` before it exits, so a Snooze pressed with the app closed still reaches a
 * process that can act on it. Only backends that report actions and closes (D-Bus) are waited for.
 */
export class WaitingNotifier implements Notifier {
  private readonly open = new Set<NotificationSpec>();
  private readonly waiters = new Set<() => void>();
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly inner: Notifier,
    /** Which notifications are waited for (default: those of a schedule, which `listenForActions` acts on). */
    private readonly waitFor: (spec: NotificationSpec) => boolean = (spec) => spec.target?.kind === 'schedule',
  ) {
    this.offs.push(inner.onAction((_a, spec) => this.done(spec)));
    if (inner.onClosed) this.offs.push(inner.onClosed((spec) => this.done(spec)));
  }

  async notify(spec: NotificationSpec): Promise<NotifyResult> {
    const r = await this.inner.notify(spec);
    if (r.actionable && spec.actions?.length && this.waitFor(spec)) this.open.add(spec);
    return r;
  }

  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void {
    return this.inner.onAction(listener);
  }

  onClosed(listener: (spec: NotificationSpec) => void): () => void {
    return this.inner.onClosed?.(listener) ?? (() => undefined);
  }

  /** How many notifications with actions are still on screen. */
  get count(): number {
    return this.open.size;
  }

  private done(spec: NotificationSpec): void {
    if (!this.open.delete(spec)) return;
    if (this.open.size === 0) for (const w of [...this.waiters]) w();
  }

  /** Resolves true when none is open any more, false when `ms` passed first. */
  settled(ms: number): Promise<boolean> {
    if (this.open.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (v: boolean) => {
        clearTimeout(t);
        this.waiters.delete(wake);
        resolve(v);
      };
      const wake = () => finish(true);
      const t = setTimeout(() => finish(false), ms);
      this.waiters.add(wake);
    });
  }

  async close(): Promise<void> {
    for (const off of this.offs) off();
    await this.inner.close();
  }
}
