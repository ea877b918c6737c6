/**
 * Peers (Agent2Agent): other people's agents this Deskhand talks to. What a peer is, in pure TypeScript shared by main
 * and renderer: its name, disclosure tier, allow list and daily budget. The ceiling these compute is in the runtime
 * (runtime/peer-ceiling.ts); the tokens are in the OS keyring (services/peers), never here.
 */
import { z } from 'zod';

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
});
export type PeerBudget = z.infer<typeof peerBudgetSchema>;

export const DEFAULT_PEER_BUDGET: PeerBudget = { turnsPerDay: 50, tokensPerDay: 500_000 };

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
  usedToday: z.strictObject({ turns: z.number(), tokens: z.number() }),
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
