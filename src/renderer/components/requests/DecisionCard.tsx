/**
 * An approval: the tool in plain words, its risk, why it asks, the exact arguments (hidden characters made visible),
 * the preview (a unified diff for writes and edits), and Approve / Always allow / Deny. Above them: what the call will
 * do in one sentence, whether it can be taken back, and which grant would cover it next time (shared/card-facts.ts).
 * Keys (cardKeyAction) act only when the card itself has focus, and the card never takes focus unless the person
 * asked for it.
 */
import { useRef, useState, type KeyboardEvent } from 'react';
import { CARD_KEY_HINT, cardKeyAction, doingOf, nextTimeWords } from '../../../shared/card-facts';
import { describeAlways, describePattern, isCommandPattern, offeredRoot } from '../../../shared/always-allow';
import type { GrantLifetime, GrantScope } from '../../../shared/rules';
import { GrantChoice, SCOPE_CHOICES } from './GrantChoice';
import { reasonInWords } from '../../../shared/reason-words';
import { peerOfRulePattern } from '../../../shared/peers';
import { api } from '../../api/client';
import { ArgsView } from '../common/ArgsView';
import { DiffView } from '../common/DiffView';
import { reversibilityOf } from '../../../shared/reversibility';
import { DenyGroup, RequestFrame, RiskBadge, deny, useSubmit, type RequestCardProps } from './shared';

/**
 * Why "Always allow" is off, in words that fit the call: only a command can have several parts (its arguments say
 * `command`); any other call asks for a reason no saved rule may cover.
 */
export function noAlwaysText(args: unknown): string {
  const command = args && typeof args === 'object' && typeof (args as { command?: unknown }).command === 'string';
  return command
    ? 'No “always allow” for this command: it asks for a reason no saved rule may cover (above), or more than one of its parts needs your approval. Approve it once, or deny it and ask for the parts one at a time.'
    : 'No “always allow” for this call: it asks for a reason no saved rule may cover (above). Approve it once or deny it.';
}

export function DecisionCard({ approval, showConversation }: RequestCardProps) {
  const { busy, error, run } = useSubmit();
  const [confirmAlways, setConfirmAlways] = useState(false);
  const [reason, setReason] = useState('');
  const [scope, setScope] = useState<GrantScope>('conversation');
  const [lifetime, setLifetime] = useState<GrantLifetime>('until-revoked');
  const card = useRef<HTMLElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);

  // ask_peer: "always" is "allow this peer for this conversation" (never a workspace or everywhere).
  const peer = peerOfRulePattern(approval.alwaysPattern);

  function decide(decision: 'approve' | 'always' | 'deny') {
    void run(() =>
      decision === 'deny'
        ? deny(approval.approvalId, reason)
        : api().decideApproval({ approvalId: approval.approvalId, decision, ...(decision === 'always' ? (peer ? { scope: 'conversation' } : { scope, ...(scope === 'task' ? {} : { lifetime }) }) : {}) }),
    );
  }

  function onKeyDown(e: KeyboardEvent<HTMLElement>) {
    if (busy || e.target !== card.current) return;
    const action = cardKeyAction(e.key, { ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey }, { choosing: confirmAlways, canAlways: !!approval.alwaysPattern, peer: !!peer });
    if (action === null) return;
    e.preventDefault();
    if (action === 'approve' || action === 'always') decide(action);
    else if (action === 'open-always') setConfirmAlways(true);
    else if (action === 'close-always') setConfirmAlways(false);
    else if (action === 'deny-reason') reasonInput.current?.focus();
    else setScope(SCOPE_CHOICES[action.scope]![0]);
  }

  const doing = doingOf(approval.data);
  const nextTime = nextTimeWords(approval.alwaysPattern, approval.folder);

  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className={`risk-border-${approval.risk}`}
      chips={<RiskBadge risk={approval.risk} />}
      parked="approving resumes it"
      description={
        <>
          <p className="approval-desc">{approval.description}</p>
          {doing && (
            <p className="approval-doing" data-testid="approval-doing">
              {doing}
            </p>
          )}
        </>
      }
      error={error}
      onKeyDown={onKeyDown}
      cardRef={card}
    >
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
      {approval.subagent && (
        <p className="muted small" data-testid="approval-subagent">
          Asked by subagent <code>{approval.subagent.id}</code> ({approval.subagent.type}): {approval.subagent.description}
        </p>
      )}
      <Reversibility data={approval.data} />
      {approval.reasons.length > 0 && (
        <div className="approval-why">
          <span className="section-label">Why it asks</span>
          <ul>
            {approval.reasons.map((r, i) => (
              <li key={i}>{reasonInWords(r)}</li>
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
          {offeredRoot(approval.alwaysPattern) !== null ? (
            <p>
              Add <code className="pattern">{offeredRoot(approval.alwaysPattern)}</code> as a workspace root of this conversation: from now on,
              changes inside it no longer ask, and the sandbox can write there.
            </p>
          ) : (
            <>
              <p>
                Save a rule: from now on <code>{approval.tool}</code> runs without asking for <code className="pattern">{approval.alwaysPattern}</code> (
                {describePattern(approval.alwaysPattern)}).{isCommandPattern(approval.alwaysPattern) ? ' Other parts of a command still need your policy to clear them.' : ''}
              </p>
              <GrantChoice
                id={approval.approvalId}
                tool={approval.tool}
                pattern={approval.alwaysPattern}
                folder={approval.folder}
                scope={scope}
                lifetime={lifetime}
                onScope={setScope}
                onLifetime={setLifetime}
              />
            </>
          )}
          <div className="actions">
            <button type="button" className="btn primary" disabled={busy} onClick={() => decide('always')}>
              {offeredRoot(approval.alwaysPattern) !== null ? 'Add root and approve' : 'Save rule and approve'}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setConfirmAlways(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="actions approval-actions">
          <button type="button" className="btn primary" disabled={busy} onClick={() => decide('approve')} aria-keyshortcuts="Enter">
            Approve
          </button>
          {peer ? (
            <button type="button" className="btn" disabled={busy} onClick={() => decide('always')} aria-keyshortcuts="A" title={`Approve, and let ask_peer reach ${peer} from this conversation without asking while only ${peer}'s own answers are untrusted content in it`}>
              Allow {peer} for this conversation
            </button>
          ) : (
            <button
              type="button"
              className="btn"
              disabled={busy || !approval.alwaysPattern}
              onClick={() => setConfirmAlways(true)}
              aria-keyshortcuts="A"
              title={approval.alwaysPattern ? describeAlways(approval.tool, approval.alwaysPattern) : 'No rule can be saved for this call'}
            >
              Always allow
            </button>
          )}
          <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => decide('deny')} inputRef={reasonInput} shortcut />
          <span className="key-hint" aria-hidden="true" data-testid="approval-keys">
            {CARD_KEY_HINT}
          </span>
          {nextTime ? (
            <p className="muted small next-time" data-testid="approval-next-time">
              {nextTime}
            </p>
          ) : (
            <p className="muted small no-always">{noAlwaysText(approval.args)}</p>
          )}
        </div>
      )}
    </RequestFrame>
  );
}

/** Whether the act can be taken back (the change ledger; runtime/decision/reversibility.ts), in plain words. */
function Reversibility({ data }: { data: unknown }) {
  const fact = reversibilityOf(data);
  if (!fact || fact.kind === 'no-change') return null;
  return (
    <p className={`approval-reversibility reversibility-${fact.kind}`} role="note" aria-label={fact.kind === 'undoable' ? 'Can be undone' : 'Cannot be taken back'}>
      <span aria-hidden="true">{fact.kind === 'undoable' ? '↶ ' : '⚠ '}</span>
      {fact.words}
    </p>
  );
}
