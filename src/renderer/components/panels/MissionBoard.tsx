/**
 * The mission board (coordinator mode): the open conversation's Tower session — missions with their scope, tasks,
 * status and review gate, the roster of workers and reviewers, the inbox, findings and the activity log. Reloads when
 * the conversation's background tasks change (every Tower agent is one), when a tower_ tool finishes, and every few
 * seconds while agents work.
 */
import { useCallback, useEffect, useState } from 'react';
import type { TowerBoard } from '../../../shared/contract/workflows';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';

const time = (at: number) => new Date(at).toLocaleTimeString();

export function MissionBoard() {
  const conversationId = useConversations((s) => s.selectedId);
  const [board, setBoard] = useState<TowerBoard | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    if (!conversationId) return setBoard(null);
    try {
      setBoard((await api().getTowerBoard({ conversationId })).board);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  }, [conversationId]);

  useEffect(() => {
    setBoard(null);
    void load();
    const offTasks = api().on('backgroundTasksChanged', (p) => {
      if (p.conversationId === conversationId) void load();
    });
    // tower_init, tower_plan (once approved), merges and teardown change the board without any task changing.
    const offRun = api().on('run', (e) => {
      if (e.type === 'tool.result' && e.tool.startsWith('tower_')) void load();
    });
    // Another process (`deskhand tower teardown`, a worker's host) changed the store: the conversation lists follow, so does the board.
    const offLists = api().on('conversationsChanged', () => void load());
    return () => {
      offTasks();
      offRun();
      offLists();
    };
  }, [conversationId, load]);

  const working = board?.roster.some((a) => a.status === 'running' || a.status === 'queued') ?? false;
  useEffect(() => {
    if (!working) return;
    const t = setInterval(() => void load(), 3000);
    return () => clearInterval(t);
  }, [working, load]);

  if (!board && !error) return null;
  return (
    <aside className="panel" aria-label="Mission board">
      <h2 className="panel-title">
        Mission board <span className="count">{board ? `${board.missions.filter((m) => m.status === 'merged').length}/${board.missions.length} merged` : ''}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      {board && (
        <div className="task-body">
          <p className="small">{board.objective}</p>
          <p className="muted small">
            {board.status === 'active' ? 'Active' : 'Torn down'} · plan {board.planStatus} · merges into <code>{board.integrationBranch}</code> (base {board.baseBranch})
          </p>
          <h3 className="small">Missions and review gate</h3>
          <ul className="panel-list" aria-label="Missions">
            {board.missions.map((m) => (
              <li key={m.id} className="task-item" aria-label={`Mission ${m.id}: ${m.status}`}>
                <div className="task-head">
                  <span className="task-kind">{m.id}</span>
                  <span className="task-title">{m.title}</span>
                  <span className={`task-status ts-${m.status === 'merged' ? 'finished' : m.status === 'cancelled' ? 'cancelled' : m.status === 'changes' || m.status === 'conflict' ? 'failed' : 'running'}`}>{m.status}</span>
                </div>
                <p className="muted small">
                  scope {m.scope.join(', ')}
                  {m.depends.length ? ` · after ${m.depends.join(', ')}` : ''} · {m.tasks.filter((t) => t.done).length}/{m.tasks.length} tasks
                </p>
                <p className="small" aria-label={`Review of ${m.id}`}>
                  {m.review ? `${m.review.verdict === 'approve' ? 'Approved' : 'Changes asked'} by ${m.review.reviewer} at ${m.review.commit}` : 'No review yet'}
                </p>
              </li>
            ))}
          </ul>
          <h3 className="small">Roster</h3>
          <ul className="panel-list" aria-label="Roster">
            {board.roster.map((a) => (
              <li key={a.id} className="small">
                {a.id} · {a.role} · {a.mission} · {a.status}
              </li>
            ))}
            {board.roster.length === 0 && <li className="muted small">Nobody spawned yet.</li>}
          </ul>
          <h3 className="small">Inbox</h3>
          <ul className="panel-list" aria-label="Inbox">
            {board.inbox.map((m, i) => (
              <li key={i} className="small">
                {time(m.at)} {m.from} → {m.to}: {m.body}
              </li>
            ))}
            {board.inbox.length === 0 && <li className="muted small">No messages.</li>}
          </ul>
          {board.findings.length > 0 && (
            <>
              <h3 className="small">Findings</h3>
              <ul className="panel-list" aria-label="Findings">
                {board.findings.map((f, i) => (
                  <li key={i} className="small">
                    {f.kind}: {f.title} ({f.from})
                  </li>
                ))}
              </ul>
            </>
          )}
          <h3 className="small">Activity</h3>
          <ol className="task-jobs" aria-label="Activity">
            {board.activity.map((a, i) => (
              <li key={i} className="small">
                {time(a.at)} {a.text}
              </li>
            ))}
          </ol>
        </div>
      )}
    </aside>
  );
}
