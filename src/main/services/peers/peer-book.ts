/**
 * The peer book: the person's peers (store module peers.ts) and their tokens in the OS keyring (SecretStore, accounts
 * `peer.<book>.<name>.inbound` — what the peer presents to us, made here and shown once — and
 * `peer.<book>.<name>.outbound` — what we present to them, given by the person). `<book>` names the data folder (a
 * digest of its real path): the keyring is the user's, shared by every Deskhand data folder of theirs, and a peer
 * "alice" of one folder must not take or overwrite the tokens of another folder's "alice". Values leave only through `checkInbound` (a constant-time comparison) and
 * `outboundToken` (the A2A client's Authorization header).
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { DeskhandError } from '../../../shared/errors';
import { DEFAULT_PEER_BUDGET, PEER_TIERS, allowNameSchema, checkPeerEndpoint, peerNameSchema, type PeerBudget, type PeerTier, type PeerView } from '../../../shared/peers';
import type { SecretStore } from '../vault/secret-store';
import type { Store } from '../store/store';
import { peersModule, type PeerRow } from '../store/modules/peers';

export const PEER_ACCOUNT_PREFIX = 'peer.';
/** The keyring accounts of one data folder's peer. */
export function peerAccounts(dataDir: string, name: string): { inbound: string; outbound: string } {
  let real = resolve(dataDir);
  try {
    real = realpathSync(real);
  } catch {
    // not made yet: its resolved path names it
  }
  const book = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return { inbound: `${PEER_ACCOUNT_PREFIX}${book}.${name}.inbound`, outbound: `${PEER_ACCOUNT_PREFIX}${book}.${name}.outbound` };
}

export interface PeerRecord {
  name: string;
  endpoint: string | null;
  tier: PeerTier;
  allow: string[];
  budget: PeerBudget;
  enabled: boolean;
  createdAt: number;
}

export interface NewPeer {
  name: string;
  endpoint?: string | null;
  tier: PeerTier;
  allow?: readonly string[];
  budget?: Partial<PeerBudget>;
  /** The token this Deskhand presents when calling them (they gave it to the person). */
  outboundToken?: string | null;
}

/** Today's key for budgets (UTC day). */
export const utcDay = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);

function parseAllow(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function recordOf(row: PeerRow): PeerRecord {
  return {
    name: row.name,
    endpoint: row.endpoint,
    tier: (PEER_TIERS as readonly string[]).includes(row.tier) ? (row.tier as PeerTier) : 'public',
    allow: parseAllow(row.allow),
    budget: { turnsPerDay: row.turns_per_day, tokensPerDay: row.tokens_per_day, costPerDay: row.cost_per_day },
    enabled: row.enabled === 1,
    createdAt: row.created_at,
  };
}

function usageError(message: string): DeskhandError {
  return new DeskhandError('usage', message);
}

export function checkTier(raw: string): PeerTier {
  const t = raw.trim().toLowerCase();
  if (!(PEER_TIERS as readonly string[]).includes(t)) throw usageError(`"${raw.slice(0, 40)}" is not a disclosure tier; use public, internal or private.`);
  return t as PeerTier;
}

export function checkAllow(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const r = allowNameSchema.safeParse(n);
    if (!r.success) throw usageError(`"${String(n).slice(0, 80)}": ${r.error.issues[0]?.message}`);
    if (!out.includes(r.data)) out.push(r.data);
  }
  return out;
}

export function checkPeerName(raw: string): string {
  const r = peerNameSchema.safeParse(raw);
  if (!r.success) throw usageError(r.error.issues[0]?.message ?? 'bad peer name');
  return r.data;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export class PeerBook {
  readonly #rows: ReturnType<typeof peersModule.queries>;
  readonly #dataDir: string;

  constructor(
    store: Store,
    private readonly secrets: SecretStore,
  ) {
    this.#rows = store.module(peersModule);
    this.#dataDir = store.dataDir;
  }

  list(): PeerRecord[] {
    return this.#rows.list().map(recordOf);
  }

  get(name: string): PeerRecord | null {
    const row = this.#rows.get(name);
    return row ? recordOf(row) : null;
  }

  require(name: string): PeerRecord {
    const peer = this.get(name);
    if (!peer) throw new DeskhandError('not_found', `No peer "${name.slice(0, 40)}" (see deskhand peers list).`);
    return peer;
  }

  /** Adds a peer and makes the token it will present to us; returns that token (shown once, kept only in the keyring). */
  async add(input: NewPeer): Promise<{ peer: PeerRecord; inboundToken: string }> {
    const name = checkPeerName(input.name);
    if (this.#rows.get(name)) throw usageError(`A peer "${name}" exists already (deskhand peers show ${name}).`);
    let endpoint: string | null = null;
    if (input.endpoint) {
      const e = checkPeerEndpoint(input.endpoint);
      if ('error' in e) throw usageError(e.error);
      endpoint = e.url;
    }
    const budget = { ...DEFAULT_PEER_BUDGET, ...(input.budget ?? {}) };
    const inboundToken = `dhp_${randomBytes(24).toString('base64url')}`;
    await this.secrets.set(peerAccounts(this.#dataDir, name).inbound, inboundToken);
    if (input.outboundToken) await this.secrets.set(peerAccounts(this.#dataDir, name).outbound, input.outboundToken);
    this.#rows.insert({
      name,
      endpoint,
      tier: checkTier(input.tier),
      allow: JSON.stringify(checkAllow(input.allow ?? [])),
      turns_per_day: budget.turnsPerDay,
      tokens_per_day: budget.tokensPerDay,
      cost_per_day: budget.costPerDay,
      enabled: 1,
    });
    return { peer: this.require(name), inboundToken };
  }

  /** Removes the peer and both its tokens. */
  async remove(name: string): Promise<boolean> {
    const had = this.#rows.remove(name);
    await this.secrets.delete(peerAccounts(this.#dataDir, name).inbound).catch(() => false);
    await this.secrets.delete(peerAccounts(this.#dataDir, name).outbound).catch(() => false);
    return had;
  }

  setTier(name: string, tier: string): PeerRecord {
    this.require(name);
    this.#rows.update(name, { tier: checkTier(tier) });
    return this.require(name);
  }

  /** Adds (or with `remove`, takes away) tool names from the allow list. */
  changeAllow(name: string, add: readonly string[], remove: readonly string[] = []): PeerRecord {
    const peer = this.require(name);
    const drop = new Set(checkAllow(remove));
    const next = [...peer.allow.filter((n) => !drop.has(n)), ...checkAllow(add).filter((n) => !peer.allow.includes(n))];
    this.#rows.update(name, { allow: JSON.stringify(next) });
    return this.require(name);
  }

  setEnabled(name: string, enabled: boolean): PeerRecord {
    this.require(name);
    this.#rows.update(name, { enabled: enabled ? 1 : 0 });
    return this.require(name);
  }

  setBudget(name: string, budget: Partial<PeerBudget>): PeerRecord {
    const peer = this.require(name);
    const next = { ...peer.budget, ...budget };
    this.#rows.update(name, { turns_per_day: next.turnsPerDay, tokens_per_day: next.tokensPerDay, cost_per_day: next.costPerDay });
    return this.require(name);
  }

  setEndpoint(name: string, endpoint: string | null): PeerRecord {
    this.require(name);
    let url: string | null = null;
    if (endpoint) {
      const e = checkPeerEndpoint(endpoint);
      if ('error' in e) throw usageError(e.error);
      url = e.url;
    }
    this.#rows.update(name, { endpoint: url });
    return this.require(name);
  }

  /** Makes a new inbound token (the old one stops working at once); returns it, shown once. */
  async rotateInbound(name: string): Promise<string> {
    this.require(name);
    const token = `dhp_${randomBytes(24).toString('base64url')}`;
    await this.secrets.set(peerAccounts(this.#dataDir, name).inbound, token);
    return token;
  }

  async setOutboundToken(name: string, token: string | null): Promise<void> {
    this.require(name);
    if (token) await this.secrets.set(peerAccounts(this.#dataDir, name).outbound, token);
    else await this.secrets.delete(peerAccounts(this.#dataDir, name).outbound);
  }

  async hasOutboundToken(name: string): Promise<boolean> {
    return (await this.secrets.get(peerAccounts(this.#dataDir, name).outbound)) !== null;
  }

  /** The token to present when calling this peer (the A2A client only). */
  async outboundToken(name: string): Promise<string | null> {
    return this.secrets.get(peerAccounts(this.#dataDir, name).outbound);
  }

  /**
   * The enabled peer whose inbound token this is, or null. Every peer's token is compared (as digests, in constant
   * time), so the time taken does not tell which one nearly matched.
   */
  async checkInbound(token: string): Promise<PeerRecord | null> {
    if (!token) return null;
    const given = digest(token);
    let found: PeerRecord | null = null;
    for (const peer of this.list()) {
      const saved = await this.secrets.get(peerAccounts(this.#dataDir, peer.name).inbound);
      if (saved && timingSafeEqual(digest(saved), given) && !found) found = peer;
    }
    return found && found.enabled ? found : null;
  }

  /** The token values this book holds, for the redactor (they never appear in a result or a transcript). */
  async tokenValues(): Promise<string[]> {
    const out: string[] = [];
    for (const peer of this.list()) {
      for (const account of [peerAccounts(this.#dataDir, peer.name).inbound, peerAccounts(this.#dataDir, peer.name).outbound]) {
        const v = await this.secrets.get(account);
        if (v) out.push(v);
      }
    }
    return out;
  }

  usedToday(name: string, now = Date.now()): { turns: number; tokens: number; costUsd: number } {
    const u = this.#rows.usage(name, utcDay(now));
    return { turns: u.turns, tokens: u.tokens, costUsd: u.cost_usd };
  }

  /** Counts one incoming turn unless the budget is spent; returns the reason it is refused, or null. */
  takeTurn(name: string, now = Date.now()): string | null {
    const peer = this.require(name);
    const used = this.usedToday(name, now);
    if (used.turns >= peer.budget.turnsPerDay) return `Peer ${name} has used its ${peer.budget.turnsPerDay} turns for today (UTC); ask again tomorrow.`;
    if (used.tokens >= peer.budget.tokensPerDay) return `Peer ${name} has used its ${peer.budget.tokensPerDay} tokens for today (UTC); ask again tomorrow.`;
    const cost = peer.budget.costPerDay;
    if (cost !== null && used.costUsd >= cost) return `Peer ${name} has used its $${cost} of model cost for today (UTC; $${used.costUsd.toFixed(4)} spent); ask again tomorrow.`;
    this.#rows.addUsage(name, utcDay(now), 1, 0);
    return null;
  }

  /** Counts a finished run's tokens and its cost (dollars by the price table; 0 for a model it does not price). */
  addUsage(name: string, tokens: number, costUsd = 0, now = Date.now()): void {
    if ((tokens > 0 || costUsd > 0) && this.get(name)) this.#rows.addUsage(name, utcDay(now), 0, Math.max(0, Math.round(tokens)), Math.max(0, costUsd));
  }

  conversationOf(conversationId: string) {
    return this.#rows.conversationOf(conversationId);
  }

  conversationByContext(peer: string, contextId: string) {
    return this.#rows.conversationByContext(peer, contextId);
  }

  linkConversation(conversationId: string, peer: string, contextId: string): void {
    this.#rows.linkConversation(conversationId, peer, contextId);
  }

  async view(peer: PeerRecord): Promise<PeerView> {
    return { ...peer, hasOutboundToken: await this.hasOutboundToken(peer.name), usedToday: this.usedToday(peer.name) };
  }
}

/** The peers' rows: the store's module, or a view that names them (the runtime's records facade, `records.peers`). */
export type PeerRowsSource = Pick<Store, 'module'> | { readonly peers: ReturnType<typeof peersModule.queries> };

function peerRows(src: PeerRowsSource): ReturnType<typeof peersModule.queries> {
  return 'peers' in src ? src.peers : src.module(peersModule);
}

/**
 * The ceiling a conversation is held to because a peer started it (its tier and allow list as they are now), or null
 * for the person's own conversations. Reads the store only (no keyring), once per step.
 */
export function peerCeilingOf(store: PeerRowsSource, conversationId: string): { peer: string; tier: PeerTier; allow: string[] } | null {
  const rows = peerRows(store);
  const link = rows.conversationOf(conversationId);
  if (!link) return null;
  const row = rows.get(link.peer);
  // A removed peer's conversation keeps the strictest ceiling: public, nothing allowed.
  if (!row) return { peer: link.peer, tier: 'public', allow: [] };
  const rec = recordOf(row);
  return { peer: rec.name, tier: rec.tier, allow: rec.allow };
}

/** A peer's ceiling by name (`policy explain --peer NAME`), or null when there is no such peer. */
export function peerCeilingByName(store: PeerRowsSource, name: string): { peer: string; tier: PeerTier; allow: string[] } | null {
  const row = peerRows(store).get(name);
  if (!row) return null;
  const rec = recordOf(row);
  return { peer: rec.name, tier: rec.tier, allow: rec.allow };
}
