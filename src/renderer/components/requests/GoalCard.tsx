/** A proposed goal (propose_goal): objective, criteria, budget; Accept (optionally with another turn budget) or Decline. */
import { useState } from 'react';
import { api } from '../../api/client';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

interface GoalData {
  objective?: string;
  criteria?: string[];
  milestones?: string[];
  budget?: { turns?: number; tokens?: number; ms?: number; cost?: number };
  /** "Estimate: about N tokens, ≈ $X: …" from the plan and the recent cost per step (propose_goal). */
  estimate?: string;
}

export function GoalCard({ approval, showConversation }: RequestCardProps) {
  const { busy, error, run } = useSubmit();
  const data = (approval.data ?? {}) as GoalData;
  const [turns, setTurns] = useState(String(data.budget?.turns ?? 20));
  const [reason, setReason] = useState('');
  const n = Number(turns);
  const valid = Number.isInteger(n) && n >= 1 && n <= 1000;
  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="goal-card"
      chips={<span className="chip">runs as a loop of turns within its budget</span>}
      parked="accepting starts it"
      description={<p className="goal-objective">{data.objective}</p>}
      error={error}
    >
      <ul className="goal-criteria">
        {(data.criteria ?? []).map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      {typeof data.estimate === 'string' && <p className="goal-estimate small">{data.estimate}</p>}
      <div className="approval-actions">
        <label className="small">
          Turn budget{' '}
          <input type="number" min={1} max={1000} value={turns} disabled={busy} onChange={(e) => setTurns(e.target.value)} aria-label="Turn budget" />
        </label>
        <button type="button" className="btn primary" disabled={busy || !valid} onClick={() => void run(() => api().answerRequest({ requestId: approval.approvalId, value: { accept: true, budget: { turns: n } } }))}>
          Accept goal
        </button>
        <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} verb="Decline" />
      </div>
    </RequestFrame>
  );
}
