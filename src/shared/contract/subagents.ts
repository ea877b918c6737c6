/**
 * The contract's subagent methods: a conversation's children as a tree (children of children too) with status, spend
 * and duration, the conversation's own place when it is a child, and steering and cancelling from the UI. Pure.
 */
import { z } from 'zod';

export const subagentIdSchema = z.string().regex(/^sub_[0-9a-f]{8}$/, 'not a subagent id');

export const SUBAGENT_VIEW_STATUSES = ['queued', 'running', 'waiting', 'finished', 'failed', 'cancelled', 'timed_out'] as const;

/** One child as the tree shows it. `waiting`: running, with approvals waiting for the person. */
export const subagentViewSchema = z.strictObject({
  id: z.string(),
  conversationId: z.string(),
  parentConversationId: z.string(),
  /** The child this one belongs to (a child of a child), or null for a child of the conversation itself. */
  parentSubagentId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  type: z.string(),
  description: z.string(),
  status: z.enum(SUBAGENT_VIEW_STATUSES),
  /** Why it failed, was cancelled or timed out (an interrupted child says "interrupted: …"). */
  error: z.string().nullable(),
  background: z.boolean(),
  tainted: z.boolean(),
  pendingApprovals: z.number().int().nonnegative(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUSD: z.number(),
  createdAt: z.number(),
  startedAt: z.number().nullable(),
  finishedAt: z.number().nullable(),
});
export type SubagentView = z.infer<typeof subagentViewSchema>;

const conversationId = z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id');
const one = z.strictObject({ subagent: subagentViewSchema });

export const subagentMethods = {
  /**
   * The subagents under a conversation (every depth, oldest first), and — when the conversation is itself a child —
   * its own row with its parent's title (the way back).
   */
  listSubagents: {
    params: z.strictObject({ conversationId }),
    result: z.strictObject({
      subagents: z.array(subagentViewSchema),
      self: subagentViewSchema.extend({ parentTitle: z.string() }).nullable(),
    }),
  },
  /** Sends a message to a running child (delivered right before its next model call), as steer_subagent does. */
  steerSubagent: { params: z.strictObject({ subagentId: subagentIdSchema, message: z.string().trim().min(1).max(20_000) }), result: one },
  /** Cancels a queued or running child (and its run). */
  cancelSubagent: { params: z.strictObject({ subagentId: subagentIdSchema }), result: one },
} as const;

export const SUBAGENT_METHOD_NAMES = ['listSubagents', 'steerSubagent', 'cancelSubagent'] as const;

/** A child under this conversation (its tree) started, changed status or spent: list them again. */
export const subagentsChangedSchema = z.strictObject({ conversationId: z.string(), rootConversationId: z.string() });
