/**
 * Settings → MCP: the configured servers with their health (connected or not, tool count, last error with the tail
 * of the server's stderr), reconnect and remove, and a form to add a stdio server (a command line) or an HTTP one (a
 * URL) with its tier. The same data as `deskhand mcp list`.
 */
import { useEffect, useState } from 'react';
import type { McpServerViewRow } from '../../../shared/contract/extensions';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

const TIERS = ['ask', 'read-only', 'low-risk', 'high-risk'] as const;

export function McpSettings() {
  const [servers, setServers] = useState<McpServerViewRow[] | null>(null);
  const [name, setName] = useState('');
  const [transport, setTransport] = useState<'stdio' | 'http' | 'sse'>('stdio');
  const [target, setTarget] = useState('');
  const [tier, setTier] = useState<(typeof TIERS)[number]>('ask');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = () =>
    api()
      .listMcpServers({})
      .then((r) => setServers(r.servers))
      .catch((err: unknown) => setError(errorText(err)));
  useEffect(() => {
    void refresh();
    return api().on('toolsChanged', () => void refresh());
  }, []);

  async function act(label: string, fn: () => Promise<{ servers: McpServerViewRow[] }>) {
    setError(null);
    setBusy(label);
    try {
      setServers((await fn()).servers);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(null);
    }
  }

  async function add() {
    const ok = await act(`Connecting ${name}…`, () => api().addMcpServer({ name, transport, tier, ...(transport === 'stdio' ? { command: target } : { url: target }) }));
    if (ok) {
      setName('');
      setTarget('');
    }
  }

  return (
    <section className="card" aria-labelledby="mcp-title">
      <h2 id="mcp-title" className="card-title">
        MCP servers
      </h2>
      <p className="muted small">
        Tools from MCP servers appear as mcp__server__tool. Every call counts as sending data out; without a tier a call asks every time. Servers run
        with a clean environment. Also: deskhand mcp add | list | test | remove.
      </p>
      {servers === null && !error && <p className="muted">Loading MCP servers…</p>}
      {servers?.length === 0 && <p className="muted">No MCP servers yet.</p>}
      {!!servers?.length && (
        <ul className="grant-list mcp-list" aria-label="MCP servers">
          {servers.map((s) => (
            <li key={s.name} aria-label={`MCP server ${s.name}`}>
              <div>
                <strong>{s.name}</strong> <span className="muted small">{s.transport}</span>{' '}
                <span className={`run-chip ${s.status === 'connected' ? 'ok' : s.status === 'failed' ? 'failed' : ''}`} role="status" aria-label={`${s.name} status`}>
                  {s.status}
                  {s.status === 'connected' ? `, ${s.tools} tools` : ''}
                </span>{' '}
                <span className="muted small">tier {s.tier}</span>
              </div>
              <code className="small">{s.target}</code>
              {s.lastError && s.status !== 'connected' && (
                <p className="error-text small" aria-label={`${s.name} last error`}>
                  {s.lastError}
                </p>
              )}
              {s.stderrTail && s.status !== 'connected' && (
                <pre className="small" aria-label={`${s.name} stderr`}>
                  {s.stderrTail.trimEnd().split('\n').slice(-8).join('\n')}
                </pre>
              )}
              <span className="field-row">
                <button type="button" className="btn" disabled={!!busy} onClick={() => void act(`Reconnecting ${s.name}…`, () => api().testMcpServer({ name: s.name }))}>
                  Reconnect
                </button>
                <button type="button" className="btn" disabled={!!busy} aria-label={`Remove ${s.name}`} onClick={() => void act(`Removing ${s.name}…`, () => api().removeMcpServer({ name: s.name }))}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <form
        aria-label="Add an MCP server"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <div className="field-row">
          <input aria-label="Server name" placeholder="name" value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} />
          <select aria-label="Transport" value={transport} onChange={(e) => setTransport(e.target.value as typeof transport)}>
            <option value="stdio">command (stdio)</option>
            <option value="http">URL (Streamable HTTP)</option>
            <option value="sse">URL (legacy SSE)</option>
          </select>
          <select aria-label="Tier" value={tier} onChange={(e) => setTier(e.target.value as typeof tier)}>
            {TIERS.map((t) => (
              <option key={t} value={t}>
                {t === 'ask' ? 'ask every time' : t}
              </option>
            ))}
          </select>
        </div>
        <div className="field-row">
          <input
            aria-label={transport === 'stdio' ? 'Command' : 'URL'}
            placeholder={transport === 'stdio' ? 'npx -y @modelcontextprotocol/server-everything' : 'https://example.com/mcp'}
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            spellCheck={false}
          />
          <button type="submit" className="btn" disabled={!name.trim() || !target.trim() || !!busy}>
            Add server
          </button>
        </div>
      </form>
      {busy && <p role="status" className="muted">{busy}</p>}
      <Feedback error={error} />
    </section>
  );
}

/** The agent profile of a conversation (profiles are made with `deskhand profiles add`). Hidden when there are none. */
export function ProfileSelect({ conversationId }: { conversationId: string }) {
  const [state, setState] = useState<{ profiles: { name: string }[]; current: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api()
      .listProfiles({ conversationId })
      .then(setState)
      .catch(() => setState(null));
  }, [conversationId]);
  if (!state?.profiles.length) return null;
  return (
    <label className="policy">
      <span className="sr-only">Agent profile</span>
      <select
        aria-label="Agent profile"
        value={state.current ?? ''}
        title={error ?? 'Agent profile: instructions, tools, policy and sandbox'}
        onChange={(e) =>
          void api()
            .setConversationProfile({ conversationId, profile: e.target.value })
            .then((r) => {
              setState(r);
              setError(null);
            })
            .catch((err: unknown) => setError(errorText(err)))
        }
      >
        <option value="" disabled>
          no profile
        </option>
        {state.profiles.map((p) => (
          <option key={p.name} value={p.name}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  );
}
