/** The contract's `schedule` method for the UI hosts (desktop and web): the Schedule section's list and its buttons. */
import type { MethodResult, ParsedParams } from '../../../../shared/contract';
import { DeskhandError } from '../../../../shared/errors';
import type { ProviderConfig } from '../../../services/providers/providers';
import { displayTime, type ScheduleRow } from '../../../services/scheduler';
import type { AppRuntime } from '../../assembly/open-runtime';
import { runScheduleNow } from '../../background/schedule-fire';

/**
 * Who rings it, in words for the Reminders list: the system scheduler (with the app closed) or Deskhand itself (only
 * while it runs, and why). The job number is the CLI's (`deskhand schedule list`), not the person's.
 */
export function heldBy(r: Pick<ScheduleRow, 'status' | 'os_job' | 'os_backend' | 'os_note'>): string {
  if (r.status !== 'active') return r.status;
  if (r.os_job) return `Rings even when Deskhand is closed (the system scheduler${r.os_backend ? `, ${r.os_backend}` : ''})`;
  const why = r.os_note?.replace(/;? ?the in-app ticker fires it while Deskhand runs\.?$/, '').trim();
  return `Rings only while Deskhand runs${why ? `: ${why}` : ''}`;
}

export async function scheduleMethod(
  runtime: AppRuntime,
  p: ParsedParams<'schedule'>,
  provider: (run: { provider: string; model: string; base_url: string | null }) => Promise<ProviderConfig>,
): Promise<MethodResult<'schedule'>> {
  const s = runtime.schedules;
  let message: string | null = null;
  if (p.action !== 'list') {
    if (!p.id) throw new DeskhandError('usage', `${p.action} needs the id of a reminder or trigger.`);
    if (!s.get(p.id)) throw new DeskhandError('not_found', `No reminder or trigger ${p.id}.`);
    if (p.action === 'cancel') message = (await s.cancel(p.id)) ? `Cancelled ${p.id}.` : `${p.id} had nothing left to cancel.`;
    else if (p.action === 'pause') message = `Paused ${(await s.pause(p.id)).id}.`;
    else if (p.action === 'resume') message = `Resumed ${(await s.resume(p.id)).id}.`;
    else if (p.action === 'snooze') message = `Snoozed ${(await s.snooze(p.id, p.minutes ?? 10)).id} for ${p.minutes ?? 10} min.`;
    else {
      const o = await runScheduleNow(runtime, p.id, { provider: (run) => (run ? provider(run) : Promise.reject(new DeskhandError('usage', 'The conversation has no earlier run to take a provider from.'))) });
      message = `${p.id}: ${o.status} — ${o.detail}`;
    }
  }
  const rows = s.list({});
  const recent = rows.filter((r) => r.status === 'active' || r.status === 'paused' || Date.now() - (r.last_fired_at ?? r.created_at) < 7 * 86_400_000);
  return {
    items: recent.slice(0, 200).map((r) => ({
      id: r.id,
      kind: r.kind,
      status: r.status,
      text: r.text,
      cron: r.cron,
      conversationId: r.conversation_id,
      nextAt: r.next_at,
      nextAtText: r.next_at === null ? null : displayTime(r.next_at, r.tz),
      expiresAt: r.expires_at,
      heldBy: heldBy(r),
    })),
    fires: s.fires(null, 100).map((f) => ({ id: f.id, scheduleId: f.schedule_id, dueAt: f.due_at, firedAt: f.claimed_at, status: f.status, runId: f.run_id, via: f.via, coalesced: f.coalesced, detail: f.detail })),
    message,
  };
}
