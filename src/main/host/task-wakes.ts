/**
 * Wake-ups: when a background task ends while its conversation is idle (no running or parked run), the conversation
 * gets a new turn with the result, as a user-role message from Deskhand, on the provider and model of its last run.
 * Hosts that can run turns (the app service, the CLI while it waits) start one of these. A claim in the store makes
 * sure only one process delivers each result, and a result reported by wait_tasks is never delivered again.
 */
import { DeskhandError } from '../../shared/errors';
import type { RunEvent } from '../../shared/events';
import type { RunOutcome } from '../runtime/runtime';
import type { AppRuntime as Runtime } from './open-runtime';
import { wrapUntrusted } from '../runtime/untrusted';
import type { ProviderConfig } from '../services/providers/providers';
import type { RunRow } from '../services/store/store';
import type { TaskRow } from '../services/tasks/task-store';
import { parseJson, type WaitProgress } from '../services/tasks/task-text';

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

const WAKE_TRAILER =
  'This message comes from Deskhand, not from the person: background work this conversation started has ended. Continue the task with this result.';
const IDENTICAL_NOTICE = 'Every check returned the same exit code and output: test the check command itself before waiting again.';
const WAKE_SOURCE = 'background task output';

/** The wake-up message for ended tasks: a marked header, and the details (command output) as untrusted data. */
export function wakeMessage(runtime: Runtime, tasks: readonly TaskRow[]): string {
  const parts = tasks.map((task) => {
    const header =
      task.kind === 'wait_for'
        ? task.status === 'finished'
          ? `[wait_for ${task.id}: the condition holds]`
          : `[wait_for ${task.id} ${task.status === 'timed_out' ? 'timed out' : task.status}]`
        : task.kind === 'job_batch'
          ? `[job batch ${task.id} ${task.status}]`
          : task.kind === 'question'
            ? `[question ${task.id} ${task.status === 'finished' ? 'answered' : task.status}]`
            : `[background task ${task.id} ${task.status}]`;
    const identical = task.kind === 'wait_for' && task.status === 'timed_out' && parseJson<WaitProgress>(task.progress, { checks: 0, lastExit: null, lastOutput: '', identical: false, recent: [] }).identical;
    const notice = identical ? `\n${IDENTICAL_NOTICE}` : '';
    return `${header} ${task.title.slice(0, 200)}${notice}\n${wrapUntrusted(WAKE_SOURCE, runtime.tasks.describe(task))}`;
  });
  return `${parts.join('\n\n')}\n\n${WAKE_TRAILER}`;
}

export interface ParsedWakeTask {
  id: string;
  kind: 'command' | 'job_batch' | 'wait_for' | 'question';
  /** In plain words: "Background task finished", "Wait finished: the condition holds", "Job batch failed"… */
  headline: string;
  title: string;
  output: string;
  notice: string | null;
}

const WAKE_PART = new RegExp(
  String.raw`\[(background task|job batch|wait_for|question) ((?:cmd|jobs|wait|ask)_[0-9a-f]{8})(: the condition holds| [a-z_ ]+)\] ((?:(?!<untrusted )[\s\S])*?)\n` +
    String.raw`<untrusted source="${WAKE_SOURCE}" nonce="([0-9a-f]{16})">\n([\s\S]*?)\n</untrusted nonce="\5">(?:\n\n|$)`,
  'y',
);

/**
 * The other half of wakeMessage: a stored user-role message that is exactly a wake-up (every part a marked header
 * with its enveloped details, then the trailer) parses into its tasks; anything else is the person's own text (null).
 * Kept beside wakeMessage so the two cannot drift apart.
 */
export function parseWakeMessage(text: string): ParsedWakeTask[] | null {
  const tail = `\n\n${WAKE_TRAILER}`;
  if (!text.endsWith(tail)) return null;
  const body = `${text.slice(0, -tail.length)}`;
  const tasks: ParsedWakeTask[] = [];
  const re = new RegExp(WAKE_PART.source, 'y');
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const m = re.exec(body);
    if (!m) return null;
    const [, family, id, state, head, , output] = m as unknown as [string, string, string, string, string, string, string];
    const notice = head.endsWith(`\n${IDENTICAL_NOTICE}`) ? IDENTICAL_NOTICE : null;
    const title = notice ? head.slice(0, -(IDENTICAL_NOTICE.length + 1)) : head;
    const status = state.startsWith(':') ? state.slice(2) : state.trim();
    const kind = family === 'wait_for' ? 'wait_for' : family === 'job batch' ? 'job_batch' : family === 'question' ? 'question' : 'command';
    const headline =
      kind === 'wait_for'
        ? state.startsWith(':')
          ? 'Wait finished: the condition holds'
          : `Wait ${status}`
        : kind === 'question'
          ? `Question ${status}`
          : `${kind === 'job_batch' ? 'Job batch' : 'Background task'} ${status}`;
    tasks.push({ id, kind, headline, title, output, notice });
    at = re.lastIndex;
  }
  return tasks.length ? tasks : null;
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
    if (!this.runtime.store.isOpen) {
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
    const store = this.runtime.store;
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
