/** Pieces every request card shares: the risk badge, the deny field, focus on request, the card frame. */
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import type { PendingApproval } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { useApprovals } from '../../state/approvals';
import { useToolLook } from '../../state/tools';

const RISK_LABEL = { 'read-only': 'read-only', 'low-risk': 'low risk', 'high-risk': 'high risk' } as const;

export function RiskBadge({ risk }: { risk: PendingApproval['risk'] }) {
  return <span className={`risk risk-${risk}`}>{RISK_LABEL[risk]}</span>;
}

export interface RequestCardProps {
  approval: PendingApproval;
  showConversation: boolean;
}

/** Focus moves to a card only when the person asked for this request; after the frame, so nothing opening with it wins. */
export function useFocusWhenAsked(approvalId: string, card: RefObject<HTMLElement | null>): void {
  const focusId = useApprovals((s) => s.focusId);
  useEffect(() => {
    if (focusId !== approvalId) return;
    const frame = requestAnimationFrame(() => {
      card.current?.scrollIntoView({ block: 'nearest' });
      card.current?.focus();
      useApprovals.getState().focus(null);
    });
    return () => cancelAnimationFrame(frame);
  }, [focusId, approvalId, card]);
}

/** Busy and error state of one card's calls to main: errors are shown in the words main sent. */
export function useSubmit(): { busy: boolean; error: string | null; setError(e: string | null): void; run(act: () => Promise<unknown>, onError?: (text: string) => string): Promise<boolean> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(act: () => Promise<unknown>, onError?: (text: string) => string): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      await act();
      return true;
    } catch (err) {
      setError(onError ? onError(errorText(err)) : errorText(err));
      setBusy(false);
      return false;
    }
  }
  return { busy, error, setError, run };
}

/** Denies (declines) any request, with the optional reason the model sees. */
export function deny(approvalId: string, reason: string): Promise<unknown> {
  return api().decideApproval({ approvalId, decision: 'deny', ...(reason.trim() ? { reason: reason.trim() } : {}) });
}

/**
 * The frame of a request card: a region named by the tool's title (tests and screen readers find it so), the icon,
 * chips, and the error line. `onKeyDown` handles keys pressed on the card itself.
 */
export function RequestFrame(props: {
  approval: PendingApproval;
  showConversation: boolean;
  className: string;
  chips?: ReactNode;
  /** What the parked chip says answering does ("approving resumes it"). */
  parked?: string;
  description: ReactNode;
  error: string | null;
  onKeyDown?: (e: KeyboardEvent<HTMLElement>) => void;
  cardRef?: RefObject<HTMLElement | null>;
  children: ReactNode;
}) {
  const { approval } = props;
  const own = useRef<HTMLElement>(null);
  const card = props.cardRef ?? own;
  const titleId = useId();
  const descId = useId();
  const look = useToolLook(approval.tool);
  useFocusWhenAsked(approval.approvalId, card);
  return (
    <section
      ref={card}
      className={`approval-card ${props.className}`}
      aria-labelledby={titleId}
      aria-describedby={descId}
      tabIndex={-1}
      onKeyDown={props.onKeyDown}
      data-approval-id={approval.approvalId}
    >
      <header className="approval-head">
        <span className="tool-icon" aria-hidden="true">
          {look.glyph}
        </span>
        <h3 id={titleId}>{approval.title}</h3>
        {props.chips}
        {approval.runStatus === 'parked' && <span className="chip">paused run — {props.parked ?? 'answering resumes it'}</span>}
        {props.showConversation && <span className="approval-conv">in “{approval.conversationTitle}”</span>}
      </header>
      <div id={descId}>{props.description}</div>
      {props.children}
      {props.error && (
        <p role="alert" className="error-text">
          {props.error}
        </p>
      )}
    </section>
  );
}

/** The optional reason the model receives, and the Deny (or Decline) button; Enter in the field denies. */
export function DenyGroup(props: {
  reason: string;
  setReason: (reason: string) => void;
  busy: boolean;
  onDeny: () => void;
  inputRef?: RefObject<HTMLInputElement | null>;
  shortcut?: boolean;
  verb?: 'Deny' | 'Decline';
}) {
  const verb = props.verb ?? 'Deny';
  return (
    <span className="deny-group">
      <input
        ref={props.inputRef}
        type="text"
        className="reason"
        aria-label={`Reason for ${verb === 'Deny' ? 'denying' : 'declining'} (optional, the model sees it)`}
        placeholder="Reason for the model (optional)"
        value={props.reason}
        maxLength={2000}
        disabled={props.busy}
        onChange={(e) => props.setReason(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
            e.preventDefault();
            props.onDeny();
          }
        }}
      />
      <button type="button" className="btn danger" disabled={props.busy} onClick={props.onDeny} {...(props.shortcut ? { 'aria-keyshortcuts': 'D' } : {})}>
        {verb}
      </button>
    </span>
  );
}
