/**
 * The contract's part for peers (Agent2Agent, issue 36): Settings → Peers lists them, adds one (the token it will
 * present is in the answer once and never again), changes tier, allow list, budget and on/off, removes one. Tokens are
 * in the OS keyring; the renderer sees one only in `addPeer`'s and `rotatePeerToken`'s answer, to show it once.
 */
import { z } from 'zod';
import { PEER_TIERS, allowNameSchema, peerBudgetSchema, peerNameSchema, peerViewSchema } from './peers';

const peerList = z.strictObject({ peers: z.array(peerViewSchema) });
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
} as const;

export const PEER_METHOD_NAMES = ['listPeers', 'addPeer', 'updatePeer', 'removePeer', 'rotatePeerToken'] as const;
