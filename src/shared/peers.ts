/**
 * Peers (Agent2Agent): other people's agents this Deskhand talks to. What a peer is, in pure TypeScript shared by main
 * and renderer: its name, disclosure tier, allow list and daily budget. The ceiling these compute is in the runtime
 * (runtime/decision/peer-ceiling.ts); the tokens are in the OS keyring (services/peers), never here.
 */
import { z } from 'zod';
import { classifyAddress } from './url-guard';

export const PEER_TIERS = ['public', 'internal', 'private'] as const;
export type PeerTier = (typeof PEER_TIERS)[number];

export const PEER_NAME_RE = /^[a-z][a-z0-9-]{0,39}$/;

export const peerNameSchema = z
  .string()
  .trim()
  .regex(PEER_NAME_RE, 'A peer name is 1–40 lowercase letters, digits or "-", starting with a letter (e.g. alice).');

/** A tool name in an allow list (builtin names; MCP tools as mcp__server__tool). */
export const allowNameSchema = z.string().trim().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'An allow entry is a tool name (e.g. write_file).');

export const peerBudgetSchema = z.strictObject({
  /** Incoming turns (messages the peer sends) per UTC day; 0 stops the peer. */
  turnsPerDay: z.number().int().min(0).max(100_000),
  /** Model tokens (input + output) the peer's conversations may use per UTC day. */
  tokensPerDay: z.number().int().min(0).max(1_000_000_000),
  /**
   * US dollars the peer's conversations may cost per UTC day, priced with the price table (shared/prices.ts); null:
   * no cost limit (the turns and tokens still hold). A model the table does not price counts no cost.
   */
  costPerDay: z.number().min(0).max(100_000).nullable(),
});
export type PeerBudget = z.infer<typeof peerBudgetSchema>;

export const DEFAULT_PEER_BUDGET: PeerBudget = { turnsPerDay: 50, tokensPerDay: 500_000, costPerDay: null };

export const peerViewSchema = z.strictObject({
  name: peerNameSchema,
  /** Their A2A endpoint (the base URL whose /.well-known/agent-card.json describes them); null: they only call us. */
  endpoint: z.string().nullable(),
  tier: z.enum(PEER_TIERS),
  allow: z.array(z.string()),
  budget: peerBudgetSchema,
  enabled: z.boolean(),
  /** Whether a token for calling them is saved (the value never leaves the keyring but to their endpoint). */
  hasOutboundToken: z.boolean(),
  /** Today's use against the budget. */
  usedToday: z.strictObject({ turns: z.number(), tokens: z.number(), costUsd: z.number() }),
  createdAt: z.number(),
});
export type PeerView = z.infer<typeof peerViewSchema>;

/** The endpoint of a peer: http(s) only, no credentials in it. Returns the normalised URL or an error line. */
export function checkPeerEndpoint(raw: string): { url: string } | { error: string } {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return { error: `"${raw.slice(0, 200)}" is not a URL; give the peer's base URL, e.g. https://alice.example.com/a2a` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `A peer endpoint is http:// or https:// (got ${u.protocol}).` };
  if (u.username || u.password) return { error: 'Put no credentials in the endpoint URL; the token is kept in the keyring (--token-stdin).' };
  return { url: u.toString() };
}

/**
 * The A2A endpoint inside `deskhand web` and the app (Settings → Peers, "Accept requests from peers"): off by default,
 * on 127.0.0.1 unless the person names an address. Kept in the data folder's settings.json as `peerEndpoint`.
 */
export const peerEndpointSettingsSchema = z.strictObject({
  enabled: z.boolean(),
  /** The address to bind (an IP address or `localhost`). */
  host: z.string().trim().min(1).max(253).regex(/^[A-Za-z0-9.:-]+$/, 'The address is an IP address or a host name (e.g. 127.0.0.1).'),
  /** The port (0: any free port, chosen at each start). */
  port: z.number().int().min(0).max(65535),
  /** A PEM certificate and its key (file paths): the endpoint then speaks HTTPS itself. */
  tlsCert: z.string().trim().min(1).max(4096).nullable().optional(),
  tlsKey: z.string().trim().min(1).max(4096).nullable().optional(),
  /** The person says TLS is in front of it (a tunnel or reverse proxy they run): plain HTTP on a non-loopback address. */
  tlsInFront: z.boolean().optional(),
});
export type PeerEndpointSettings = z.infer<typeof peerEndpointSettingsSchema>;

export const DEFAULT_PEER_ENDPOINT_PORT = 41241;
export const DEFAULT_PEER_ENDPOINT: PeerEndpointSettings = { enabled: false, host: '127.0.0.1', port: DEFAULT_PEER_ENDPOINT_PORT };

/** Whether an address to listen on stays on this machine: `localhost`, or a loopback address as the URL guard judges it. */
function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || classifyAddress(h)?.kind === 'loopback';
}

/**
 * Why the endpoint may not listen as asked, or null. A certificate without its key (or the other way round) is
 * refused; an address that leaves the machine needs TLS: a certificate here, or the person's word that a tunnel or
 * proxy they run puts TLS in front of it (`tlsInFront`, `--tls-in-front`).
 */
export function endpointBindingProblem(s: { host: string; tlsCert?: string | null; tlsKey?: string | null; tlsInFront?: boolean }): string | null {
  if (!!s.tlsCert !== !!s.tlsKey) return 'TLS needs both a certificate and its key (PEM files).';
  if (s.tlsCert || isLoopbackHost(s.host) || s.tlsInFront) return null;
  return `${s.host} leaves this machine, and the endpoint would speak plain HTTP there: give a TLS certificate and key, or run a tunnel or TLS proxy in front of it and say so ("TLS runs in front of it"; --tls-in-front), or keep it on 127.0.0.1.`;
}

/** The rule pattern of "allow this peer for this conversation" (an always-allow rule of ask_peer). */
export const PEER_RULE_PREFIX = 'peer:';
export const peerRulePattern = (name: string) => `${PEER_RULE_PREFIX}${name}`;
/** The peer an always-allow pattern names, or null. */
export function peerOfRulePattern(pattern: string | null | undefined): string | null {
  if (!pattern?.startsWith(PEER_RULE_PREFIX)) return null;
  const name = pattern.slice(PEER_RULE_PREFIX.length);
  return PEER_NAME_RE.test(name) ? name : null;
}
