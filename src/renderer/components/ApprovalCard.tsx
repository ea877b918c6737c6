/**
 * The approval card: the tool in plain words, its risk, why it asks, the exact arguments (hidden characters made
 * visible), the preview (a unified diff for writes and edits), and Approve / Always allow / Deny. Keys act only when
 * the card itself has focus, and the card never takes focus unless the person asked for it.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
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
  // A request to type a secret is answered with the value or denied; a plain Approve is not offered.
  if (approval.kind === 'secret') return <SecretRequestCard approval={approval} showConversation={showConversation} />;
  return <DecisionCard approval={approval} showConversation={showConversation} />;
}

/** Focus moves to a card only when the person asked for this approval; after the frame, so nothing opening with it wins. */
function useFocusWhenAsked(approvalId: string, card: RefObject<HTMLElement | null>): void {
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

function DecisionCard({ approval, showConversation }: { approval: PendingApproval; showConversation: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirmAlways, setConfirmAlways] = useState(false);
  const [reason, setReason] = useState('');
  const card = useRef<HTMLElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const descId = useId();
  const title = toolTitle(approval.tool);
  useFocusWhenAsked(approval.approvalId, card);

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
      {approval.secret && (
        <div className="approval-secret" role="note" aria-label="Saved secret">
          <span className="section-label">Saved secret</span>
          <p>
            <code>{approval.secret.name}</code>
            {approval.secret.description ? ` — ${approval.secret.description}` : ''}
          </p>
          <p className="muted small">
            Approving lets this run use it as <code>[redacted:{approval.secret.name}]</code> in commands. The agent never sees the value, and each command that
            uses it asks you first.
          </p>
        </div>
      )}
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
          <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void decide('deny')} inputRef={reasonInput} shortcut />
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

/**
 * A request to type a secret (ask_user_secret): what it is for, and a masked field. The value lives only in the field
 * (uncontrolled, so it is never in React or store state), goes to main once with provideSecret, and the field is
 * cleared as it is sent. Main keeps it in the OS keyring; nothing sent back to this window ever contains it.
 */
function SecretRequestCard({ approval, showConversation }: { approval: PendingApproval; showConversation: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [filled, setFilled] = useState(false);
  const [reason, setReason] = useState('');
  const card = useRef<HTMLElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const descId = useId();
  const fieldId = useId();
  const name = approval.secret?.name ?? 'the secret';
  useFocusWhenAsked(approval.approvalId, card);

  async function save() {
    const input = field.current;
    if (!input || !input.value || busy) return;
    const value = input.value;
    input.value = '';
    setFilled(false);
    setBusy(true);
    setError(null);
    try {
      await api().provideSecret({ approvalId: approval.approvalId, value });
    } catch (err) {
      setError(`${errorText(err)} Type it again to retry.`);
      setBusy(false);
    }
  }

  async function deny() {
    if (field.current) field.current.value = '';
    setFilled(false);
    setBusy(true);
    setError(null);
    try {
      await api().decideApproval({ approvalId: approval.approvalId, decision: 'deny', ...(reason.trim() ? { reason: reason.trim() } : {}) });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <section
      ref={card}
      className="approval-card secret-card"
      aria-labelledby={titleId}
      aria-describedby={descId}
      tabIndex={-1}
      data-approval-id={approval.approvalId}
    >
      <header className="approval-head">
        <h3 id={titleId}>{toolTitle(approval.tool)}</h3>
        <span className="chip">asks you to type a secret</span>
        {approval.runStatus === 'parked' && <span className="chip">paused run — saving resumes it</span>}
        {showConversation && <span className="approval-conv">in “{approval.conversationTitle}”</span>}
      </header>
      <p id={descId} className="secret-what">
        <code className="secret-name">{name}</code>
        {approval.secret?.description ? <span> — {approval.secret.description}</span> : null}
      </p>
      {approval.secret?.prompt && <p className="secret-prompt">{approval.secret.prompt}</p>}
      <form
        className="secret-form"
        autoComplete="off"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label htmlFor={fieldId} className="sr-only">
          Secret value for {name}
        </label>
        <input
          id={fieldId}
          ref={field}
          type="password"
          className="secret-input"
          name={`secret-${approval.approvalId}`}
          autoComplete="off"
          autoCorrect="off"
          autoCapitalize="off"
          spellCheck={false}
          placeholder={`Type or paste ${name}`}
          disabled={busy}
          onChange={(e) => setFilled(e.currentTarget.value.length > 0)}
        />
        <button type="submit" className="btn primary" disabled={busy || !filled}>
          Save secret
        </button>
      </form>
      <p className="muted small">
        It is saved in the OS keyring under this name. The agent only ever sees <code>[redacted:{name}]</code>; commands that use it ask you first.
      </p>
      <div className="actions approval-actions">
        <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void deny()} />
      </div>
      {error && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
    </section>
  );
}

/** The optional reason the model receives, and the Deny button; Enter in the field denies. */
function DenyGroup(props: {
  reason: string;
  setReason: (reason: string) => void;
  busy: boolean;
  onDeny: () => void;
  inputRef?: RefObject<HTMLInputElement | null>;
  shortcut?: boolean;
}) {
  return (
    <span className="deny-group">
      <input
        ref={props.inputRef}
        type="text"
        className="reason"
        aria-label="Reason for denying (optional, the model sees it)"
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
        Deny
      </button>
    </span>
  );
}
