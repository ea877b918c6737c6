/** The contract's part for memory, lessons and goals (the Memory, Lessons and Goals views). */
import { z } from 'zod';

export const memoryIdSchema = z.string().regex(/^mem_[a-f0-9]{6,40}$/, 'not a memory record id');

export const memoryRecordViewSchema = z.strictObject({
  id: memoryIdSchema,
  kind: z.enum(['memory', 'lesson']),
  scope: z.enum(['user', 'workspace', 'project']),
  /** The folder of a workspace or project record; '' for user records. */
  scopeKey: z.string(),
  topic: z.string(),
  body: z.string(),
  quote: z.string().nullable(),
  status: z.enum(['proposed', 'active', 'rejected']),
  source: z.string(),
  updatedAt: z.number(),
  /** The receipts of every change, oldest first, each with its diff. */
  receipts: z.array(z.strictObject({ id: z.string(), action: z.string(), actor: z.string(), diff: z.string(), at: z.number() })),
});
export type MemoryRecordView = z.infer<typeof memoryRecordViewSchema>;

export const goalViewSchema = z.strictObject({
  id: z.string(),
  conversationId: z.string(),
  objective: z.string(),
  criteria: z.array(z.string()),
  status: z.enum(['active', 'waiting', 'complete', 'blocked', 'exhausted', 'ended']),
  budget: z.strictObject({ turns: z.number().optional(), tokens: z.number().optional(), ms: z.number().optional(), cost: z.number().optional() }),
  used: z.strictObject({ turns: z.number(), tokens: z.number(), ms: z.number(), cost: z.number() }),
  consecutiveBlocked: z.number(),
  endedReason: z.string().nullable(),
  cycles: z.array(
    z.strictObject({
      n: z.number(),
      runId: z.string().nullable(),
      reported: z.string(),
      summary: z.string(),
      evidence: z.array(z.strictObject({ call_id: z.string(), quote: z.string() })),
      tokens: z.number(),
      ms: z.number(),
      at: z.number(),
    }),
  ),
  createdAt: z.number(),
});
export type GoalViewModel = z.infer<typeof goalViewSchema>;

const none = z.strictObject({});

export const memoryMethods = {
  /** Every memory record and lesson (all scopes), with receipts; and whether automatic extraction is on. */
  listMemory: { params: none, result: z.strictObject({ records: z.array(memoryRecordViewSchema), extraction: z.boolean() }) },
  /** The person's changes: accept or reject a proposal, edit a record, delete it. Each leaves a receipt. */
  changeMemory: {
    params: z.discriminatedUnion('action', [
      z.strictObject({ action: z.literal('accept'), id: memoryIdSchema }),
      z.strictObject({ action: z.literal('reject'), id: memoryIdSchema }),
      z.strictObject({ action: z.literal('delete'), id: memoryIdSchema }),
      z.strictObject({ action: z.literal('edit'), id: memoryIdSchema, topic: z.string().trim().min(1).max(200), body: z.string().min(1).max(8192) }),
    ]),
    result: z.strictObject({ records: z.array(memoryRecordViewSchema), extraction: z.boolean() }),
  },
  setMemoryExtraction: { params: z.strictObject({ on: z.boolean() }), result: z.strictObject({ records: z.array(memoryRecordViewSchema), extraction: z.boolean() }) },
  /** Goals, newest first (with the cycle log), optionally of one conversation. */
  listGoals: { params: z.strictObject({ conversationId: z.string().max(100).optional() }), result: z.strictObject({ goals: z.array(goalViewSchema) }) },
} as const;
