/**
 * Wake-ups: when a background task ends while its conversation is idle (no running or parked run), the conversation
 * gets a new turn with the result, as a user-role message from Deskhand, on the provider and model of its last run.
 * Hosts that can run turns (the app service, the CLI while it waits) start one of these. A claim in the store makes
 * sure only one process delivers each result, and a result reported by wait_tasks is never delivered again.
 */
import { DeskhandError } from '../../../shared/errors';
import type { RunEvent } from '../../../shared/events';
import type { RunOutcome } from '../../runtime/runtime';
import type { AppRuntime as Runtime } from '../assembly/open-runtime';
import type { ProviderConfig } from '../../services/providers/providers';
import type { TaskRow } from '../../services/tasks/task-store';
import { wakeMessage } from '../assembly/wake-message';
import { type RunRow } from '../../runtime/records';

export { parseWakeMessage, wakeMessage, type ParsedWakeTask } from '../assembly/wake-message';

export interface TaskWakesOptions {
  runtime: Runtime;
  /** The provider for a wake-up, from the conversation's last run (keys from the host: keyring, env). */
  provider(lastRun: RunRow): Promise<ProviderConfig> | ProviderConfig;
  /** Which conversations this host wakes (the CLI wakes only its own). Default: all. */
  accepts?(conversationId: string): boolean;
  /** Runs the turn; default `runtime.wake` unattended (parks on approvals). */
  run?(conversationId: string, message: string, provider: ProviderConfig, signal: AbortSignal): Promise<RunOutcome>;
  onEvent?(event: RunEvent): void;
  onOutcome?(outcome: RunOutcome): void;
  onError?(error: unknown, conversationId: string): void;
  /** How often the store is looked at for results another process wrote (job batches). Default 1 s. */
  pollMs?: number;
}


export class TaskWakes {
  private readonly runtime: Runtime;
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly offs: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Conversations whose provider could not be set up, and until when they are left alone (no retry storm). */
  private readonly backoff = new Map<string, number>();

  constructor(private readonly opts: TaskWakesOptions) {
    this.runtime = opts.runtime;
  }

  start(): this {
    const tasks = this.runtime.tasks;
    this.offs.push(
      tasks.onEvent((e) => {
        if (e.type === 'task.changed' && e.task.status !== 'running') this.schedule();
      }),
      this.runtime.onEvent((e) => {
        if (e.type === 'run.finished') this.schedule();
      }),
    );
    tasks.watch(this.opts.pollMs ?? 1_000);
    this.timer = setInterval(() => this.schedule(), this.opts.pollMs ?? 1_000);
    this.timer.unref();
    this.schedule();
    return this;
  }

  /** Delivers what can be delivered now (also called on every change). */
  schedule(): void {
    if (this.stopped) return;
    if (!this.runtime.records.isOpen) {
      void this.stop();
      return;
    }
    if (this.flushing) {
      this.again = true;
      return;
    }
    this.flushing = this.flush()
      .catch((err: unknown) => this.opts.onError?.(err, ''))
      .finally(() => {
        this.flushing = null;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
  }

  private async flush(): Promise<void> {
    const store = this.runtime.records;
    const rows = this.runtime.tasks.rows;
    const byConversation = new Map<string, TaskRow[]>();
    for (const task of rows.tasksToNotify()) {
      if (this.opts.accepts && !this.opts.accepts(task.conversation_id)) continue;
      byConversation.set(task.conversation_id, [...(byConversation.get(task.conversation_id) ?? []), task]);
    }
    for (const [conversationId, tasks] of byConversation) {
      if (this.stopped || this.inFlight.has(conversationId) || (this.backoff.get(conversationId) ?? 0) > Date.now()) continue;
      if (store.activeRunForConversation(conversationId)) continue; // busy: delivered when its run ends
      const lastRun = store.latestRunForConversation(conversationId);
      const claimed = rows.claimNotifications(tasks.map((t) => t.id));
      if (claimed.length === 0 || !lastRun) continue;
      const mine = tasks.filter((t) => claimed.includes(t.id));
      let provider: ProviderConfig;
      try {
        provider = await this.opts.provider(lastRun);
      } catch (err) {
        // No key for it in this host: leave the results for a host that has one (or the next start).
        rows.unclaimNotifications(claimed);
        this.backoff.set(conversationId, Date.now() + 60_000);
        this.opts.onError?.(err, conversationId);
        continue;
      }
      const message = wakeMessage(this.runtime, mine);
      const controller = new AbortController();
      const run = this.opts.run
        ? this.opts.run(conversationId, message, provider, controller.signal)
        : this.runtime.wake(conversationId, message, {
            provider,
            interactive: false,
            signal: controller.signal,
            untrusted: true,
            ...(this.opts.onEvent ? { onEvent: this.opts.onEvent } : {}),
          });
      const done = run
        .then((outcome) => this.opts.onOutcome?.(outcome))
        .catch((err: unknown) => {
          if (DeskhandError.isInstance(err) && err.code === 'conflict') rows.unclaimNotifications(claimed);
          this.opts.onError?.(err, conversationId);
        })
        .finally(() => {
          this.inFlight.delete(conversationId);
          this.schedule();
        });
      this.inFlight.set(conversationId, { controller, done });
    }
  }

  /** True while a wake-up turn runs or results of accepted conversations wait to be delivered. */
  busy(conversationId?: string): boolean {
    if (conversationId ? this.inFlight.has(conversationId) : this.inFlight.size > 0) return true;
    return this.runtime.tasks.rows.tasksToNotify().some((t) => (conversationId ? t.conversation_id === conversationId : !this.opts.accepts || this.opts.accepts(t.conversation_id)));
  }

  /** Waits for the wake-up turns running now. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.flushing) {
      await Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
      if (this.flushing) await this.flushing;
    }
  }

  /** Stops delivering; running wake-up turns are stopped too. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.offs.splice(0)) off();
    if (this.timer) clearInterval(this.timer);
    for (const w of this.inFlight.values()) w.controller.abort();
    await Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
  }
}
