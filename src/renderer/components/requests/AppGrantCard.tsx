/**
 * An app grant request (computer_grant_app): the app, the capabilities asked for (each can be left out: the grant is
 * never wider than asked), how long, and why. Grant answers the request; Deny declines it.
 */
import { useState } from 'react';
import { api } from '../../api/client';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

const CAPS = ['observe', 'pointer', 'input', 'foreground'] as const;
const CAP_WORDS: Record<(typeof CAPS)[number], string> = {
  observe: 'read its windows (outline, screenshots)',
  pointer: 'click and scroll in it',
  input: 'type and press keys in it',
  foreground: 'bring it to the front',
};

interface GrantData {
  app: string;
  capabilities: (typeof CAPS)[number][];
  /** What the app already holds (grants add up: the request asks only for the rest). */
  already: (typeof CAPS)[number][];
  minutes: number | null;
  reason: string | null;
}

function grantDataOf(data: unknown): GrantData {
  const d = (data ?? {}) as Partial<GrantData>;
  return {
    app: typeof d.app === 'string' ? d.app : 'an app',
    capabilities: Array.isArray(d.capabilities) ? d.capabilities.filter((c): c is GrantData['capabilities'][number] => (CAPS as readonly string[]).includes(c)) : [],
    already: Array.isArray(d.already) ? d.already.filter((c): c is GrantData['capabilities'][number] => (CAPS as readonly string[]).includes(c)) : [],
    minutes: typeof d.minutes === 'number' ? d.minutes : null,
    reason: typeof d.reason === 'string' ? d.reason : null,
  };
}

export function AppGrantCard({ approval, showConversation }: RequestCardProps) {
  const data = grantDataOf(approval.data);
  const [chosen, setChosen] = useState<string[]>(data.capabilities);
  const [reason, setReason] = useState('');
  const { busy, error, run } = useSubmit();
  const initial = data.app.slice(0, 1).toUpperCase();

  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="app-grant-card"
      chips={<span className="chip">{data.minutes ? `for ${data.minutes} min` : 'until you revoke it'}</span>}
      parked="granting resumes it"
      description={
        <p className="app-grant-app">
          <span className="app-icon" aria-hidden="true">
            {initial}
          </span>
          Let Deskhand use <strong>{data.app}</strong>
          {data.reason ? <span className="muted small"> — {data.reason}</span> : null}
        </p>
      }
      error={error}
    >
      {data.already.length > 0 && (
        <p className="small app-grant-already" aria-label="Already granted">
          Already granted: <strong>{data.already.join(', ')}</strong> (kept). This asks only for the rest.
        </p>
      )}
      <fieldset className="app-grant-caps">
        <legend className="small">{data.already.length ? 'What it asks for in addition (you can grant less)' : 'What it may do (you can grant less)'}</legend>
        {data.capabilities.map((c) => (
          <label key={c} className="check">
            <input type="checkbox" checked={chosen.includes(c)} onChange={(e) => setChosen(e.target.checked ? [...chosen, c] : chosen.filter((x) => x !== c))} />
            <strong>{c}</strong> <span className="muted small">{CAP_WORDS[c]}</span>
          </label>
        ))}
      </fieldset>
      <p className="muted small">Revoke it any time in Settings → App grants or with deskhand grants revoke {data.app}. Stop computer use at once from the banner or the tray.</p>
      <div className="actions approval-actions">
        <button
          type="button"
          className="btn primary"
          disabled={busy || chosen.length === 0}
          onClick={() => void run(() => api().answerRequest({ requestId: approval.approvalId, value: { grant: true, capabilities: data.capabilities.filter((c) => chosen.includes(c)) } }))}
        >
          Grant
        </button>
        <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} />
      </div>
    </RequestFrame>
  );
}
