/**
 * Scheduling in the desktop app: the in-app ticker (fires what no OS job holds, or what the OS missed), notifications
 * through Electron's Notification (a click opens the conversation or approval; a reminder's Snooze and Dismiss act
 * through the schedule service, from the notification where the OS shows buttons, and from the tray), and the
 * tray's schedule items: upcoming reminders (snooze, dismiss), scheduled prompts (run now, pause/resume) and
 * "Stop all runs". The OS jobs keep firing through `deskhand fire` whether or not the app runs.
 */
import { Notification, type MenuItemConstructorOptions } from 'electron';
import type { ProviderConfig } from '../services/providers/providers';
import type { NotificationSpec, Notifier, NotifyResult, NotifyTarget } from '../services/notify';
import { displayTime, type ScheduleRow } from '../services/scheduler';
import type { AppRuntime } from '../host/assembly/open-runtime';
import { runScheduleNow } from '../host/background/schedule-fire';
import { ScheduleTicker } from '../host/background/schedule-ticker';
import { listenForActions, type ActionListener } from '../services/scheduler/actions';

/** Notifier for the shell: Electron's Notification; a click opens what it announces. */
export class ElectronNotifier implements Notifier {
  private readonly listeners = new Set<(action: string, spec: NotificationSpec) => void>();

  constructor(private readonly fallback: Notifier | null = null) {}

  async notify(spec: NotificationSpec): Promise<NotifyResult> {
    if (!Notification.isSupported()) {
      if (this.fallback) return this.fallback.notify(spec);
      throw new Error('Notifications are not supported here.');
    }
    const urgency = spec.urgency ?? 'normal';
    // Buttons where the OS shows them (macOS); the click is `open` everywhere.
    const buttons = (spec.actions ?? []).filter((a) => a.id !== 'open');
    const n = new Notification({ title: spec.title, body: spec.body, silent: urgency === 'low', urgency, timeoutType: spec.timeoutMs === 0 ? 'never' : 'default', actions: buttons.map((a) => ({ type: 'button' as const, text: a.label })) });
    n.on('click', () => {
      for (const l of this.listeners) l('open', spec);
    });
    n.on('action', (_event, index: number) => {
      const action = buttons[index];
      if (action) for (const l of this.listeners) l(action.id, spec);
    });
    n.show();
    return { via: 'electron', id: null };
  }

  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

export interface ScheduleShellOptions {
  runtime: AppRuntime;
  provider: (run: { provider: string; model: string; base_url: string | null } | undefined) => Promise<ProviderConfig> | ProviderConfig;
  /** Open what a notification announces. */
  open: (target: NotifyTarget) => void;
  /** Tray items changed. */
  changed: () => void;
  /** Stops the runs the host drives (the person's and background wakes). */
  stopHostRuns: () => Promise<void>;
  tickMs?: number;
  onError?: (err: unknown) => void;
}

const short = (s: string, n = 40) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

export class ScheduleShell {
  readonly notifier: Notifier;
  private ticker: ScheduleTicker;
  private readonly offAction: () => void;
  private readonly actions: ActionListener;
  private readonly offStore: () => void;
  private readonly offRuns: () => void;
  private fireControllers = new Set<AbortController>();

  constructor(private readonly opts: ScheduleShellOptions) {
    // The runtime's one notifier (the desktop app gives it an ElectronNotifier).
    this.notifier = opts.runtime.notifier;
    this.offAction = this.notifier.onAction((action, spec) => action === 'open' && spec.target && spec.target.kind !== 'schedule' && opts.open(spec.target));
    // A reminder's buttons (and its click) act through the schedule service; Open shows the reminder's conversation.
    this.actions = listenForActions(this.notifier, opts.runtime.schedules, {
      open: (t) => opts.open({ kind: 'schedule', id: t.scheduleId }),
      onActed: () => opts.changed(),
      ...(opts.onError ? { onError: opts.onError } : {}),
    });
    this.ticker = this.makeTicker();
    // Another process (a `deskhand fire`, the CLI) changed schedules: the tray shows it.
    this.offStore = opts.runtime.records.onExternalChange(() => opts.changed());
    // A tool call here (add_reminder, cancel_trigger…) changed them.
    this.offRuns = opts.runtime.onEvent((e) => {
      if (e.type === 'tool.result' || e.type === 'run.finished') opts.changed();
    });
  }

  private makeTicker(): ScheduleTicker {
    const { runtime } = this.opts;
    return new ScheduleTicker(
      runtime,
      { notifier: this.notifier, provider: this.opts.provider },
      { ...(this.opts.tickMs ? { intervalMs: this.opts.tickMs } : {}), onFire: () => this.opts.changed(), ...(this.opts.onError ? { onError: this.opts.onError } : {}) },
    );
  }

  start(): this {
    this.ticker.start();
    return this;
  }

  /** The tray's schedule items. */
  menuItems(): MenuItemConstructorOptions[] {
    const s = this.opts.runtime.schedules;
    const live = s.list({ live: true });
    const reminders = live.filter((r) => r.kind === 'reminder').slice(0, 5);
    const triggers = live.filter((r) => r.kind === 'trigger').slice(0, 5);
    const items: MenuItemConstructorOptions[] = [];
    const when = (r: ScheduleRow) => (r.next_at === null ? r.status : displayTime(r.next_at, r.tz).replace(/ \(.*\)$/, ''));
    for (const r of reminders) {
      items.push({ label: `Reminder ${when(r)} — ${short(r.text)}`, enabled: false });
      items.push({ label: `Snooze 10 min: ${short(r.text)}`, click: () => void s.snooze(r.id, 10).then(() => this.opts.changed()) });
      items.push({ label: `Dismiss: ${short(r.text)}`, click: () => void s.cancel(r.id).then(() => this.opts.changed()) });
    }
    for (const r of triggers) {
      items.push({ label: `Scheduled ${r.status === 'paused' ? '(paused)' : when(r)} — ${short(r.text)}`, enabled: false });
      items.push({ label: `Run now: ${short(r.text)}`, click: () => void this.runNow(r.id) });
      items.push(
        r.status === 'paused'
          ? { label: `Resume: ${short(r.text)}`, click: () => void s.resume(r.id).then(() => this.opts.changed()) }
          : { label: `Pause: ${short(r.text)}`, click: () => void s.pause(r.id).then(() => this.opts.changed()) },
      );
    }
    if (items.length === 0) items.push({ label: 'Nothing scheduled', enabled: false });
    return items;
  }

  /** "Run now" from the tray: fires the trigger at once (claimed like any fire). */
  async runNow(id: string): Promise<void> {
    const controller = new AbortController();
    this.fireControllers.add(controller);
    try {
      const { runtime } = this.opts;
      await runScheduleNow(runtime, id, { notifier: this.notifier, provider: this.opts.provider, signal: controller.signal });
    } catch (err) {
      this.opts.onError?.(err);
    } finally {
      this.fireControllers.delete(controller);
      this.opts.changed();
    }
  }

  /** "Stop all runs": the host's runs, fires started here ("Run now", the ticker). */
  async stopAll(): Promise<void> {
    for (const c of this.fireControllers) c.abort();
    await this.ticker.stop();
    this.ticker = this.makeTicker();
    await this.opts.stopHostRuns();
    this.ticker.start();
    this.opts.changed();
  }

  async stop(): Promise<void> {
    this.offAction();
    this.actions.off();
    this.offStore();
    this.offRuns();
    for (const c of this.fireControllers) c.abort();
    await this.ticker.stop();
  }
}
