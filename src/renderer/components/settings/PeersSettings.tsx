/**
 * Settings → Peers: other people's agents over Agent2Agent (the same book as `deskhand peers`). Each peer's tier, what
 * its allow list grants beyond the tier, its daily budget and on/off; Add shows the token the peer presents here once
 * (it is kept only in the OS keyring). "Accept requests from peers" turns the A2A endpoint of this host (deskhand web,
 * the app) on and off: its address, port and TLS, its URL and whether it runs (or why not).
 */
import { useEffect, useState } from 'react';
import type { PeerView } from '../../../shared/peers';
import { PEER_TIERS, type PeerTier } from '../../../shared/peers';
import type { MethodResult } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

const TIER_WORDS: Record<PeerTier, string> = {
  public: 'read-only tools whose answers are safe to tell anyone',
  internal: 'read-only tools that show the shape of this machine (folders, names, the time), no file contents',
  private: 'read-only tools that read your material (files, search), never secrets or memory',
};

type EndpointView = MethodResult<'getPeerEndpoint'>;

/** "Accept requests from peers": the endpoint of this host, saved and applied at once. */
function PeerEndpointSection() {
  const [view, setView] = useState<EndpointView | null>(null);
  const [host, setHost] = useState('127.0.0.1');
  const [port, setPort] = useState('');
  const [cert, setCert] = useState('');
  const [key, setKey] = useState('');
  const [inFront, setInFront] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const show = (v: EndpointView) => {
    setView(v);
    setHost(v.settings.host);
    setPort(String(v.settings.port));
    setCert(v.settings.tlsCert ?? '');
    setKey(v.settings.tlsKey ?? '');
    setInFront(v.settings.tlsInFront ?? false);
  };
  useEffect(() => {
    api()
      .getPeerEndpoint({})
      .then(show)
      .catch((err: unknown) => setError(errorText(err)));
  }, []);

  async function save(enabled: boolean) {
    setError(null);
    const n = Number(port);
    if (!Number.isInteger(n) || n < 0 || n > 65535) return setError(`The port is a number 0–65535 (got "${port}").`);
    try {
      show(await api().setPeerEndpoint({ enabled, host: host.trim() || '127.0.0.1', port: n, tlsCert: cert.trim() || null, tlsKey: key.trim() || null, tlsInFront: inFront }));
    } catch (err) {
      setError(errorText(err));
    }
  }

  if (!view) return error ? <p role="alert">{error}</p> : <p className="muted">Loading the endpoint…</p>;
  return (
    <form
      aria-label="Accept requests from peers"
      onSubmit={(e) => {
        e.preventDefault();
        void save(view.settings.enabled);
      }}
    >
      <label>
        <input type="checkbox" aria-label="Accept requests from peers" checked={view.settings.enabled} disabled={!view.available && !view.settings.enabled} onChange={(e) => void save(e.target.checked)} /> Accept requests from peers
      </label>
      <div>
        <input aria-label="Endpoint address" placeholder="127.0.0.1" value={host} onChange={(e) => setHost(e.target.value)} />
        <input aria-label="Endpoint port" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} />
        <input aria-label="TLS certificate file" placeholder="TLS certificate (PEM file, optional)" value={cert} onChange={(e) => setCert(e.target.value)} />
        <input aria-label="TLS key file" placeholder="TLS key (PEM file)" value={key} onChange={(e) => setKey(e.target.value)} />
        <label>
          <input type="checkbox" aria-label="TLS runs in front of it" checked={inFront} onChange={(e) => setInFront(e.target.checked)} /> TLS runs in front of it (a tunnel or proxy I run)
        </label>
        <button type="submit" className="btn">
          Save endpoint
        </button>
      </div>
      <p className="muted small" role="status" aria-label="Endpoint status">
        {view.running && view.url
          ? `Running at ${view.url} (agent card ${view.url}/.well-known/agent-card.json).`
          : view.error
            ? `Not running: ${view.error}`
            : view.settings.enabled
              ? 'Not running.'
              : `Off. ${view.available ? 'Peers cannot reach this Deskhand.' : 'This host does not serve it; run deskhand peers serve.'}`}
      </p>
      {error && <p role="alert">{error}</p>}
      <p className="muted small">Off the machine (an address other than 127.0.0.1) it needs TLS: a certificate and key here, or a tunnel or TLS proxy you run in front of it.</p>
    </form>
  );
}

/** A peer's daily budget: turns, tokens and cost (dollars by the price table; empty: no cost limit). */
function BudgetForm({ peer, onSave }: { peer: PeerView; onSave: (budget: { turnsPerDay: number; tokensPerDay: number; costPerDay: number | null }) => void }) {
  const [turns, setTurns] = useState(String(peer.budget.turnsPerDay));
  const [tokens, setTokens] = useState(String(peer.budget.tokensPerDay));
  const [cost, setCost] = useState(peer.budget.costPerDay === null ? '' : String(peer.budget.costPerDay));
  return (
    <form
      aria-label={`Budget of ${peer.name}`}
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave({ turnsPerDay: Number(turns), tokensPerDay: Number(tokens), costPerDay: cost.trim() === '' ? null : Number(cost) });
      }}
    >
      <label>
        turns/day <input aria-label={`Turns per day of ${peer.name}`} inputMode="numeric" size={5} value={turns} onChange={(e) => setTurns(e.target.value)} />
      </label>{' '}
      <label>
        tokens/day <input aria-label={`Tokens per day of ${peer.name}`} inputMode="numeric" size={9} value={tokens} onChange={(e) => setTokens(e.target.value)} />
      </label>{' '}
      <label>
        $/day <input aria-label={`Cost per day of ${peer.name}`} inputMode="decimal" size={6} placeholder="no limit" value={cost} onChange={(e) => setCost(e.target.value)} />
      </label>{' '}
      <button type="submit" className="btn">
        Save budget
      </button>
    </form>
  );
}

/** The tools a peer's allow list names beyond its tier, edited as one comma-separated line. */
function AllowForm({ peer, onSave }: { peer: PeerView; onSave: (allow: string[]) => void }) {
  const [text, setText] = useState(peer.allow.join(', '));
  return (
    <form
      aria-label={`Allow list of ${peer.name}`}
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(text.split(/[\s,]+/).filter(Boolean));
      }}
    >
      <input aria-label={`Allowed tools of ${peer.name}`} placeholder="tools beyond the tier (e.g. write_file)" value={text} onChange={(e) => setText(e.target.value)} />{' '}
      <button type="submit" className="btn">
        Save allow list
      </button>
    </form>
  );
}

export function PeersSettings() {
  const [peers, setPeers] = useState<PeerView[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  const [name, setName] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [tier, setTier] = useState<PeerTier>('public');

  const load = () =>
    api()
      .listPeers({})
      .then((r) => setPeers(r.peers))
      .catch((err: unknown) => setError(errorText(err)));

  useEffect(() => {
    void load();
  }, []);

  async function act(fn: () => Promise<unknown>, done: string) {
    setError(null);
    setStatus(null);
    try {
      await fn();
      setStatus(done);
    } catch (err) {
      setError(errorText(err));
    }
    void load();
  }

  async function add(e: React.FormEvent) {
    e.preventDefault();
    setShown(null);
    await act(async () => {
      const r = await api().addPeer({ name: name.trim(), endpoint: endpoint.trim() || null, tier, allow: [] });
      setShown({ name: r.peer.name, token: r.inboundToken });
      setName('');
      setEndpoint('');
    }, `Added peer ${name.trim()}.`);
  }

  return (
    <section className="card" aria-labelledby="peers-title">
      <h2 id="peers-title" className="card-title">
        Peers
      </h2>
      <p className="muted small">
        Other people’s agents that may ask this Deskhand for help (Agent2Agent). A peer’s tier grants only {`read-only`} tools at or below it; writes, anything that sends material off this machine, your
        secrets, memory and bookkeeping only when its allow list names them. Turn on the endpoint below (or run <code>deskhand peers serve</code>).
      </p>
      <PeerEndpointSection />
      {shown && (
        <div role="alert" aria-label="New peer token" className="notice">
          Give {shown.name} this token; it is shown only now and kept in the keyring: <code>{shown.token}</code>
        </div>
      )}
      {peers === null && !error && <p className="muted">Loading peers…</p>}
      {peers?.length === 0 && (
        <p className="muted" role="note" aria-label="No peers">
          No peers yet.
        </p>
      )}
      {!!peers?.length && (
        <ul className="grant-list" aria-label="Peers">
          {peers.map((p) => (
            <li key={p.name} aria-label={`Peer ${p.name}`}>
              <div>
                <code>{p.name}</code> {p.enabled ? '' : '(off) '}
                <label>
                  tier{' '}
                  <select aria-label={`Tier of ${p.name}`} value={p.tier} onChange={(e) => void act(() => api().updatePeer({ name: p.name, tier: e.target.value as PeerTier }), `${p.name} is now ${e.target.value}.`)}>
                    {PEER_TIERS.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </label>
                <div className="muted small">
                  {TIER_WORDS[p.tier]}; allow: {p.allow.length ? p.allow.join(', ') : 'nothing more'} · {p.endpoint ?? 'no endpoint (they only call here)'} · today {p.usedToday.turns}/{p.budget.turnsPerDay} turns,{' '}
                  {p.usedToday.tokens}/{p.budget.tokensPerDay} tokens, ${p.usedToday.costUsd.toFixed(4)}
                  {p.budget.costPerDay === null ? ' (no cost limit)' : `/$${p.budget.costPerDay}`}
                </div>
                <AllowForm key={`allow-${p.allow.join(',')}`} peer={p} onSave={(allow) => void act(() => api().updatePeer({ name: p.name, allow }), `${p.name}'s allow list is saved.`)} />
                <BudgetForm key={`budget-${JSON.stringify(p.budget)}`} peer={p} onSave={(budget) => void act(() => api().updatePeer({ name: p.name, budget }), `${p.name}'s budget is saved.`)} />
              </div>
              <button type="button" className="btn" onClick={() => void act(() => api().updatePeer({ name: p.name, enabled: !p.enabled }), `${p.name} is ${p.enabled ? 'off' : 'on'}.`)}>
                {p.enabled ? 'Turn off' : 'Turn on'}
              </button>
              <button type="button" className="btn" aria-label={`Remove ${p.name}`} onClick={() => void act(() => api().removePeer({ name: p.name }), `Removed ${p.name} and its tokens.`)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void add(e)} aria-label="Add a peer">
        <input aria-label="Peer name" placeholder="name (e.g. alice)" value={name} onChange={(e) => setName(e.target.value)} />
        <input aria-label="Peer endpoint" placeholder="their endpoint URL (optional)" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} />
        <select aria-label="Tier of the new peer" value={tier} onChange={(e) => setTier(e.target.value as PeerTier)}>
          {PEER_TIERS.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <button type="submit" className="btn" disabled={!name.trim()}>
          Add peer
        </button>
      </form>
      <Feedback error={error} status={status} statusClassName="muted small" />
    </section>
  );
}
