/**
 * Settings → Browser: the sites whose sign-in the browser keeps. Spec I's browser_close discards a session's cookies
 * and storage; a person who wants a signed-in profile kept for a site names it here (`browser.keepSignedIn`), per
 * site. Its own Save row comes in `footer` (SectionSave.tsx).
 */
import { useState, type ReactNode } from 'react';
import type { Settings } from '../../../shared/contract';
import { parseKeptSite } from '../../../shared/browser-sites';

/** The list after adding one spelling, or why it cannot be added. */
export function addKeptSite(list: readonly string[], input: string): { ok: true; list: string[] } | { ok: false; reason: string } {
  const parsed = parseKeptSite(input);
  if (!parsed.ok) return parsed;
  if (list.includes(parsed.site)) return { ok: false, reason: `${parsed.site} is already kept` };
  return { ok: true, list: [...list, parsed.site] };
}

export function BrowserSettings({ draft, setDraft, footer }: { draft: Settings; setDraft(s: Settings): void; footer?: ReactNode }) {
  const [site, setSite] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const kept = draft.browser?.keepSignedIn ?? [];
  const set = (keepSignedIn: string[]) => setDraft({ ...draft, browser: { ...(draft.browser ?? {}), keepSignedIn } });
  const add = () => {
    const r = addKeptSite(kept, site);
    if (!r.ok) return setProblem(r.reason);
    set(r.list);
    setSite('');
    setProblem(null);
  };
  return (
    <fieldset className="card">
      <legend>Browser</legend>
      <p className="muted small">
        When the agent closes its browser (browser_close, or Stop in the browser panel), the cookies and storage of every site it visited are discarded: the
        next session starts signed out. Sites listed here stay signed in (their subdomains too), for every conversation that uses the browser.
      </p>
      <div className="field">
        <span id="kept-sites-label">Keep signed in on these sites</span>
        <ul className="folder-list" aria-labelledby="kept-sites-label">
          {kept.map((s) => (
            <li key={s}>
              <code>{s}</code>
              <button type="button" className="link-button" aria-label={`Stop keeping ${s} signed in`} onClick={() => set(kept.filter((x) => x !== s))}>
                Remove
              </button>
            </li>
          ))}
          {!kept.length && <li className="muted small">None: every site is signed out when a session ends.</li>}
        </ul>
        <span className="field-row">
          <input
            aria-label="Add a site to keep signed in"
            value={site}
            placeholder="example.com"
            spellCheck={false}
            onChange={(e) => setSite(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
          <button type="button" className="btn" disabled={!site.trim()} onClick={add}>
            Keep signed in
          </button>
        </span>
        {problem && (
          <span className="error-text small" role="alert">
            {problem}
          </span>
        )}
      </div>
      {footer}
    </fieldset>
  );
}
