/**
 * register_trigger, list_triggers, cancel_trigger: this conversation runs again later with a prompt (one-shot `when`
 * or recurring `cron`), headless, with the app closed or open. A call that needs approval then parks and notifies.
 */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { ToolError } from '../../../shared/errors';
import { describeCron, displayTime, MAX_ACTIVE_TRIGGERS, type ScheduleRow, type Schedules } from '../../services/scheduler';
import { asToolError, WHEN_HELP } from './reminders';

/** A recurring trigger is stale once it outlived its 7 days, or its next fire falls after its expiry: that fire is its last. */
export function isStale(r: ScheduleRow, now = Date.now()): boolean {
  return !!r.cron && !!r.expires_at && (now >= r.expires_at || (r.next_at !== null && r.next_at >= r.expires_at));
}

/** The human-readable schedule: the cron in words, or the one wake-up's time. */
export function humanSchedule(r: ScheduleRow): string {
  return r.cron ? `${describeCron(r.cron)} (${r.tz})` : r.next_at !== null ? `once, ${displayTime(r.next_at, r.tz)}` : 'once';
}

/** One record as Spec II's list gives it: id, schedule in words, cron, next fire, recurring, age, stale, prompt. */
function triggerRecord(r: ScheduleRow, now = Date.now()): string {
  const next = r.next_at === null ? `none (${r.status})` : `${new Date(r.next_at).toISOString()} (${displayTime(r.next_at, r.tz)})${r.status === 'paused' ? ', paused' : ''}${r.status === 'active' && r.next_at < now - 60_000 ? ', overdue: missed while Deskhand and the OS job could not run; it fires once when they can' : ''}`;
  const lines = [
    `${r.id}  ${r.status}`,
    `  schedule: ${humanSchedule(r)}`,
    ...(r.cron ? [`  cron: ${r.cron}`] : []),
    `  next: ${next}`,
    `  recurring: ${r.cron ? 'yes' : 'no (one-shot: deleted after it fires)'}`,
    `  age: ${Math.floor((now - r.renewed_at) / 86_400_000)} d${r.cron ? `, expires ${r.expires_at ? displayTime(r.expires_at, r.tz) : 'never'}` : ''}`,
    `  stale: ${isStale(r, now) ? 'yes: over its 7 days, its next fire is its last (register_trigger again with the same cron and prompt renews it)' : 'no'}`,
    `  prompt: ${r.text.length > 120 ? `${r.text.slice(0, 119)}…` : r.text}`,
  ];
  return lines.join('\n');
}

export const createRegisterTrigger = (schedules: Schedules) =>
  defineTool({
    name: 'register_trigger',
    description: `Schedule yourself to wake up later and continue this exact conversation with \`prompt\` (a scheduled prompt), even when Deskhand is closed. Give \`when\` for one wake-up (${WHEN_HELP}) or \`cron\` for a recurring one (5 fields in the person's time zone: minute hour day-of-month month day-of-week, e.g. \`0 9 * * 1-5\`). Recurring triggers expire after 7 days unless registered again with the same cron and prompt (that renews them); fires missed while the machine slept run once, with a note. Times get a small deterministic shift so schedules do not all fire on the hour. At most ${MAX_ACTIVE_TRIGGERS} active per conversation. The woken run has no person watching: anything that needs approval parks and notifies them.`,
    params: () => z
      .object({
        when: z.string().min(1).optional().describe('One-shot: when to wake, e.g. `30m`, `tomorrow 09:00`.'),
        cron: z.string().min(1).optional().describe('Recurring: a 5-field cron expression, e.g. `*/30 * * * *`.'),
        prompt: z.string().min(1).describe('What the woken run should do: the message it starts with.'),
        conversation: z.string().optional().describe('Only this conversation can be woken; leave it out (it defaults to this conversation).'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'internal',
    effects: () => ({ wakesLater: true }),
    presentation: { title: 'Schedule a wake-up', icon: 'clock', summary: (a) => a.cron ?? a.when ?? '' },
    async execute(args, ctx) {
      if (args.conversation && args.conversation !== ctx.conversationId) {
        throw new ToolError(`A trigger can only wake the conversation it is registered from (${ctx.conversationId}); leave out "conversation".`);
      }
      try {
        const r = await schedules.registerTrigger({
          ...(args.when !== undefined ? { when: args.when } : {}),
          ...(args.cron !== undefined ? { cron: args.cron } : {}),
          prompt: args.prompt,
          conversationId: ctx.conversationId,
        });
        const lines = [r.renewed ? `Trigger ${r.row.id} renewed; next wake-up ${r.display}.` : `Trigger ${r.row.id} registered; next wake-up ${r.display}.`, `Schedule: ${humanSchedule(r.row)}.`, ...r.notes];
        if (!r.row.os_job) lines.push(`Note: ${r.row.os_note ?? 'no OS job holds it'} It fires only while Deskhand runs.`);
        return { output: lines.join('\n') };
      } catch (err) {
        return asToolError(err);
      }
    },
  });

export const createListTriggers = (schedules: Schedules) =>
  defineTool({
    name: 'list_triggers',
    description:
      "List this conversation's pending wake triggers and scheduled prompts, soonest first: id, the schedule in words, cron, next wake-up, whether it recurs, age and expiry, whether it is stale (a recurring one past its 7 days: its next fire is its last), prompt.",
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'List scheduled wake-ups', icon: 'clock' },
    async execute(_args, ctx) {
      const now = Date.now();
      const rows = schedules
        .list({ kind: 'trigger', conversationId: ctx.conversationId, live: true })
        .sort((a, b) => (a.next_at ?? Infinity) - (b.next_at ?? Infinity) || a.created_at - b.created_at);
      return { output: rows.length ? rows.map((r) => triggerRecord(r, now)).join('\n---\n') : 'No pending triggers in this conversation.' };
    },
  });

export const createCancelTrigger = (schedules: Schedules) =>
  defineTool({
    name: 'cancel_trigger',
    description: 'Cancel a pending wake trigger or scheduled prompt by id (get the id from list_triggers first). Recurring ones stop for good.',
    params: () => z.object({ id: z.string().min(1).describe('The trigger id, e.g. trg_1a2b3c4d.') }).strict(),
    risk: 'low-risk',
    disclosure: 'internal',
    presentation: { title: 'Cancel a wake-up', icon: 'clock', summary: (a) => a.id },
    async execute(args, ctx) {
      const row = schedules.get(args.id);
      if (!row || row.kind !== 'trigger' || row.conversation_id !== ctx.conversationId) throw new ToolError(`No trigger ${args.id} in this conversation. list_triggers shows them.`, 'not_found');
      if (!(await schedules.cancel(args.id, 'trigger'))) throw new ToolError(`Trigger ${args.id} is ${row.status}; there is nothing left to cancel.`, 'conflict');
      return { output: `Cancelled trigger ${args.id}.` };
    },
  });
