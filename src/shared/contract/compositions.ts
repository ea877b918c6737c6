/**
 * The contract's compositions area: the artifacts the agent makes and the person reviews (versions, sources, the
 * viewer's URL, reviews, a review as an event of the transcript, the viewer's exports and print). Pure.
 */
import { z } from 'zod';
import { conversationIdSchema } from './ids';

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

export const compositionExportSchema = z.strictObject({
  /** A file name for the download (the title, the version and the format's extension). */
  name: z.string(),
  mime: z.string(),
  /** The bytes, base64. */
  base64: z.string(),
  bytes: z.number().int(),
});
export type CompositionExportView = z.infer<typeof compositionExportSchema>;

/**
 * A review the person gave in the composition viewer (Comment, Ask for changes, Approve), as an event of the
 * transcript: the model received it with Deskhand's instructions; the person sees what they did, never those words.
 */
export const reviewItemSchema = z.strictObject({
  kind: z.literal('review'),
  id: z.string(),
  runId: z.string().nullable(),
  composition: z.string(),
  title: z.string(),
  version: z.number().int(),
  action: z.enum(['comment', 'approve', 'changes']),
  /** The person's own words (empty for a plain approval). */
  text: z.string(),
  at: z.number(),
});

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
  /**
   * One version of a composition as the person asked for it in the viewer: `file` (its own bytes), `pdf` (printed as
   * create_pdf prints it, in main: no model, no approval — the person asked) or `zip` (as `deskhand compositions export`).
   */
  exportComposition: {
    params: z.strictObject({ id: compositionIdSchema, version: z.number().int().positive(), as: z.enum(['file', 'pdf', 'zip']) }),
    result: compositionExportSchema,
  },
  /**
   * Print: the version's PDF (as `exportComposition` `pdf` makes it) behind a short-lived same-host ticket URL, which
   * the app loads into a hidden frame of its own and prints (a `blob:` frame would need the app's policy to allow
   * blob: frames, which a composition could then navigate its own frame to).
   */
  printComposition: {
    params: z.strictObject({ id: compositionIdSchema, version: z.number().int().positive() }),
    result: z.strictObject({ url: z.string() }),
  },
};
