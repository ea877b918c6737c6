/**
 * The right panel's workflows: each run of the open conversation with its status, current phase and progress, spend
 * against its limits, every phase's output, the result or error, and cancel (which stops every agent it started).
 * Reloads when the conversation's background tasks change (a workflow is one) and every few seconds while one runs.
 */
import { useCallback, useEffect, useState } from 'react';
import type { WorkflowView } from '../../../shared/contract/workflows';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';
import { formatDuration } from '../common/tool-status';

const STATUS: Record<WorkflowView['status'], string> = { running: 'running', parked: 'waiting for a person', finished: 'done', failed: 'failed', cancelled: 'cancelled', interrupted: 'interrupted' };

export function WorkflowsPanel() {
  const conversationId = useConversations((s) => s.selectedId);
  const [list, setList] = useState<WorkflowView[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    if (!conversationId) return setList([]);
    try {
      const { workflows } = await api().listWorkflows({ conversationId });
      setList(workflows);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  }, [conversationId]);

  useEffect(() => {
    setList([]);
    void load();
    const off = api().on('backgroundTasksChanged', (p) => {
      if (p.conversationId === conversationId) void load();
    });
    return off;
  }, [conversationId, load]);

  const running = list.filter((w) => w.status === 'running').length;
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => void load(), 3000);
    return () => clearInterval(t);
  }, [running, load]);

  if (!conversationId || (list.length === 0 && !error)) return null;
  return (
    <aside className="panel" aria-label="Workflows">
      <h2 className="panel-title">
        Workflows <span className="count">{running ? `${running} running` : list.length}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      <ul className="panel-list">
        {list.map((w) => (
          <WorkflowItem key={w.id} workflow={w} onChanged={load} />
        ))}
      </ul>
    </aside>
  );
}

function WorkflowItem({ workflow: w, onChanged }: { workflow: WorkflowView; onChanged: () => Promise<void> }) {
  const [open, setOpen] = useState(w.status === 'running');
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const title = `${w.name ?? 'Inline script'}${w.args ? `: ${w.args}` : ''}`;
  const took = formatDuration((w.finishedAt ?? Date.now()) - w.createdAt);
  const cancel = async () => {
    setCancelling(true);
    try {
      await api().cancelWorkflow({ id: w.id });
      await onChanged();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setCancelling(false);
    }
  };
  return (
    <li className={`task-item task-${w.status === 'finished' ? 'finished' : w.status}`} aria-label={`Workflow ${title}: ${STATUS[w.status]}`}>
      <button type="button" className="task-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="task-kind">Workflow</span>
        <span className="task-title">{title}</span>
        <span className={`task-status ts-${w.status}`}>
          {STATUS[w.status]}
          {w.status === 'running' && w.phase ? ` · ${w.phase}` : ''} · {took}
        </span>
      </button>
      {open && (
        <div className="task-body">
          <p className="muted small" aria-label="Workflow spend">
            {w.agents}/{w.limits.maxAgents} agents · {w.tokens.toLocaleString()}/{w.limits.maxTokens.toLocaleString()} tokens · ${w.costUSD.toFixed(4)}/${w.limits.maxCostUSD}
          </p>
          {w.status === 'running' && w.progress && <p className="small">{w.progress}</p>}
          <ol className="task-jobs" aria-label={`Phases of ${title}`}>
            {w.phases.map((p, i) => (
              <li key={`${p.name}-${i}`}>
                <strong>{p.name}</strong> <span className={`task-status js-${p.status === 'done' ? 'finished' : 'running'}`}>{p.status === 'done' ? 'done' : 'running'}</span>
                {p.output && (
                  <details>
                    <summary className="muted small">Output</summary>
                    <pre className="tool-output task-tail">{p.output}</pre>
                  </details>
                )}
              </li>
            ))}
          </ol>
          {w.error && <p className="error-text small">{w.error}</p>}
          {w.result !== null && (
            <pre className="tool-output task-tail" aria-label={`Result of ${title}`}>
              {w.result}
            </pre>
          )}
          {error && <p className="error-text small">{error}</p>}
          {w.status === 'running' && (
            <button type="button" className="btn danger" disabled={cancelling} onClick={() => void cancel()} aria-label={`Cancel workflow ${title}`}>
              {cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
