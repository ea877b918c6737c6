/** The right panel's goals: the open conversation's goal with its status, budgets used and the cycle log, live. */
import { useEffect, useState } from 'react';
import type { GoalViewModel } from '../../../shared/contract/memory';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';

const STATUS: Record<GoalViewModel['status'], string> = {
  active: 'running',
  waiting: 'waiting for your answer',
  complete: 'complete',
  blocked: 'blocked',
  exhausted: 'budget used up',
  ended: 'ended',
};

function Meter({ label, used, limit, unit }: { label: string; used: number; limit: number | undefined; unit: string }) {
  if (limit === undefined) return null;
  const pct = Math.min(100, Math.round((used / limit) * 100));
  return (
    <div className="goal-meter">
      <span className="small">
        {label}: {used.toLocaleString()} / {limit.toLocaleString()} {unit}
      </span>
      <progress max={100} value={pct} aria-label={`${label} used`} />
    </div>
  );
}

export function GoalsPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const [goals, setGoals] = useState<GoalViewModel[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!selectedId) return;
    let live = true;
    const load = () =>
      api()
        .listGoals({ conversationId: selectedId })
        .then((r) => live && (setGoals(r.goals), setError(null)))
        .catch((err: unknown) => live && setError(errorText(err)));
    void load();
    // Cycles start and end as runs: reload when a run of this conversation finishes or parks.
    const off = api().on('run', (e) => {
      if ((e.type === 'run.finished' || e.type === 'run.parked' || e.type === 'run.started') && e.conversationId === selectedId) void load();
    });
    return () => {
      live = false;
      off();
    };
  }, [selectedId]);

  const goal = goals[0];
  if (!selectedId || !goal) return null;
  return (
    <aside className="panel" aria-label="Goal">
      <h2 className="panel-title">
        Goal <span className="count">{STATUS[goal.status]}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      <p className="goal-objective">{goal.objective}</p>
      <ul className="goal-criteria small">
        {goal.criteria.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <Meter label="Turns" used={goal.used.turns} limit={goal.budget.turns} unit="" />
      <Meter label="Tokens" used={goal.used.tokens} limit={goal.budget.tokens} unit="" />
      <Meter label="Time" used={Math.round(goal.used.ms / 1000)} limit={goal.budget.ms === undefined ? undefined : Math.round(goal.budget.ms / 1000)} unit="s" />
      {goal.endedReason && <p className="small">{goal.endedReason}</p>}
      <ol className="goal-cycles small" aria-label="Cycle log">
        {goal.cycles.map((c) => (
          <li key={c.n}>
            Cycle {c.n}: <strong>{c.reported}</strong>
            {c.summary ? ` — ${c.summary}` : ''}
            {c.evidence.length ? <span className="muted"> (evidence: {c.evidence.map((e) => e.call_id).join(', ')})</span> : null}
          </li>
        ))}
      </ol>
    </aside>
  );
}
