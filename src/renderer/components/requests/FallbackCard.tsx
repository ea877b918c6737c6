/**
 * A request of a kind this window cannot draw (a family newer than the UI): what it asks, the exact command that
 * answers it from a terminal, and Deny.
 */
import { useState } from 'react';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

export function FallbackCard({ approval, showConversation }: RequestCardProps) {
  const { busy, error, run } = useSubmit();
  const [reason, setReason] = useState('');
  const command = `deskhand runs answer ${approval.approvalId} --value 'JSON'`;
  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="fallback-card"
      chips={<span className="chip">{approval.kind} request</span>}
      description={<p className="approval-desc">{approval.description}</p>}
      error={error}
    >
      {approval.preview && <p className="request-prompt">{approval.preview}</p>}
      <p className="muted small">This window cannot show a {approval.kind} request yet. Answer it from a terminal, with the JSON value the request expects:</p>
      <pre className="preview-text" aria-label="Command that answers this request">
        {command}
      </pre>
      <div className="actions approval-actions">
        <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} />
      </div>
    </RequestFrame>
  );
}
