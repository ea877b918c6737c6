/** A plan to confirm (exit_plan_mode): the plan rendered, an optional choice of approach, Approve, or Revise with feedback. */
import { useState } from 'react';
import { api } from '../../api/client';
import { Markdown } from '../common/Markdown';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

interface PlanData {
  planFile?: string;
  plan?: string;
  options?: { label: string; description: string }[];
}

export function PlanCard({ approval, showConversation }: RequestCardProps) {
  const { busy, error, run } = useSubmit();
  const data = (approval.data ?? {}) as PlanData;
  const [option, setOption] = useState<string | null>(null);
  const [feedback, setFeedback] = useState('');
  const [reason, setReason] = useState('');
  const answer = (value: unknown) => void run(() => api().answerRequest({ requestId: approval.approvalId, value }));
  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="plan-card"
      chips={<span className="chip">plan mode: nothing changes until you approve</span>}
      parked="approving resumes it"
      description={<p className="muted small">{data.planFile}</p>}
      error={error}
    >
      <div className="plan-text">{data.plan ? <Markdown text={data.plan} /> : <p className="muted">(the plan file is empty)</p>}</div>
      {data.options?.length ? (
        <fieldset className="plan-options">
          <legend>Approach</legend>
          {data.options.map((o) => (
            <label key={o.label} className="check">
              <input type="radio" name={`plan-${approval.approvalId}`} checked={option === o.label} onChange={() => setOption(o.label)} />
              <strong>{o.label}</strong> — {o.description}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="approval-actions">
        <button type="button" className="btn primary" disabled={busy} onClick={() => answer({ decision: 'approve', ...(option ? { option } : {}) })}>
          Approve plan
        </button>
        <input
          type="text"
          className="reason"
          aria-label="What to revise"
          placeholder="What should change in the plan?"
          value={feedback}
          maxLength={4000}
          disabled={busy}
          onChange={(e) => setFeedback(e.target.value)}
        />
        <button type="button" className="btn" disabled={busy || !feedback.trim()} onClick={() => answer({ decision: 'revise', feedback: feedback.trim() })}>
          Revise
        </button>
        <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} verb="Decline" />
      </div>
    </RequestFrame>
  );
}
