/**
 * The scheduler service: reminders and triggers kept in the store, each next fire held by the OS scheduler (`at` on
 * Linux, launchd on macOS, Task Scheduler on Windows) as a one-shot job that runs `deskhand fire ID`, so it fires with
 * the app closed. Tools reach it through `Schedules`; hosts construct `ScheduleService` (schedules.ts) and an
 * `OsScheduler` (os-schedulers.ts).
 */
import type { FireRow, ScheduleKind, ScheduleRow } from '../store/modules/schedule';

export type { FireRow, ScheduleKind, ScheduleRow, ScheduleStatus, FireStatus } from '../store/modules/schedule';
export { WhenError, parseWhen, displayTime, localZone, cronNext, jitterMs, type ResolvedWhen } from './when';
export { describeCron } from './cron-words';

/** At most this many active triggers per conversation. */
export const MAX_ACTIVE_TRIGGERS = 50;
/** Recurring triggers expire this long after they were made or last renewed. */
export const RECURRING_LIFETIME_MS = 7 * 86_400_000;

/** What runs at fire time: `deskhand fire ID --data-dir DIR`, as a program, its arguments and the environment it needs. */
/** How the host starts its CLI: the program and the arguments before `fire ID --data-dir DIR` (the host's, never the service's). */
export interface FireEntry {
  file: string;
  args: string[];
}

export interface FireCommand {
  file: string;
  args: string[];
  /** Variables the job sets (display, D-Bus session, data dir…): never credentials. */
  env: Record<string, string>;
}

/** An OS job that runs `deskhand fire` for this data dir. */
export interface OsJob {
  /** The backend's reference: the at job number, the launchd label, the task name. */
  ref: string;
  scheduleId: string;
  /** When it runs (epoch ms), where the backend says. */
  at: number | null;
}

/**
 * One-shot jobs on the OS scheduler. Each job runs the fire command for one schedule id at one time (the OS clock is
 * minute-grained; `deskhand fire` waits out the remaining seconds). `list` returns only jobs for this data dir.
 */
export interface OsScheduler {
  readonly name: 'at' | 'launchd' | 'schtasks' | 'systemd';
  /** null when it can take jobs; else why not (the in-app ticker fires then). */
  unavailable(): Promise<string | null>;
  install(scheduleId: string, at: number, command: FireCommand): Promise<string>;
  remove(ref: string): Promise<void>;
  list(): Promise<OsJob[]>;
}

export interface AddReminder {
  when: string;
  text: string;
  conversationId: string | null;
}

export interface RegisterTrigger {
  when?: string;
  cron?: string;
  prompt: string;
  conversationId: string;
}

export interface Scheduled {
  row: ScheduleRow;
  /** The resolved time echoed back, with its zone. */
  display: string;
  notes: string[];
  /** True when an existing recurring trigger with the same cron and prompt was renewed instead. */
  renewed?: boolean;
}

export interface DoctorReport {
  /** OS jobs for this data dir whose schedule is gone or not active. */
  jobsWithoutRows: OsJob[];
  /** Active schedules whose OS job is missing. */
  rowsWithoutJobs: ScheduleRow[];
  /** Claims whose process died before the fire finished. */
  staleClaims: FireRow[];
  repaired: boolean;
  backend: string;
  backendNote: string | null;
}

/** What the tools, the CLI, the tray and the UI call. */
export interface Schedules {
  addReminder(input: AddReminder): Promise<Scheduled>;
  registerTrigger(input: RegisterTrigger): Promise<Scheduled>;
  list(opts?: { kind?: ScheduleKind; conversationId?: string; live?: boolean }): ScheduleRow[];
  get(id: string): ScheduleRow | null;
  /** Cancels a live schedule and removes its OS job; false when there was none to cancel. */
  cancel(id: string, kind?: ScheduleKind): Promise<boolean>;
  pause(id: string): Promise<ScheduleRow>;
  resume(id: string): Promise<ScheduleRow>;
  /** Moves the next fire of a reminder or trigger to now + minutes. */
  snooze(id: string, minutes: number): Promise<ScheduleRow>;
  fires(scheduleId: string | null, limit?: number): FireRow[];
  /** The person's time zone. */
  zone(): string;
  describe(row: ScheduleRow): string;
}

/** Text for a notification: one line, at most `max` characters. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
