/**
 * register_trigger, list_triggers, cancel_trigger: this conversation runs again later with a prompt (one-shot `when`
 * or recurring `cron`), headless, with the app closed or open. A call that needs approval then parks and notifies.
 */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { ToolError } from '../../../shared/errors';
import { displayTime, MAX_ACTIVE_TRIGGERS, type ScheduleRow, type Schedules } from '../../services/scheduler';
import { asToolError, WHEN_HELP } from './reminders';

function triggerLine(r: ScheduleRow, now = Date.now()): string {
  const when = r.next_at === null ? r.status : displayTime(r.next_at, r.tz);
  const rec = r.cron ? `  cron "${r.cron}"  age ${Math.floor((now - r.renewed_at) / 86_400_000)} d, expires ${r.expires_at ? displayTime(r.expires_at, r.tz) : '-'}` : '  one-shot';
  const prompt = r.text.length > 120 ? `${r.text.slice(0, 119)}…` : r.text;
  return `${r.id}  ${r.status}  next ${when}${rec}\n  prompt: ${prompt}`;
}

export const createRegisterTrigger = (schedules: Schedules) =>
  defineTool({
    name: 'register_trigger',
    description: `Schedule yourself to wake up later and continue this exact conversation with \`prompt\` (a scheduled prompt), even when Deskhand is closed. Give \`when\` for one wake-up (${WHEN_HELP}) or \`cron\` for a recurring one (5 fields in the person's time zone: minute hour day-of-month month day-of-week, e.g. \`0 9 * * 1-5\`). Recurring triggers expire after 7 days unless registered again with the same cron and prompt (that renews them); fires missed while the machine slept run once, with a note. Times get a small deterministic shift so schedules do not all fire on the hour. At most ${MAX_ACTIVE_TRIGGERS} active per conversation. The woken run has no person watching: anything that needs approval parks and notifies them.`,
    params: z
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
        const lines = [r.renewed ? `Trigger ${r.row.id} renewed; next wake-up ${r.display}.` : `Trigger ${r.row.id} registered; next wake-up ${r.display}.`, ...r.notes];
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
    description: "List this conversation's pending wake triggers and scheduled prompts: id, next wake-up, cron, age and expiry, prompt.",
    params: z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'List scheduled wake-ups', icon: 'clock' },
    async execute(_args, ctx) {
      const rows = schedules.list({ kind: 'trigger', conversationId: ctx.conversationId, live: true });
      return { output: rows.length ? rows.map((r) => triggerLine(r)).join('\n---\n') : 'No pending triggers in this conversation.' };
    },
  });

export const createCancelTrigger = (schedules: Schedules) =>
  defineTool({
    name: 'cancel_trigger',
    description: 'Cancel a pending wake trigger or scheduled prompt by id (get the id from list_triggers first). Recurring ones stop for good.',
    params: z.object({ id: z.string().min(1).describe('The trigger id, e.g. trg_1a2b3c4d.') }).strict(),
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
