/**
 * The contract's compositions area: the artifacts the agent makes and the person reviews (versions, sources, the
 * viewer's URL, reviews). Pure.
 */
import { z } from 'zod';
import { conversationIdSchema } from './contract-ids';

export const compositionIdSchema = z.string().regex(/^cmp_[0-9a-f]{10}$/, 'not a composition id');
export const compositionKindSchema = z.enum(['html', 'svg', 'image', 'markdown']);
export const compositionSummarySchema = z.strictObject({
  id: compositionIdSchema,
  conversationId: z.string().nullable(),
  title: z.string(),
  kind: compositionKindSchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The version the person approved (publish sends exactly its bytes), or null. */
  approvedVersion: z.number().int().nullable(),
  latestVersion: z.number().int(),
});
export type CompositionSummaryView = z.infer<typeof compositionSummarySchema>;
export const compositionDetailSchema = compositionSummarySchema.extend({
  versions: z.array(
    z.strictObject({
      version: z.number().int(),
      /** The version this one revises (null for the first). */
      revises: z.number().int().nullable(),
      mime: z.string(),
      bytes: z.number().int(),
      sha256: z.string(),
      review: z.enum(['pending', 'approved', 'changes_requested']),
      createdAt: z.number(),
    }),
  ),
  comments: z.array(z.strictObject({ version: z.number().int(), kind: z.enum(['comment', 'approve', 'changes']), text: z.string(), at: z.number() })),
});
export type CompositionDetailView = z.infer<typeof compositionDetailSchema>;
const compositionVersionParams = z.strictObject({ id: compositionIdSchema, version: z.number().int().positive() });

export const compositionMethods = {
  /** Compositions of one conversation (or all), newest first. */
  listCompositions: { params: z.strictObject({ conversationId: conversationIdSchema.optional() }), result: z.strictObject({ compositions: z.array(compositionSummarySchema) }) },
  getComposition: { params: z.strictObject({ id: compositionIdSchema }), result: compositionDetailSchema },
  /** One version's source (text kinds) or a data: URL (images), for the text and visual diffs. */
  getCompositionSource: {
    params: compositionVersionParams,
    result: z.strictObject({
      kind: compositionKindSchema,
      mime: z.string(),
      bytes: z.number().int(),
      text: z.string().nullable(),
      truncated: z.boolean(),
      dataUrl: z.string().nullable(),
    }),
  },
  /** The viewer URL for one version: a same-host path behind a short-lived ticket, served sandboxed with a strict CSP. */
  openComposition: { params: compositionVersionParams, result: z.strictObject({ url: z.string() }) },
  /** The person's review of one version: a review event of its conversation; only `changes` starts a run (runId); while one works, `note` says the agent was not told. */
  reviewComposition: {
    params: compositionVersionParams.extend({ action: z.enum(['comment', 'approve', 'changes']), text: z.string().max(20_000).default('') }),
    result: z.strictObject({ composition: compositionDetailSchema, runId: z.string().nullable(), note: z.string().nullable() }),
  },
};
