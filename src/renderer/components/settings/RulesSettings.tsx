/**
 * Settings → Rules: every always-allow rule with what it covers, where it applies, where it came from and how often it
 * matched; Revoke removes it (the calls it covered ask again). The same list as `deskhand rules list`.
 */
import { useEffect, useState } from 'react';
import type { RuleView } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

export function RulesSettings() {
  const [rules, setRules] = useState<RuleView[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    api()
      .listRules({})
      .then((r) => setRules(r.rules))
      .catch((err: unknown) => setError(errorText(err)));

  useEffect(() => {
    void load();
  }, []);

  async function revoke(r: RuleView) {
    setError(null);
    setStatus(null);
    try {
      setRules((await api().revokeRule({ id: r.id })).rules);
      setStatus(`Revoked the rule for ${r.tool} ${r.pattern}; those calls ask again.`);
    } catch (err) {
      setError(errorText(err));
      void load();
    }
  }

  return (
    <section className="card" aria-labelledby="rules-title">
      <h2 id="rules-title" className="card-title">
        Rules
      </h2>
      <p className="muted small">
        Saved by “Always allow” on an approval: the tool runs without asking for calls its pattern covers, in the conversation, workspace or everywhere you chose.
      </p>
      {rules === null && !error && <p className="muted">Loading rules…</p>}
      {rules?.length === 0 && (
        <p className="muted" role="note" aria-label="No rules">
          No rules yet. Choose “Always allow” on an approval to save one; it appears here with where it applies.
        </p>
      )}
      {!!rules?.length && (
        <ul className="grant-list rule-list" aria-label="Always-allow rules">
          {rules.map((r) => (
            <li key={r.id} aria-label={`${r.tool} ${r.pattern}`}>
              <div>
                <code>{r.tool}</code> <code className="pattern">{r.pattern}</code>
                <div className="muted small">
                  covers {r.covers}, {r.where} ·{' '}
                  <span data-testid="rule-expiry">
                    {r.expired ? 'expired: those calls ask again' : r.scope === 'task' ? 'until the run ends' : r.expiresAt ? `until ${new Date(r.expiresAt).toLocaleString()}` : 'until revoked'}
                  </span>{' '}
                  · matched {r.matchCount} time{r.matchCount === 1 ? '' : 's'}
                  {r.lastMatchedAt ? `, last ${new Date(r.lastMatchedAt).toLocaleString()}` : ''}
                  {r.source ? ` · from ${r.source}` : ''}
                </div>
              </div>
              <button type="button" className="btn" aria-label={`Revoke ${r.tool} ${r.pattern}`} onClick={() => void revoke(r)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <Feedback error={error} status={status} statusClassName="muted small" />
    </section>
  );
}
