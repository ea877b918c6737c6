/** add_reminder, list_reminders, cancel_reminder: a note rung as a desktop notification at a time, app open or not. */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { displayTime, parseWhen, WhenError, type ScheduleRow, type Schedules } from '../../services/scheduler';

export const WHEN_HELP =
  'A duration (`30m`, `2h15m`, `90s`, `1d`), a clock time today (`18:00`, `6pm`), `tomorrow 09:30`, a weekday (`tue 20:00`, the next one), or an ISO date (`2026-08-25 20:00` in the person\'s time zone, or with `Z`/`+02:00`). Past times are refused.';

/** Errors the model can act on, as ToolError. */
export function asToolError(err: unknown): never {
  if (err instanceof WhenError) throw new ToolError(err.message);
  if (DeskhandError.isInstance(err)) throw new ToolError(err.message, err.code);
  throw err;
}

export function reminderLine(r: ScheduleRow): string {
  const when = r.next_at === null ? r.status : displayTime(r.next_at, r.tz);
  return `${r.id}  ${when}${r.status === 'paused' ? '  (paused)' : ''}  ${r.text}`;
}

export const createAddReminder = (schedules: Schedules) =>
  defineTool({
    name: 'add_reminder',
    description: `Remind the person of something at a time: a native desktop notification rings then, even when Deskhand is closed (the OS scheduler holds it). A reminder only notifies the person; it never runs you again (use register_trigger for that). \`when\`: ${WHEN_HELP} The answer echoes the resolved time with its time zone: check it is what was meant.`,
    params: () => z
      .object({
        when: z.string().min(1).describe('When to ring, e.g. `30m`, `18:00`, `tomorrow 09:30`, `tue 20:00`, `2026-08-25 20:00`.'),
        text: z.string().min(1).max(1000).describe('What to remind of, as the notification shows it.'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'public',
    presentation: {
      title: 'Set a reminder',
      icon: 'clock',
      summary: (a) => `${a.when}: ${a.text}`,
      // Before approval the person reads the time it resolves to, not the model's words for it.
      ask: (a) => {
        const r = parseWhen(a.when, { tz: schedules.zone() });
        return `Rings ${r.display} — ${r.understood}: “${a.text.length > 200 ? `${a.text.slice(0, 199)}…` : a.text}”`;
      },
    },
    async execute(args, ctx) {
      try {
        const r = await schedules.addReminder({ when: args.when, text: ctx.redact(args.text), conversationId: ctx.conversationId });
        const lines = [`Reminder ${r.row.id} set for ${r.display}.`, ...r.notes];
        if (!r.row.os_job) lines.push(`Note: ${r.row.os_note ?? 'no OS job holds it'} It rings only while Deskhand runs.`);
        return { output: lines.join('\n') };
      } catch (err) {
        return asToolError(err);
      }
    },
  });

export const createListReminders = (schedules: Schedules) =>
  defineTool({
    name: 'list_reminders',
    description: "List the person's pending reminders: id, when it rings (with time zone) and text.",
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: { title: 'List reminders', icon: 'clock' },
    async execute() {
      const rows = schedules.list({ kind: 'reminder', live: true });
      return { output: rows.length ? rows.map(reminderLine).join('\n') : 'No pending reminders.' };
    },
  });

export const createCancelReminder = (schedules: Schedules) =>
  defineTool({
    name: 'cancel_reminder',
    description: 'Cancel a pending reminder by id (get the id from list_reminders first). Its OS job is removed.',
    params: () => z.object({ id: z.string().min(1).describe('The reminder id, e.g. rem_1a2b3c4d.') }).strict(),
    risk: 'low-risk',
    disclosure: 'private',
    presentation: { title: 'Cancel a reminder', icon: 'clock', summary: (a) => a.id },
    async execute(args) {
      const row = schedules.get(args.id);
      if (!row || row.kind !== 'reminder') throw new ToolError(`No reminder ${args.id}. list_reminders shows the pending ones.`, 'not_found');
      if (!(await schedules.cancel(args.id, 'reminder'))) throw new ToolError(`Reminder ${args.id} is ${row.status}; there is nothing left to cancel.`, 'conflict');
      return { output: `Cancelled reminder ${args.id} (${row.text}).` };
    },
  });
