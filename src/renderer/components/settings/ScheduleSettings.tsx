/**
 * The Schedule section: reminders and triggers (scheduled prompts) with their next fire time and what holds them (an
 * OS scheduler job, or the in-app ticker), their buttons (snooze, pause/resume, run now, cancel), and the fire history
 * with the run each fire started.
 */
import { useState } from 'react';
import type { MethodResult } from '../../../shared/contract';
import type { ScheduleItemView } from '../../../shared/contract/schedule';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';
import { useScheduleRefresh } from '../../state/schedule-refresh';

type View = MethodResult<'schedule'>;

const live = (i: ScheduleItemView) => i.status === 'active' || i.status === 'paused';

/** How late a fire was, in words ("on time" within two seconds). */
export function lateness(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 2) return 'on time';
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s late` : `${s} s late`;
}

export function ScheduleSettings() {
  const [view, setView] = useState<View | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // At once after a call ends or a run finishes (a fire's run, a reminder set), else every minute.
  useScheduleRefresh(
    () =>
      void api()
        .schedule({ action: 'list' })
        .then(setView)
        .catch((err: unknown) => setError(errorText(err))),
    60_000,
  );

  async function act(action: 'cancel' | 'pause' | 'resume' | 'snooze' | 'runNow', id: string) {
    setError(null);
    setStatus(null);
    try {
      const v = await api().schedule({ action, id, ...(action === 'snooze' ? { minutes: 10 } : {}) });
      setView(v);
      setStatus(v.message);
    } catch (err) {
      setError(errorText(err));
    }
  }

  const items = view?.items ?? [];
  const pending = items.filter(live);
  const text = new Map(items.map((i) => [i.id, i.text]));
  return (
    <section className="card" aria-labelledby="schedule-title">
      <h2 id="schedule-title" className="card-title">
        Schedule
      </h2>
      <p className="muted small">
        Reminders ring as a desktop notification; scheduled prompts continue their conversation. The OS scheduler holds each one, so they fire with Deskhand
        closed (deskhand schedule list | doctor shows and repairs the jobs).
      </p>
      {view === null && !error && <p className="muted">Loading the schedule…</p>}
      {view && pending.length === 0 && (
        <p className="muted" role="note" aria-label="Nothing scheduled">
          Nothing scheduled. Ask Deskhand to remind you of something, or to check on something later.
        </p>
      )}
      {pending.length > 0 && (
        <ul className="grant-list" aria-label="Reminders and scheduled prompts">
          {pending.map((i) => (
            <li key={i.id} aria-label={`${i.kind === 'reminder' ? 'Reminder' : 'Scheduled prompt'} ${i.text}`}>
              <span>
                <strong>{i.kind === 'reminder' ? 'Reminder' : i.cron ? `Every “${i.cron}”` : 'Scheduled prompt'}</strong> {i.text}
                <br />
                <span className="muted small">
                  {i.status === 'paused' ? 'Paused' : `Next: ${i.nextAtText ?? '—'}`} · {i.heldBy}
                  {i.expiresAt ? ` · expires ${new Date(i.expiresAt).toLocaleString()}` : ''}
                </span>
              </span>
              {i.kind === 'reminder' ? (
                <button type="button" className="btn" aria-label={`Snooze ${i.text}`} onClick={() => void act('snooze', i.id)}>
                  Snooze 10 min
                </button>
              ) : (
                <>
                  <button type="button" className="btn" aria-label={`Run now ${i.text}`} onClick={() => void act('runNow', i.id)}>
                    Run now
                  </button>
                  <button type="button" className="btn" aria-label={`${i.status === 'paused' ? 'Resume' : 'Pause'} ${i.text}`} onClick={() => void act(i.status === 'paused' ? 'resume' : 'pause', i.id)}>
                    {i.status === 'paused' ? 'Resume' : 'Pause'}
                  </button>
                </>
              )}
              <button type="button" className="btn" aria-label={`Cancel ${i.text}`} onClick={() => void act('cancel', i.id)}>
                Cancel
              </button>
            </li>
          ))}
        </ul>
      )}
      {!!view?.fires.length && (
        <>
          <h3 className="small">Recent fires</h3>
          <table className="small" aria-label="Fire history">
            <thead>
              <tr>
                <th>Due</th>
                <th>Fired</th>
                <th>What</th>
                <th>Result</th>
                <th>Run</th>
              </tr>
            </thead>
            <tbody>
              {view.fires.map((f) => (
                <tr key={f.id}>
                  <td>{new Date(f.dueAt).toLocaleString()}</td>
                  <td>
                    {new Date(f.firedAt).toLocaleTimeString()} ({lateness(f.firedAt - f.dueAt)})
                  </td>
                  <td>{text.get(f.scheduleId) ?? f.scheduleId}</td>
                  <td title={f.detail ?? ''}>
                    {f.status}
                    {f.coalesced > 1 ? ` (${f.coalesced} missed fires at once)` : ''} · {f.via}
                  </td>
                  <td>{f.runId ? <code>{f.runId.slice(0, 12)}</code> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <Feedback error={error} status={status} errorClassName="error" statusClassName="muted small" />
    </section>
  );
}
