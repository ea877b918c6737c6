/**
 * The approval card: the tool in plain words, its risk, why it asks, the exact arguments (hidden characters made
 * visible), the preview (a unified diff for writes and edits), and Approve / Always allow / Deny. Keys act only when
 * the card itself has focus, and the card never takes focus unless the person asked for it.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { PendingApproval } from '../../shared/contract';
import { toolTitle } from '../../shared/tool-titles';
import { api, errorText } from '../api/client';
import { useApprovals } from '../state/approvals';
import { ArgsView } from './ArgsView';
import { DiffView } from './DiffView';

const RISK_LABEL = { 'read-only': 'read-only', 'low-risk': 'low risk', 'high-risk': 'high risk' } as const;

export function RiskBadge({ risk }: { risk: PendingApproval['risk'] }) {
  return <span className={`risk risk-${risk}`}>{RISK_LABEL[risk]}</span>;
}

export function ApprovalCard({ approval, showConversation = false }: { approval: PendingApproval; showConversation?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirmAlways, setConfirmAlways] = useState(false);
  const [reason, setReason] = useState('');
  const card = useRef<HTMLElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  const focusId = useApprovals((s) => s.focusId);
  const titleId = useId();
  const descId = useId();
  const title = toolTitle(approval.tool);

  // Focus moves here only when the person asked for this approval; after the frame, so nothing opening with it wins.
  useEffect(() => {
    if (focusId !== approval.approvalId) return;
    const frame = requestAnimationFrame(() => {
      card.current?.scrollIntoView({ block: 'nearest' });
      card.current?.focus();
      useApprovals.getState().focus(null);
    });
    return () => cancelAnimationFrame(frame);
  }, [focusId, approval.approvalId]);

  async function decide(decision: 'approve' | 'always' | 'deny') {
    setBusy(true);
    setError(null);
    try {
      await api().decideApproval({ approvalId: approval.approvalId, decision, ...(decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}) });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  function onKeyDown(e: KeyboardEvent<HTMLElement>) {
    if (busy || e.target !== card.current || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter') {
      e.preventDefault();
      void decide('approve');
    } else if (e.key === 'a' || e.key === 'A') {
      e.preventDefault();
      if (approval.alwaysPattern) setConfirmAlways(true);
    } else if (e.key === 'd' || e.key === 'D') {
      e.preventDefault();
      reasonInput.current?.focus();
    }
  }

  return (
    <section
      ref={card}
      className={`approval-card risk-border-${approval.risk}`}
      aria-labelledby={titleId}
      aria-describedby={descId}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      data-approval-id={approval.approvalId}
    >
      <header className="approval-head">
        <h3 id={titleId}>{title}</h3>
        <RiskBadge risk={approval.risk} />
        {approval.runStatus === 'parked' && <span className="chip">paused run — approving resumes it</span>}
        {showConversation && <span className="approval-conv">in “{approval.conversationTitle}”</span>}
      </header>
      <p id={descId} className="approval-desc">
        {approval.description}
      </p>
      {approval.reasons.length > 0 && (
        <div className="approval-why">
          <span className="section-label">Why it asks</span>
          <ul>
            {approval.reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </div>
      )}
      {approval.preview !== null && (
        <div className="approval-preview">
          <span className="section-label">What will change</span>
          <DiffView text={approval.preview} label={`Preview of ${approval.tool}`} />
        </div>
      )}
      <details className="approval-args" open={approval.preview === null}>
        <summary>
          Exact arguments <code>{approval.tool}</code>
        </summary>
        <ArgsView args={approval.args} label={`Arguments of ${approval.tool}`} />
      </details>

      {confirmAlways && approval.alwaysPattern ? (
        <div className="always-confirm" role="group" aria-label="Always allow rule">
          <p>
            Save a rule: from now on <code>{approval.tool}</code> runs without asking, in every conversation, for calls matching{' '}
            <code className="pattern">{approval.alwaysPattern}</code>.
          </p>
          <div className="actions">
            <button type="button" className="btn primary" disabled={busy} onClick={() => void decide('always')}>
              Save rule and approve
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setConfirmAlways(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="actions approval-actions">
          <button type="button" className="btn primary" disabled={busy} onClick={() => void decide('approve')} aria-keyshortcuts="Enter">
            Approve
          </button>
          <button
            type="button"
            className="btn"
            disabled={busy || !approval.alwaysPattern}
            onClick={() => setConfirmAlways(true)}
            aria-keyshortcuts="A"
            title={approval.alwaysPattern ? `Covers ${approval.tool} for ${approval.alwaysPattern}` : 'No rule can be saved for this call'}
          >
            Always allow
          </button>
          <span className="deny-group">
            <input
              ref={reasonInput}
              type="text"
              className="reason"
              aria-label="Reason for denying (optional, the model sees it)"
              placeholder="Reason for the model (optional)"
              value={reason}
              maxLength={2000}
              disabled={busy}
              onChange={(e) => setReason(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  void decide('deny');
                }
              }}
            />
            <button type="button" className="btn danger" disabled={busy} onClick={() => void decide('deny')} aria-keyshortcuts="D">
              Deny
            </button>
          </span>
          <span className="key-hint" aria-hidden="true">
            With the card focused: ⏎ approve · A always · D deny
          </span>
        </div>
      )}
      {error && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
    </section>
  );
}
