/**
 * The contract's part for peers (Agent2Agent, issue 36): Settings → Peers lists them, adds one (the token it will
 * present is in the answer once and never again), changes tier, allow list, budget and on/off, removes one. Tokens are
 * in the OS keyring; the renderer sees one only in `addPeer`'s and `rotatePeerToken`'s answer, to show it once.
 */
import { z } from 'zod';
import { PEER_TIERS, allowNameSchema, peerBudgetSchema, peerEndpointSettingsSchema, peerNameSchema, peerViewSchema } from '../peers';

const peerList = z.strictObject({ peers: z.array(peerViewSchema) });
/** The endpoint as Settings → Peers shows it: what is saved, and what this host is doing with it. */
export const peerEndpointViewSchema = z.strictObject({
  settings: peerEndpointSettingsSchema,
  /** Whether this host serves the endpoint at all (deskhand web and the app do; deskhand acp does not). */
  available: z.boolean(),
  running: z.boolean(),
  /** The base URL it listens on (the agent card is at URL/.well-known/agent-card.json), while running. */
  url: z.string().nullable(),
  /** Why it is not running although it is on (the address is taken, a certificate could not be read…). */
  error: z.string().nullable(),
});

const shownOnce = z.strictObject({ peer: peerViewSchema, inboundToken: z.string() });

export const peerMethods = {
  listPeers: { params: z.strictObject({}), result: peerList },
  addPeer: {
    params: z.strictObject({
      name: peerNameSchema,
      endpoint: z.string().trim().max(2000).nullable(),
      tier: z.enum(PEER_TIERS),
      allow: z.array(allowNameSchema).max(200),
      budget: peerBudgetSchema.partial().optional(),
    }),
    result: shownOnce,
  },
  updatePeer: {
    params: z.strictObject({
      name: peerNameSchema,
      tier: z.enum(PEER_TIERS).optional(),
      allow: z.array(allowNameSchema).max(200).optional(),
      budget: peerBudgetSchema.partial().optional(),
      enabled: z.boolean().optional(),
      endpoint: z.string().trim().max(2000).nullable().optional(),
    }),
    result: peerViewSchema,
  },
  removePeer: { params: z.strictObject({ name: peerNameSchema }), result: z.strictObject({ removed: z.boolean() }) },
  rotatePeerToken: { params: z.strictObject({ name: peerNameSchema }), result: shownOnce },
  /** "Accept requests from peers": the endpoint inside this host. */
  getPeerEndpoint: { params: z.strictObject({}), result: peerEndpointViewSchema },
  /** Saves the endpoint's settings and starts, moves or stops it at once (a non-loopback address without TLS is refused). */
  setPeerEndpoint: { params: peerEndpointSettingsSchema, result: peerEndpointViewSchema },
} as const;

export const PEER_METHOD_NAMES = ['listPeers', 'addPeer', 'updatePeer', 'removePeer', 'rotatePeerToken', 'getPeerEndpoint', 'setPeerEndpoint'] as const;
