/**
 * ScheduleService: reminders and triggers in the store, each next fire armed as a one-shot OS job. Arming is best
 * effort: when the OS scheduler is missing or refuses, the row keeps `os_note` saying why and the in-app ticker fires
 * it while Deskhand runs. Firing (claim, advance, run, record) is fire.ts; the host supplies only how to wake.
 */
import { randomUUID } from 'node:crypto';
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { scheduleModule, type ScheduleKind, type ScheduleRow } from '../store/modules/schedule';
import {
  MAX_ACTIVE_TRIGGERS,
  RECURRING_LIFETIME_MS,
  type AddReminder,
  type DoctorReport,
  type FireEntry,
  type OsScheduler,
  type RegisterTrigger,
  type Scheduled,
  type Schedules,
} from './index';
import { cronNext, cronOf, cronPeriodMs, displayTime, jitterMs, localZone, parseWhen, WhenError } from './when';
import type { ActResult, ActsOnReminders, ReminderAction } from './actions';
import { fireCommand } from './os-schedulers';

export interface ScheduleServiceOptions {
  store: Store;
  dataDir: string;
  os: OsScheduler | null;
  /** How to wake: the host's CLI entry an OS job runs `fire ID` with (host/assembly/schedule-wiring.ts); read at each arming. */
  entry: () => FireEntry;
  zone?: () => string;
  now?: () => number;
}

export class ScheduleService implements Schedules, ActsOnReminders {
  readonly rows: ReturnType<typeof scheduleModule.queries>;
  private readonly now: () => number;
  private osNote: Promise<string | null> | null = null;

  constructor(private readonly opts: ScheduleServiceOptions) {
    this.rows = opts.store.module(scheduleModule);
    this.now = opts.now ?? Date.now;
  }

  get os(): OsScheduler | null {
    return this.opts.os;
  }

  zone(): string {
    return this.opts.zone?.() ?? localZone();
  }

  /** Why the OS scheduler cannot take jobs (null: it can). Asked once per service. */
  osUnavailable(): Promise<string | null> {
    if (!this.opts.os) return Promise.resolve('No OS scheduler is used (DESKHAND_OS_SCHEDULER=none); the in-app ticker fires schedules while Deskhand runs.');
    this.osNote ??= this.opts.os.unavailable().catch((err: unknown) => String(err));
    return this.osNote;
  }

  async addReminder(input: AddReminder): Promise<Scheduled> {
    const text = input.text.trim();
    if (!text) throw new WhenError('The reminder text is empty: say what to remind of.');
    if (text.length > 1000) throw new WhenError(`The reminder text has ${text.length} characters; keep it under 1000.`);
    const tz = this.zone();
    const when = parseWhen(input.when, { now: this.now(), tz });
    const now = this.now();
    const row = this.rows.insert({
      id: `rem_${randomUUID().slice(0, 8)}`,
      kind: 'reminder',
      conversation_id: input.conversationId,
      text,
      cron: null,
      tz,
      next_at: when.at,
      status: 'active',
      created_at: now,
      renewed_at: now,
      expires_at: null,
      os_backend: null,
      os_job: null,
      os_note: null,
      last_fired_at: null,
    });
    return { row: await this.arm(row), display: when.display, notes: when.notes };
  }

  async registerTrigger(input: RegisterTrigger): Promise<Scheduled> {
    const prompt = input.prompt.trim();
    if (!prompt) throw new WhenError('The prompt is empty: say what the woken run should do.');
    if (Buffer.byteLength(prompt) > 8192) throw new WhenError('The prompt is over 8 KB; shorten it (it is sent to the model as the wake-up message).');
    if ((input.when === undefined) === (input.cron === undefined)) throw new WhenError('Give exactly one of `when` (one-shot, e.g. `30m`, `tomorrow 09:00`) or `cron` (recurring, e.g. `0 9 * * 1-5`).');
    const tz = this.zone();
    const now = this.now();
    if (input.cron !== undefined) {
      const cron = input.cron.trim().replace(/\s+/g, ' ');
      cronOf(cron, tz);
      // The same cron and prompt in this conversation renews the live one (7 more days) instead of adding a second.
      const same = this.rows
        .list({ kind: 'trigger', conversationId: input.conversationId, live: true })
        .find((r) => r.cron === cron && r.text === prompt);
      if (same) {
        const renewed = this.rows.update(same.id, { renewed_at: now, expires_at: now + RECURRING_LIFETIME_MS })!;
        return { row: renewed, display: renewed.next_at ? displayTime(renewed.next_at, tz) : 'paused', notes: [`Renewed: it now expires ${displayTime(renewed.expires_at!, tz)}.`], renewed: true };
      }
    }
    this.checkLimit(input.conversationId);
    const id = `trg_${randomUUID().slice(0, 8)}`;
    let nextAt: number;
    let display: string;
    const notes: string[] = [];
    if (input.cron !== undefined) {
      const cron = input.cron.trim().replace(/\s+/g, ' ');
      const slot = cronNext(cron, tz, now);
      if (slot === null) throw new WhenError(`"${cron}" never fires again.`);
      nextAt = slot + jitterMs(id, slot, { recurring: true, periodMs: cronPeriodMs(cron, tz, now) });
      display = displayTime(nextAt, tz);
      notes.push(`Recurring; expires ${displayTime(now + RECURRING_LIFETIME_MS, tz)} unless registered again (same cron and prompt renews it).`);
    } else {
      const when = parseWhen(input.when!, { now, tz });
      nextAt = when.at + jitterMs(id, when.at, { recurring: false });
      display = displayTime(nextAt, tz);
      notes.push(...when.notes);
      if (nextAt !== when.at) notes.push(`Shifted ${Math.round((nextAt - when.at) / 1000)} s past the half hour so schedules do not all fire at once.`);
    }
    const row = this.rows.insert({
      id,
      kind: 'trigger',
      conversation_id: input.conversationId,
      text: prompt,
      cron: input.cron === undefined ? null : input.cron.trim().replace(/\s+/g, ' '),
      tz,
      next_at: nextAt,
      status: 'active',
      created_at: now,
      renewed_at: now,
      expires_at: input.cron === undefined ? null : now + RECURRING_LIFETIME_MS,
      os_backend: null,
      os_job: null,
      os_note: null,
      last_fired_at: null,
    });
    return { row: await this.arm(row), display, notes };
  }

  private checkLimit(conversationId: string): void {
    const n = this.rows.countActiveTriggers(conversationId);
    if (n >= MAX_ACTIVE_TRIGGERS) {
      throw new DeskhandError('usage', `This conversation already has ${n} active triggers (the limit is ${MAX_ACTIVE_TRIGGERS}). Cancel some with cancel_trigger (list_triggers shows them) first.`);
    }
  }

  /** Installs the OS job for the row's next fire (replacing an older one); records why not when it cannot. */
  async arm(row: ScheduleRow): Promise<ScheduleRow> {
    await this.disarm(row);
    if (row.status !== 'active' || row.next_at === null) return this.rows.get(row.id)!;
    const note = await this.osUnavailable();
    if (note || !this.opts.os) return this.rows.update(row.id, { os_backend: null, os_job: null, os_note: note })!;
    try {
      const ref = await this.opts.os.install(row.id, row.next_at, fireCommand(row.id, this.opts.dataDir, this.opts.entry()));
      return this.rows.update(row.id, { os_backend: this.opts.os.name, os_job: ref, os_note: null })!;
    } catch (err) {
      return this.rows.update(row.id, { os_backend: null, os_job: null, os_note: `${err instanceof Error ? err.message : String(err)}; the in-app ticker fires it while Deskhand runs.` })!;
    }
  }

  /** Removes the row's OS job, if any. */
  async disarm(row: ScheduleRow): Promise<void> {
    if (!row.os_job || !this.opts.os || row.os_backend !== this.opts.os.name) return;
    await this.opts.os.remove(row.os_job).catch(() => undefined);
    this.rows.update(row.id, { os_job: null, os_backend: null });
  }

  list(opts: { kind?: ScheduleKind; conversationId?: string; live?: boolean } = {}): ScheduleRow[] {
    return this.rows.list(opts);
  }

  get(id: string): ScheduleRow | null {
    return this.rows.get(id);
  }

  private live(id: string, kind?: ScheduleKind): ScheduleRow {
    const row = this.rows.get(id);
    const what = kind ?? 'reminder or trigger';
    if (!row || (kind && row.kind !== kind)) throw new DeskhandError('not_found', `No ${what} ${id}. List them with list_${kind ?? 'reminder'}s.`);
    if (row.status !== 'active' && row.status !== 'paused') throw new DeskhandError('conflict', `${row.kind === 'reminder' ? 'Reminder' : 'Trigger'} ${id} is ${row.status}; nothing is left to change.`);
    return row;
  }

  async cancel(id: string, kind?: ScheduleKind): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || (kind && row.kind !== kind)) return false;
    if (row.status !== 'active' && row.status !== 'paused') return false;
    await this.disarm(row);
    this.rows.update(id, { status: 'cancelled', next_at: null });
    return true;
  }

  async pause(id: string): Promise<ScheduleRow> {
    const row = this.live(id);
    await this.disarm(row);
    return this.rows.update(id, { status: 'paused' })!;
  }

  async resume(id: string): Promise<ScheduleRow> {
    const row = this.live(id);
    let next = row.next_at;
    if (row.cron) next = cronNext(row.cron, row.tz, this.now());
    else if (next !== null && next < this.now()) next = this.now();
    return this.arm(this.rows.update(id, { status: 'active', next_at: next })!);
  }

  async snooze(id: string, minutes: number): Promise<ScheduleRow> {
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 7 * 24 * 60) throw new DeskhandError('usage', 'Snooze for 1 minute to 7 days.');
    return this.snoozeUntil(id, this.now() + Math.round(minutes * 60_000));
  }

  private async snoozeUntil(id: string, at: number): Promise<ScheduleRow> {
    const row = this.rows.get(id);
    if (!row) throw new DeskhandError('not_found', `No reminder or trigger ${id}.`);
    // A reminder that already rang comes back for one more ring.
    return this.arm(this.rows.update(id, { status: 'active', next_at: at })!);
  }

  /**
   * Acts on a reminder's notification: Snooze arms it again (10 min, 1 h, tomorrow 09:00 in its zone), Dismiss marks
   * the fire that rang (a reminder not rung yet is cancelled), Open asks the host to show its conversation. Each is
   * recorded on the latest fire (`acted`, `acted_at`).
   */
  async act(id: string, action: ReminderAction): Promise<ActResult> {
    const row = this.rows.get(id);
    if (!row) throw new DeskhandError('not_found', `No reminder or trigger ${id} (cancelled and removed, or another data folder).`);
    const now = this.now();
    const [fire] = this.rows.fires(id, 1);
    const mark = (acted: string) => fire && this.rows.setFire(fire.id, { acted, acted_at: now });
    if (action === 'open') {
      mark('opened');
      return { scheduleId: id, action, message: `Opened ${id}.`, open: { scheduleId: id, conversationId: row.conversation_id } };
    }
    if (action === 'dismiss') {
      // A reminder still pending (snoozed, or dismissed before it rang) has nothing left to ring.
      if (row.kind === 'reminder') await this.cancel(id);
      mark('dismissed');
      return { scheduleId: id, action, message: `Dismissed ${id}.` };
    }
    const at = action === 'snooze-10' ? now + 10 * 60_000 : action === 'snooze-60' ? now + 60 * 60_000 : parseWhen('tomorrow 09:00', { now, tz: row.tz }).at;
    const snoozed = await this.snoozeUntil(id, at);
    const until = displayTime(snoozed.next_at!, snoozed.tz);
    mark(`snoozed until ${until}`);
    return { scheduleId: id, action, message: `Snoozed ${id} until ${until}.` };
  }

  fires(scheduleId: string | null, limit = 50) {
    return this.rows.fires(scheduleId, limit);
  }

  describe(row: ScheduleRow): string {
    const when = row.next_at === null ? row.status : displayTime(row.next_at, row.tz);
    const rec = row.cron ? `  cron "${row.cron}", expires ${row.expires_at ? displayTime(row.expires_at, row.tz) : 'never'}` : '';
    const os = row.os_job ? `  ${row.os_backend} job ${row.os_job}` : row.status === 'active' ? `  in-app ticker${row.os_note ? ` (${row.os_note})` : ''}` : '';
    return `${row.id}  ${row.status}  next ${when}${rec}${os}`;
  }

  /**
   * Compares OS jobs with rows. Jobs without an active row are removed, active rows without a job are armed again
   * (when `repair`). Stale claims are listed; the caller recovers them (it can run fires).
   */
  async doctor(repair: boolean, staleClaims: DoctorReport['staleClaims'] = []): Promise<DoctorReport> {
    const os = this.opts.os;
    const note = await this.osUnavailable();
    const report: DoctorReport = { jobsWithoutRows: [], rowsWithoutJobs: [], staleClaims, repaired: false, backend: os?.name ?? 'none', backendNote: note };
    if (!os || note) return report;
    const jobs = await os.list();
    const active = new Map(this.rows.list({ live: true }).filter((r) => r.status === 'active' && r.next_at !== null).map((r) => [r.id, r]));
    const held = new Set<string>();
    for (const job of jobs) {
      const row = active.get(job.scheduleId);
      if (row && row.os_job === job.ref && !held.has(row.id)) held.add(row.id);
      else report.jobsWithoutRows.push(job);
    }
    for (const row of active.values()) if (!held.has(row.id)) report.rowsWithoutJobs.push(row);
    if (repair) {
      for (const job of report.jobsWithoutRows) await os.remove(job.ref).catch(() => undefined);
      for (const row of report.rowsWithoutJobs) {
        this.rows.update(row.id, { os_job: null, os_backend: null });
        await this.arm(this.rows.get(row.id)!);
      }
      report.repaired = true;
    }
    return report;
  }
}

export { WhenError };
