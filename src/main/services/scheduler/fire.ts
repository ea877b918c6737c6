/**
 * Firing a reminder or trigger — the schedule service's own work, whoever asks (`deskhand fire ID` run by the OS job,
 * the in-app ticker, "Run now"). One order everywhere: claim the slot in the store (unique per schedule and due time,
 * so nothing fires twice), advance the schedule (one-shot: done; recurring: the next cron slot, or expired after 7
 * days) and arm its next OS job, then ring or wake: a reminder rings as a notification (its buttons act through
 * `ScheduleService.act`); a trigger wakes its conversation through the host's `Waker` — the one thing hosts supply — and
 * a run that parks on an approval notifies the person. The end is recorded on the fire. A claim whose process died
 * before it finished is taken over by the next process that recovers (`recoverClaims`), so a crash between claim and
 * run still fires once.
 */
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { NotificationSpec, Notifier } from '../notify';
import { notificationLine } from '../notify';
import { isSameProcess, selfIdentity } from '../processes/proc-info';
import type { FireRow, FireStatus, ScheduleRow } from '../store/modules/schedule';
import { REMINDER_ACTIONS } from './actions';
import type { ScheduleService } from './schedules';
import { cronNext, cronOf, cronPeriodMs, displayTime, jitterMs } from './when';

/** A fire the OS ran early (minute-grained clocks) waits out at most this long; further out it re-arms instead. */
export const EARLY_WAIT_MS = 150_000;

/** What a woken run came to. */
export interface WakeResult {
  status: string;
  runId: string;
  error?: string | null | undefined;
  /** The requests a parked run waits for, the first one described (never its arguments). */
  approvalIds: string[];
  waiting?: { id: string; kind: string; tool: string; risk: string } | null | undefined;
}

/**
 * How a host wakes a trigger's conversation: the runtime it drives, the provider of the conversation's last run.
 * Throws a `conflict` DeskhandError when the conversation is busy; returns null when the conversation is gone.
 */
export interface Waker {
  wake(conversationId: string, message: string, opts: { signal?: AbortSignal | undefined; onRunStarted(runId: string): void }): Promise<WakeResult | null>;
}

export interface FireContext {
  notifier: Notifier;
  /** What a notification and the fire's record are redacted with. */
  redactor: { redact(text: string): string };
  /** The host's waker, or a function that makes it on the first fire that must start a run (`deskhand fire`). */
  waker: Waker | (() => Promise<Waker>);
  /** `os` (deskhand fire), `ticker`, `now` (run now), `recover`. */
  via: string;
  signal?: AbortSignal | undefined;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface FireOutcome {
  status: FireStatus | 'nothing' | 'early' | 'taken';
  scheduleId: string;
  fireId?: string;
  runId?: string;
  detail: string;
}

export const claimer = () => `${selfIdentity().pid}:${selfIdentity().start}`;

function claimerAlive(by: string): boolean {
  const i = by.indexOf(':');
  return isSameProcess(Number(by.slice(0, i)), by.slice(i + 1));
}

const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), done()), { once: true });
  });

/** Claims and runs the due fire of `scheduleId`. `force`: run now, whatever its next time (the tray's "Run now"). */
export async function fireSchedule(schedules: ScheduleService, scheduleId: string, ctx: FireContext, opts: { force?: boolean } = {}): Promise<FireOutcome> {
  const now = ctx.now ?? Date.now;
  let row = schedules.get(scheduleId);
  if (!row) return { status: 'nothing', scheduleId, detail: `No reminder or trigger ${scheduleId} (cancelled and removed, or another data folder).` };
  const firable = row.status === 'active' || (opts.force && row.status === 'paused');
  if (!firable || (row.next_at === null && !opts.force)) return { status: 'nothing', scheduleId, detail: `${scheduleId} is ${row.status}; nothing to fire.` };
  let due = opts.force ? now() : row.next_at!;
  if (!opts.force && due > now()) {
    if (due - now() > EARLY_WAIT_MS) {
      // A job from before a snooze or an edit: the row moved on. Make sure the right job exists and stop.
      if (ctx.via === 'os') await schedules.arm(row);
      return { status: 'early', scheduleId, detail: `${scheduleId} is due ${displayTime(due, row.tz)}; not yet.` };
    }
    await (ctx.sleep ?? ((ms) => sleepFor(ms, ctx.signal)))(due - now());
    row = schedules.get(scheduleId);
    if (!row || row.status !== 'active' || row.next_at === null) return { status: 'nothing', scheduleId, detail: `${scheduleId} changed while waiting; nothing to fire.` };
    due = row.next_at;
    if (due > now() + 1000) return { status: 'early', scheduleId, detail: `${scheduleId} moved to ${displayTime(due, row.tz)}.` };
  }
  const t = now();
  const stale = !!row.expires_at && t >= row.expires_at;
  let coalesced = 1;
  if (row.cron && !opts.force) {
    // Slots missed while nothing could fire (machine asleep, app closed without an OS job) fire once, with a count.
    const slots = cronOf(row.cron, row.tz).nextRuns(1000, new Date(due));
    coalesced = 1 + slots.filter((s) => s.getTime() <= t).length;
  }
  const fire = schedules.rows.claim(scheduleId, due, claimer(), ctx.via, coalesced, stale);
  if (!fire) return { status: 'taken', scheduleId, detail: `The fire of ${scheduleId} due ${displayTime(due, row.tz)} was claimed by another process.` };
  const oldJob = row;
  const advanced = advance(schedules, row, t, stale, opts.force === true);
  // The job of this slot goes (removing the job that is running us is a no-op); the next slot gets a job of its own.
  await schedules.disarm(oldJob);
  if (advanced.status === 'active' && advanced.next_at !== null) await schedules.arm(schedules.get(scheduleId)!);
  return executeFire(schedules, fire, schedules.get(scheduleId)!, ctx);
}

function advance(schedules: ScheduleService, row: ScheduleRow, t: number, stale: boolean, forced: boolean): ScheduleRow {
  const rows = schedules.rows;
  if (forced && row.status === 'paused') return rows.update(row.id, { last_fired_at: t })!;
  if (!row.cron) return forced && row.next_at !== null && row.next_at > t ? rows.update(row.id, { last_fired_at: t })! : rows.update(row.id, { status: 'done', next_at: null, last_fired_at: t })!;
  if (stale) return rows.update(row.id, { status: 'expired', next_at: null, last_fired_at: t })!;
  const slot = cronNext(row.cron, row.tz, t);
  const next = slot === null ? null : slot + jitterMs(row.id, slot, { recurring: true, periodMs: cronPeriodMs(row.cron, row.tz, t) });
  return rows.update(row.id, { next_at: next, status: next === null ? 'done' : 'active', last_fired_at: t })!;
}

/** The wake-up message of a trigger: the prompt in an envelope saying what fired, how many fires it stands for, and staleness. */
export function fireMessage(row: ScheduleRow, fire: FireRow): string {
  const attrs = [`id="${row.id}"`, `due="${new Date(fire.due_at).toISOString()}"`];
  if (row.cron) attrs.push(`cron="${row.cron}"`);
  if (fire.coalesced > 1) attrs.push(`coalescedCount="${fire.coalesced}"`);
  if (fire.stale) attrs.push('stale="true"');
  const notes: string[] = [];
  if (fire.coalesced > 1) notes.push(`${fire.coalesced} scheduled fires were missed while nothing could run (the machine slept or Deskhand was closed); they fire once, now.`);
  if (fire.stale) notes.push('This recurring trigger is over 7 days old: this is its last fire and it is now deleted. Call register_trigger again with the same cron and prompt to keep it.');
  return `[Deskhand: scheduled prompt ${row.id} fired at ${displayTime(Date.now(), row.tz)}]\n<scheduled-fire ${attrs.join(' ')}>\n${row.text}\n</scheduled-fire>${notes.length ? `\n${notes.join('\n')}` : ''}`;
}

async function notifySafely(ctx: FireContext, spec: NotificationSpec): Promise<string> {
  try {
    const r = await ctx.notifier.notify(spec);
    return `notified via ${r.via}`;
  } catch (err) {
    return `notification failed: ${errorMessage(err)}`;
  }
}

/** Runs a claimed fire and records how it ended. */
export async function executeFire(schedules: ScheduleService, fire: FireRow, row: ScheduleRow, ctx: FireContext): Promise<FireOutcome> {
  const rows = schedules.rows;
  const redact = (s: string) => ctx.redactor.redact(s);
  const end = (status: FireStatus, detail: string, runId?: string): FireOutcome => {
    rows.setFire(fire.id, { status, detail, finished_at: Date.now(), ...(runId ? { run_id: runId } : {}) });
    return { status, scheduleId: row.id, fireId: fire.id, ...(runId ? { runId } : {}), detail };
  };
  if (row.kind === 'reminder') {
    const how = await notifySafely(ctx, {
      title: 'Reminder',
      body: notificationLine(redact(row.text)),
      urgency: 'normal',
      category: 'deskhand.reminder',
      actions: [...REMINDER_ACTIONS],
      target: { kind: 'schedule', id: row.id },
      tag: row.id,
      timeoutMs: 0,
    });
    return end(how.startsWith('notified') ? 'notified' : 'failed', how);
  }
  const convId = row.conversation_id;
  let runId: string | undefined;
  try {
    if (!convId) return end('failed', `The conversation of ${row.id} no longer exists.`);
    // Only a trigger needs the waker (made here when the host gave it lazily, as `deskhand fire` does).
    const waker = typeof ctx.waker === 'function' ? await ctx.waker() : ctx.waker;
    const outcome = await waker.wake(convId, fireMessage(row, fire), {
      signal: ctx.signal,
      onRunStarted: (id) => {
        if (runId) return;
        runId = id;
        rows.setFire(fire.id, { run_id: id });
      },
    });
    if (!outcome) return end('failed', `The conversation of ${row.id} no longer exists.`);
    runId = outcome.runId;
    if (outcome.status === 'parked') {
      const waiting = outcome.waiting;
      const how = await notifySafely(ctx, {
        title: 'A scheduled prompt needs your approval',
        body: waiting ? parkedNotice(waiting) : 'Open Deskhand to see what it waits for.',
        urgency: 'critical',
        category: 'deskhand.approval',
        actions: [{ id: 'open', label: 'Open approval' }],
        ...(waiting ? { target: { kind: 'approval' as const, id: waiting.id } } : {}),
        timeoutMs: 0,
      });
      return end('parked', `run parked waiting for ${outcome.approvalIds.join(', ')}; ${how}`, runId);
    }
    if (outcome.status === 'finished') {
      const how = await notifySafely(ctx, {
        title: 'A scheduled prompt ran',
        body: 'Open the conversation in Deskhand to see what it did.',
        urgency: 'low',
        category: 'deskhand.schedule',
        actions: [{ id: 'open', label: 'Open' }],
        target: { kind: 'conversation', id: convId },
      });
      return end('ran', `run finished; ${how}`, runId);
    }
    await notifySafely(ctx, { title: 'A scheduled prompt failed', body: notificationLine(redact(outcome.error ?? outcome.status)), urgency: 'normal', category: 'deskhand.schedule', target: { kind: 'conversation', id: convId } });
    return end('failed', `run ${outcome.status}: ${redact(outcome.error ?? '')}`, runId);
  } catch (err) {
    if (DeskhandError.isInstance(err) && err.code === 'conflict' && !runId) {
      // The conversation is busy: try again in a minute (a new slot, so a new claim).
      const retry = Date.now() + 60_000;
      const cur = rows.get(row.id)!;
      // "Run now" only reports it; a due fire comes back in a minute.
      if (fire.via !== 'now' && (!cur.cron || (cur.next_at ?? Infinity) > retry)) {
        rows.update(row.id, { status: 'active', next_at: retry });
        await schedules.arm(rows.get(row.id)!);
      }
      return end('busy', fire.via === 'now' ? errorMessage(err) : `${errorMessage(err)} Retrying at ${displayTime(retry, row.tz)}.`);
    }
    return end('failed', redact(errorMessage(err)), runId);
  }
}

/**
 * Takes over claims whose process died before recording an end, and finishes them: a claim with no run yet runs now
 * (once: the take-over is itself a compare-and-set); one whose run had started is left to the runtime's crash
 * recovery of that run and recorded as interrupted.
 */
export async function recoverClaims(schedules: ScheduleService, ctx: FireContext): Promise<FireOutcome[]> {
  const rows = schedules.rows;
  const out: FireOutcome[] = [];
  for (const fire of rows.openClaims()) {
    if (fire.claimed_by === claimer() || claimerAlive(fire.claimed_by)) continue;
    if (!rows.takeOver(fire.id, fire.claimed_by, claimer())) continue;
    const row = rows.get(fire.schedule_id);
    if (!row) continue;
    if (fire.run_id) {
      rows.setFire(fire.id, { status: 'interrupted', detail: 'Deskhand stopped while the woken run was going; the run was recovered as interrupted.', finished_at: Date.now() });
      out.push({ status: 'interrupted', scheduleId: row.id, fireId: fire.id, runId: fire.run_id, detail: 'interrupted' });
      continue;
    }
    out.push(await executeFire(schedules, { ...fire, claimed_by: claimer() }, row, { ...ctx, via: 'recover' }));
  }
  return out;
}

/** Claims left open by processes that are gone (for doctor). */
export function staleClaims(schedules: ScheduleService): FireRow[] {
  return schedules.rows.openClaims().filter((f) => f.claimed_by !== claimer() && !claimerAlive(f.claimed_by));
}

/**
 * The body of "A scheduled prompt needs your approval": what waits, and what to do, in words. No id: the person types
 * one only in a terminal, where `deskhand runs list` shows it next to the request.
 */
export function parkedNotice(waiting: { kind: string; tool: string; risk: string }): string {
  const verb = waiting.kind === 'approval' ? 'Approve or deny' : 'Answer';
  return `${verb}: ${waiting.tool} (${waiting.risk}). Open Deskhand to ${waiting.kind === 'approval' ? 'decide' : 'answer'}. Without the app: \`deskhand runs list\` in a terminal shows the request and the id to type after \`deskhand runs ${waiting.kind === 'approval' ? 'approve' : 'answer'}\`.`;
}
