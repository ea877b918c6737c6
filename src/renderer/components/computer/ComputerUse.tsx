/**
 * Computer use in the window: the live "Deskhand is using: <app>" banner with Stop (the kill switch; also in the tray
 * and on a global shortcut), screenshots in computer-use tool cards, and Settings → App grants.
 */
import { useEffect, useState } from 'react';
import type { AppGrantView, ComputerSessionView } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

export function ComputerBanner() {
  const [sessions, setSessions] = useState<ComputerSessionView[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const a = api();
    void a
      .getComputerUse({})
      .then((r) => setSessions(r.sessions))
      .catch(() => undefined);
    return a.on('computerChanged', ({ sessions: s }) => setSessions(s));
  }, []);
  const apps = [...new Set(sessions.flatMap((s) => s.apps))];
  if (!apps.length) return null;
  return (
    <div className="computer-banner" role="status" aria-label="Computer use">
      <span>
        Deskhand is using: <strong>{apps.join(', ')}</strong>
        {sessions[0]?.lastAction ? <span className="muted small"> — {sessions[0].lastAction}</span> : null}
      </span>
      <button
        type="button"
        className="btn danger"
        onClick={() => {
          setError(null);
          api()
            .stopComputerUse({})
            .catch((err: unknown) => setError(errorText(err)));
        }}
      >
        Stop
      </button>
      {error && <span className="error-text">{error}</span>}
    </div>
  );
}

/** PNGs a computer-use tool printed (`Screenshot:`, `Before:`, `After:` lines), with what each shows. */
export function screenshotPaths(tool: string, output: string | null): { label: string; path: string }[] {
  if (!tool.startsWith('computer_') || !output) return [];
  return [...output.matchAll(/^(Screenshot|Before|After): (\S+\.png)$/gm)].map((m) => ({ label: m[1]!, path: m[2]! }));
}

/** A computer-use tool card's screenshots: the observed window, or an action's before and after thumbnails. */
export function Screenshots({ tool, output }: { tool: string; output: string | null }) {
  const shots = screenshotPaths(tool, output);
  const [urls, setUrls] = useState<Record<string, string | null>>({});
  const key = shots.map((s) => s.path).join('\n');
  useEffect(() => {
    let live = true;
    for (const p of key ? key.split('\n') : []) {
      api()
        .readScreenshot({ path: p })
        .then((r) => live && setUrls((u) => ({ ...u, [p]: r.dataUrl })))
        .catch(() => live && setUrls((u) => ({ ...u, [p]: null })));
    }
    return () => {
      live = false;
    };
  }, [key]);
  if (!shots.length) return null;
  return (
    <div className="screenshots" aria-label={`Screenshots of ${tool}`}>
      {shots.map(({ label, path }) => (
        <figure key={path} style={{ margin: 0 }}>
          {urls[path] ? (
            <img src={urls[path]!} alt={`${label} ${path.split('/').pop()}`} className="screenshot" />
          ) : (
            <span className="muted small">{urls[path] === null ? `${path.split('/').pop()} (deleted)` : 'Loading screenshot…'}</span>
          )}
          {label !== 'Screenshot' && <figcaption className="muted small">{label}</figcaption>}
        </figure>
      ))}
    </div>
  );
}

export function AppGrantsSettings() {
  const [grants, setGrants] = useState<AppGrantView[] | null>(null);
  const [missing, setMissing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  useEffect(() => {
    api()
      .listAppGrants({})
      .then((r) => setGrants(r.grants))
      .catch((err: unknown) => setError(errorText(err)));
    api()
      .getComputerUse({})
      .then((r) => setMissing(r.missing))
      .catch(() => undefined);
  }, []);
  async function revoke(g: AppGrantView) {
    setError(null);
    try {
      setGrants((await api().revokeAppGrant({ app: g.app })).grants);
      setStatus(`Revoked ${g.app}: Deskhand may not use it until you grant it again.`);
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <section className="card" aria-labelledby="app-grants-title">
      <h2 id="app-grants-title" className="card-title">
        App grants
      </h2>
      <p className="muted small">Desktop apps Deskhand may use (computer use), and for what. Deskhand asks in the conversation before using any other app.</p>
      {missing && (
        <p className="muted small" role="note">
          Not available here: {missing}
        </p>
      )}
      {grants === null && !error && <p className="muted">Loading app grants…</p>}
      {grants?.length === 0 && (
        <p className="muted" role="note" aria-label="No app grants">
          No app grants yet. When the agent asks to use an app and you grant it, it appears here.
        </p>
      )}
      {!!grants?.length && (
        <ul className="grant-list" aria-label="App grants">
          {grants.map((g) => (
            <li key={g.app} aria-label={g.app}>
              <code>{g.app}</code>
              <span className="muted small"> {g.covers}</span>
              <button type="button" className="btn" aria-label={`Revoke ${g.app}`} onClick={() => void revoke(g)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <Feedback error={error} status={status} />
    </section>
  );
}
