/**
 * Settings › Memory and Lessons: every record the agent may recall and every lesson it proposed, with what the person
 * can do to each — accept or reject a proposal, edit, delete — and automatic extraction on or off. Each change leaves
 * a receipt with a diff (shown under "Changes"). Proposed records and lessons are never recalled until accepted.
 */
import { useEffect, useState } from 'react';
import type { MemoryRecordView } from '../../../shared/contract/memory';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

type Tab = 'memory' | 'lesson';

export function MemorySettings() {
  const [records, setRecords] = useState<MemoryRecordView[] | null>(null);
  const [extraction, setExtraction] = useState(false);
  const [tab, setTab] = useState<Tab>('memory');
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ id: string; topic: string; body: string } | null>(null);

  const apply = (r: { records: MemoryRecordView[]; extraction: boolean }) => {
    setRecords(r.records);
    setExtraction(r.extraction);
  };
  async function act(fn: () => Promise<{ records: MemoryRecordView[]; extraction: boolean }>) {
    setError(null);
    try {
      apply(await fn());
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    }
  }

  useEffect(() => {
    void act(() => api().listMemory({}));
  }, []);

  const shown = (records ?? []).filter((r) => r.kind === tab && r.status !== 'rejected');
  const proposed = (records ?? []).filter((r) => r.kind === tab && r.status === 'proposed').length;

  return (
    <section className="card memory-settings" aria-label="Memory and lessons">
      <h2>Memory and lessons</h2>
      <p className="muted small">
        What the agent remembers is recalled into later conversations as untrusted reference data: it never grants tools or changes approvals. Proposals
        (from automatic extraction or the agent's lessons) apply only after you accept them.
      </p>
      <label className="check">
        <input type="checkbox" checked={extraction} onChange={(e) => void act(() => api().setMemoryExtraction({ on: e.currentTarget.checked }))} />
        Propose memories automatically after each turn (one extra model call; you accept each proposal)
      </label>
      <div role="tablist" className="tabs">
        {(['memory', 'lesson'] as const).map((t) => (
          <button key={t} role="tab" type="button" aria-selected={tab === t} className={`tab ${tab === t ? 'active' : ''}`} onClick={() => setTab(t)}>
            {t === 'memory' ? 'Memory' : 'Lessons'}
            {proposed && tab === t ? ` (${proposed} to review)` : ''}
          </button>
        ))}
      </div>
      <Feedback error={error} errorClassName="error-text small" />
      {records === null ? (
        <p className="muted small">Loading…</p>
      ) : shown.length === 0 ? (
        <p className="muted small">{tab === 'memory' ? 'Nothing remembered yet.' : 'No lessons yet.'}</p>
      ) : (
        <ul className="memory-list" aria-label={tab === 'memory' ? 'Memory records' : 'Lessons'}>
          {shown.map((r) => (
            <li key={r.id} className={`memory-item memory-${r.status}`} aria-label={`${r.topic} (${r.status})`}>
              <div className="memory-head">
                <strong>{r.topic}</strong> <span className="chip">{r.scope}</span>
                {r.status === 'proposed' && <span className="chip">proposed{r.source === 'extraction' ? ' by automatic extraction' : ''}</span>}
              </div>
              {editing?.id === r.id ? (
                <form
                  className="memory-edit"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void act(() => api().changeMemory({ action: 'edit', id: r.id, topic: editing.topic, body: editing.body })).then((ok) => ok && setEditing(null));
                  }}
                >
                  <input aria-label="Topic" value={editing.topic} maxLength={200} onChange={(e) => setEditing({ ...editing, topic: e.currentTarget.value })} />
                  <textarea aria-label="Text" value={editing.body} rows={3} onChange={(e) => setEditing({ ...editing, body: e.currentTarget.value })} />
                  <button type="submit" className="btn primary">
                    Save
                  </button>
                  <button type="button" className="btn" onClick={() => setEditing(null)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <p className="memory-body">{r.body}</p>
              )}
              {r.quote && <p className="muted small">From your words: “{r.quote}”</p>}
              <div className="memory-actions">
                {r.status === 'proposed' && (
                  <>
                    <button type="button" className="btn primary" onClick={() => void act(() => api().changeMemory({ action: 'accept', id: r.id }))}>
                      Accept
                    </button>
                    <button type="button" className="btn" onClick={() => void act(() => api().changeMemory({ action: 'reject', id: r.id }))}>
                      Reject
                    </button>
                  </>
                )}
                <button type="button" className="btn" onClick={() => setEditing({ id: r.id, topic: r.topic, body: r.body })}>
                  Edit
                </button>
                <button type="button" className="btn danger" onClick={() => void act(() => api().changeMemory({ action: 'delete', id: r.id }))}>
                  Delete
                </button>
              </div>
              <details className="memory-receipts">
                <summary>Changes ({r.receipts.length})</summary>
                {r.receipts.map((x) => (
                  <div key={x.id}>
                    <p className="small">
                      {new Date(x.at).toLocaleString()} — {x.action} by {x.actor}
                    </p>
                    <pre className="diff small">{x.diff}</pre>
                  </div>
                ))}
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
