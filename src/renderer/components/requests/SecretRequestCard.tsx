/**
 * A request to type a secret (ask_user_secret): what it is for, and a masked field. The value lives only in the field
 * (uncontrolled, so it is never in React or store state), goes to main once with provideSecret, and the field is
 * cleared as it is sent. Main keeps it in the OS keyring; nothing sent back to this window ever contains it.
 */
import { useId, useRef, useState } from 'react';
import { api } from '../../api/client';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

export function SecretRequestCard({ approval, showConversation }: RequestCardProps) {
  const { busy, error, run } = useSubmit();
  const [filled, setFilled] = useState(false);
  const [reason, setReason] = useState('');
  const field = useRef<HTMLInputElement>(null);
  const fieldId = useId();
  const name = approval.secret?.name ?? 'the secret';

  function save() {
    const input = field.current;
    if (!input || !input.value || busy) return;
    const value = input.value;
    input.value = '';
    setFilled(false);
    void run(() => api().provideSecret({ approvalId: approval.approvalId, value }), (text) => `${text} Type it again to retry.`);
  }

  function decline() {
    if (field.current) field.current.value = '';
    setFilled(false);
    void run(() => deny(approval.approvalId, reason));
  }

  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="secret-card"
      chips={<span className="chip">asks you to type a secret</span>}
      parked="saving resumes it"
      description={
        <p className="secret-what">
          <code className="secret-name">{name}</code>
          {approval.secret?.description ? <span> — {approval.secret.description}</span> : null}
        </p>
      }
      error={error}
    >
      {approval.secret?.prompt && <p className="secret-prompt">{approval.secret.prompt}</p>}
      <form
        className="secret-form"
        autoComplete="off"
        onSubmit={(e) => {
          e.preventDefault();
          save();
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
        <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={decline} />
      </div>
    </RequestFrame>
  );
}
