/**
 * Settings → Web search (web_search's backend: none, SearXNG at a URL, Brave Search or Tavily with an API key that goes
 * one way into the vault) and Settings → URL grants (patterns whose matching requests run unattended; each says what it
 * covers). Each is its own form: saving one never saves the other or the provider settings.
 */
import { useEffect, useState } from 'react';
import type { UrlGrantView, WebSearchView } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

type Choice = 'none' | 'searxng' | 'brave' | 'tavily';
const CHOICES: { value: Choice; label: string }[] = [
  { value: 'none', label: 'None (web_search is off)' },
  { value: 'searxng', label: 'SearXNG (your own instance, no key)' },
  { value: 'brave', label: 'Brave Search API' },
  { value: 'tavily', label: 'Tavily' },
];
const KEY_LABEL: Record<'brave' | 'tavily', string> = { brave: 'Brave Search', tavily: 'Tavily' };
const DEFAULT_SECRET: Record<'brave' | 'tavily', string> = { brave: 'BRAVE_API_KEY', tavily: 'TAVILY_API_KEY' };

export function WebSearchSettings() {
  const [view, setView] = useState<WebSearchView | null>(null);
  const [choice, setChoice] = useState<Choice>('none');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [key, setKey] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = (v: WebSearchView) => {
    setView(v);
    setChoice(v.search?.backend ?? 'none');
    setUrl(v.search?.url ?? '');
    setSecret(v.search?.keySecret ?? '');
  };
  useEffect(() => {
    api()
      .getWebSearch({})
      .then(load)
      .catch((err: unknown) => setError(errorText(err)));
  }, []);

  // Unsaved changes: the form differs from what is saved (the same one-save-per-section model as SectionSave.tsx).
  const dirty =
    !!view && (choice !== (view.search?.backend ?? 'none') || url !== (view.search?.url ?? '') || secret !== (view.search?.keySecret ?? '') || !!key.trim());

  async function save() {
    setError(null);
    setStatus(null);
    try {
      const next = await api().setWebSearch({
        backend: choice,
        url: choice === 'none' || !url.trim() ? null : url.trim(),
        keySecret: choice === 'brave' || choice === 'tavily' ? secret.trim() || null : null,
        ...((choice === 'brave' || choice === 'tavily') && key.trim() ? { key: key.trim() } : {}),
      });
      setKey('');
      load(next);
      setStatus('Web search saved.');
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <form
      aria-label="Web search"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <fieldset className="card">
        <legend>Web search</legend>
        {!view && !error && <p className="muted">Loading the web search backend…</p>}
        {view && (
          <p role="status" aria-label="Web search backend" className={view.search ? 'muted' : 'banner'}>
            {view.message}
          </p>
        )}
        <div role="radiogroup" aria-label="Search backend">
          {CHOICES.map((c) => (
            <label key={c.value} className="radio">
              <input type="radio" name="search-backend" value={c.value} checked={choice === c.value} onChange={() => setChoice(c.value)} />
              {c.label}
            </label>
          ))}
        </div>
        {choice !== 'none' && (
          <label className="field">
            <span>{choice === 'searxng' ? 'SearXNG URL (required)' : 'API URL (optional)'}</span>
            <input
              aria-label={choice === 'searxng' ? 'SearXNG URL' : 'Search API URL'}
              value={url}
              placeholder={choice === 'searxng' ? 'http://127.0.0.1:8888' : 'default'}
              onChange={(e) => setUrl(e.target.value)}
              spellCheck={false}
            />
          </label>
        )}
        {(choice === 'brave' || choice === 'tavily') && (
          <>
            <label className="field">
              <span>Vault secret holding the key</span>
              <input aria-label="Key secret name" value={secret} placeholder={DEFAULT_SECRET[choice]} onChange={(e) => setSecret(e.target.value)} spellCheck={false} />
            </label>
            <label className="field">
              <span>API key (saved to the OS keyring; leave empty to keep the saved one)</span>
              <input
                type="password"
                autoComplete="off"
                aria-label={`API key for ${KEY_LABEL[choice]}`}
                value={key}
                placeholder={view?.keySaved ? 'Replace the saved key' : 'Paste a key'}
                onChange={(e) => setKey(e.target.value)}
                disabled={view ? !view.vault.available : false}
              />
            </label>
            {view && !view.vault.available && <p className="muted small">The OS keyring is not available here: {view.vault.message}</p>}
          </>
        )}
        <Feedback error={error} status={status} />
        <div className="actions">
          {dirty && <span className="muted small">Unsaved changes</span>}
          <button type="submit" className="btn primary">
            Save web search
          </button>
        </div>
      </fieldset>
    </form>
  );
}

export function UrlGrantsSettings() {
  const [grants, setGrants] = useState<UrlGrantView[] | null>(null);
  const [pattern, setPattern] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api()
      .listUrlGrants({})
      .then((r) => setGrants(r.grants))
      .catch((err: unknown) => setError(errorText(err)));
  }, []);

  async function add() {
    setError(null);
    setStatus(null);
    try {
      const r = await api().addUrlGrant({ pattern });
      setGrants(r.grants);
      setPattern('');
      setStatus(`Added ${r.grant.pattern}.`);
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function revoke(g: UrlGrantView) {
    setError(null);
    setStatus(null);
    try {
      setGrants((await api().revokeUrlGrant({ id: g.id })).grants);
      setStatus(`Revoked ${g.pattern}.`);
    } catch (err) {
      setError(errorText(err));
      void api()
        .listUrlGrants({})
        .then((r) => setGrants(r.grants))
        .catch(() => undefined);
    }
  }

  return (
    <section className="card" aria-labelledby="url-grants-title">
      <h2 id="url-grants-title" className="card-title">
        URL grants
      </h2>
      <p className="muted small">
        Requests (web_fetch, http_request) to a URL matching a grant run without asking. A grant covers a private destination (this machine, your network) only
        when it names that exact host and port; a wildcard host never does.
      </p>
      {grants === null && !error && <p className="muted">Loading URL grants…</p>}
      {grants?.length === 0 && (
        <p className="muted" role="note" aria-label="No URL grants">
          No URL grants yet. Patterns you add here (or with deskhand grants add-url) appear in this list with what each covers.
        </p>
      )}
      {!!grants?.length && (
        <ul className="grant-list" aria-label="URL grants">
          {grants.map((g) => (
            <li key={g.id} aria-label={g.pattern}>
              <code>{g.pattern}</code>
              <span className="muted small"> covers {g.covers}</span>
              <button type="button" className="btn" aria-label={`Revoke ${g.pattern}`} onClick={() => void revoke(g)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        aria-label="Add a URL grant"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <div className="field">
          <span>New pattern</span>
          <span className="field-row">
            <input aria-label="URL pattern" value={pattern} placeholder="https://api.example.com/v1/*" onChange={(e) => setPattern(e.target.value)} spellCheck={false} />
            <button type="submit" className="btn" disabled={!pattern.trim()}>
              Add grant
            </button>
          </span>
        </div>
      </form>
      <Feedback error={error} status={status} />
    </section>
  );
}
