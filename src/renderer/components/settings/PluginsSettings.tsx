/**
 * Settings → Plugins: installed plugins (enable, disable, remove), the marketplaces added and what each offers, and
 * installing in two steps — what the plugin brings (hooks, servers, commands, agents, skills) is shown first and
 * installed only when the person accepts it. The same service as `deskhand plugins` (docs/plugins.md).
 */
import { useEffect, useState } from 'react';
import type { ClaudeCompatView, PluginsView } from '../../../shared/contract/extensions';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';
import { Feedback } from '../common/Feedback';

/**
 * Claude Code compatibility for the selected conversation's folder (services/compat): off by default; on, its
 * `.claude/commands`, `.claude/agents` and `.claude/settings.json` hooks are read (hooks still wait for trust).
 */
export function ClaudeCompatToggle() {
  const folder = useConversations((s) => s.list.find((c) => c.id === s.selectedId)?.folder ?? null);
  const [view, setView] = useState<ClaudeCompatView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setView(null);
    if (!folder) return;
    void api()
      .getClaudeCompat({ folder })
      .then(setView)
      .catch((err: unknown) => setError(errorText(err)));
  }, [folder]);
  if (!folder) return <p className="muted small">Claude Code compatibility is set per folder: open a conversation, then come back here.</p>;
  // The box follows the click at once (a checkbox that flips only when the host answers looks dead on a slow link);
  // the host's answer then stands, and a refusal puts it back with the reason.
  const set = (on: boolean) => {
    const before = view;
    setError(null);
    setView((v) => (v ? { ...v, on } : v));
    void api()
      .setClaudeCompat({ folder, on })
      .then(setView)
      .catch((err: unknown) => {
        setView(before);
        setError(errorText(err));
      });
  };
  return (
    <div className="field">
      <label className="field-row">
        <input type="checkbox" aria-label="Claude Code compatibility for this folder" checked={view?.on ?? false} disabled={!view} onChange={(e) => set(e.target.checked)} />
        <span>
          Claude Code compatibility for <code className="small">{view?.folder ?? folder}</code>: read its .claude/commands, .claude/agents and .claude/settings.json hooks
          {view?.claude.length ? ` (it has ${view.claude.join(', ')})` : ''}. Its hooks still run only once you trust them (deskhand hooks trust). Also: deskhand compat.
        </span>
      </label>
      <Feedback error={error} />
    </div>
  );
}

export function PluginsSettings() {
  const [view, setView] = useState<PluginsView | null>(null);
  const [source, setSource] = useState('');
  const [preview, setPreview] = useState<{ label: string; text: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void api()
      .listPlugins({})
      .then(setView)
      .catch((err: unknown) => setError(errorText(err)));
  }, []);

  async function act(label: string, fn: () => Promise<PluginsView & { preview?: string | null }>, after?: (r: PluginsView & { preview?: string | null }) => void) {
    setError(null);
    setBusy(label);
    try {
      const r = await fn();
      setView({ plugins: r.plugins, marketplaces: r.marketplaces });
      after?.(r);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  }

  const review = (label: string) => act(`Fetching ${label}…`, () => api().installPlugin({ label }), (r) => setPreview(r.preview ? { label, text: r.preview } : null));

  return (
    <section className="card" aria-labelledby="plugins-title">
      <h2 id="plugins-title" className="card-title">
        Plugins
      </h2>
      <p className="muted small">
        Plugins in Claude Code&apos;s layout bring slash commands, agent definitions, skills, hooks and MCP servers. Each goes through the same checks as one
        you add by hand. Also: deskhand plugins.
      </p>
      <ClaudeCompatToggle />
      {view === null && !error && <p className="muted">Loading plugins…</p>}
      {view?.plugins.length === 0 && <p className="muted">No plugins installed.</p>}
      {!!view?.plugins.length && (
        <ul className="grant-list" aria-label="Installed plugins">
          {view.plugins.map((p) => (
            <li key={p.label} aria-label={`Plugin ${p.label}`}>
              <div>
                <strong>{p.label}</strong> {p.version && <span className="muted small">{p.version}</span>} <span className="muted small">{p.enabled ? 'enabled' : 'disabled'}</span>
              </div>
              {p.description && <p className="small">{p.description}</p>}
              <span className="field-row">
                <button type="button" className="btn" disabled={!!busy} onClick={() => void act(`${p.enabled ? 'Disabling' : 'Enabling'} ${p.label}…`, () => api().setPluginEnabled({ label: p.label, enabled: !p.enabled }))}>
                  {p.enabled ? 'Disable' : 'Enable'}
                </button>
                <button type="button" className="btn" disabled={!!busy} onClick={() => void review(p.label)}>
                  Update
                </button>
                <button type="button" className="btn" disabled={!!busy} aria-label={`Remove ${p.label}`} onClick={() => void act(`Removing ${p.label}…`, () => api().removePlugin({ label: p.label }))}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {!!view?.marketplaces.length && (
        <ul className="grant-list" aria-label="Marketplaces">
          {view.marketplaces.map((m) => (
            <li key={m.name} aria-label={`Marketplace ${m.name}`}>
              <div>
                <strong>{m.name}</strong> <code className="small">{m.source}</code>
              </div>
              {m.error && <p className="error-text small">{m.error}</p>}
              {m.plugins.map((p) => (
                <div key={p.name} className="field-row">
                  <span>
                    {p.name} <span className="muted small">{p.description}</span>
                  </span>
                  {!p.installed && (
                    <button type="button" className="btn" disabled={!!busy} onClick={() => void review(`${p.name}@${m.name}`)}>
                      Install…
                    </button>
                  )}
                </div>
              ))}
            </li>
          ))}
        </ul>
      )}
      {preview && (
        <div role="dialog" aria-label={`Install ${preview.label}`} className="card">
          <pre className="small">{preview.text}</pre>
          <span className="field-row">
            <button type="button" className="btn primary" disabled={!!busy} onClick={() => void act(`Installing ${preview.label}…`, () => api().installPlugin({ label: preview.label, accept: true }), () => setPreview(null))}>
              Accept and install
            </button>
            <button type="button" className="btn" onClick={() => setPreview(null)}>
              Cancel
            </button>
          </span>
        </div>
      )}
      <form
        aria-label="Add a marketplace"
        onSubmit={(e) => {
          e.preventDefault();
          void act('Adding the marketplace…', () => api().addMarketplace({ source }), () => setSource(''));
        }}
      >
        <div className="field-row">
          <input aria-label="Marketplace URL or folder" placeholder="https://github.com/owner/marketplace.git or a folder" value={source} onChange={(e) => setSource(e.target.value)} spellCheck={false} />
          <button type="submit" className="btn" disabled={!source.trim() || !!busy}>
            Add marketplace
          </button>
        </div>
      </form>
      {busy && <p role="status" className="muted">{busy}</p>}
      <Feedback error={error} />
    </section>
  );
}
