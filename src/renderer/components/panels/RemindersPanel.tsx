/**
 * The right panel's Reminders: what will ring and when (every conversation's, this one's first), with Snooze and
 * Cancel; the same list as Settings → Schedule, kept fresh while the panel is open.
 */
import { useEffect, useRef, useState } from 'react';
import type { ScheduleItemView } from '../../../shared/contract/schedule';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';
import { useScheduleRefresh } from '../../state/schedule-refresh';

const REFRESH_MS = 60_000;

export function RemindersPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const [items, setItems] = useState<ScheduleItemView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  // Loaded again at once when a call ends or a run finishes (a reminder was just set), else every REFRESH_MS.
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  useScheduleRefresh(
    () =>
      void api()
        .schedule({ action: 'list' })
        .then((v) => live.current && setItems(v.items))
        .catch((err: unknown) => live.current && setError(errorText(err))),
    REFRESH_MS,
    [selectedId],
  );

  async function act(action: 'snooze' | 'cancel', id: string) {
    setError(null);
    try {
      const v = await api().schedule({ action, id, ...(action === 'snooze' ? { minutes: 10 } : {}) });
      setItems(v.items);
      setStatus(v.message);
    } catch (err) {
      setError(errorText(err));
    }
  }

  const upcoming = (items ?? [])
    .filter((i) => i.kind === 'reminder' && (i.status === 'active' || i.status === 'paused'))
    .sort((a, b) => Number(b.conversationId === selectedId) - Number(a.conversationId === selectedId) || (a.nextAt ?? Infinity) - (b.nextAt ?? Infinity));
  return (
    <aside className="panel" aria-label="Reminders">
      <h2 className="panel-title">
        Reminders <span className="count">{upcoming.length}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      {items !== null && upcoming.length === 0 ? (
        <p className="muted small">No reminders. Ask Deskhand to remind you of something: it rings as a desktop notification, even with Deskhand closed.</p>
      ) : (
        <ul className="reminder-list">
          {upcoming.map((r) => (
            <li key={r.id} aria-label={`Reminder ${r.text}`}>
              <span className="reminder-text">{r.text}</span>
              <span className="muted small">
                {r.status === 'paused' ? 'Paused' : (r.nextAtText ?? '—')}
                {r.conversationId && r.conversationId !== selectedId ? ' · another conversation' : ''}
              </span>
              <span className="muted small">{r.heldBy}</span>
              <span className="actions">
                <button type="button" className="btn small" aria-label={`Snooze ${r.text} 10 minutes`} onClick={() => void act('snooze', r.id)}>
                  Snooze 10 min
                </button>
                <button type="button" className="btn small" aria-label={`Cancel reminder ${r.text}`} onClick={() => void act('cancel', r.id)}>
                  Cancel
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {status && (
        <p className="muted small" role="status">
          {status}
        </p>
      )}
    </aside>
  );
}
