/**
 * The contract's part for the journeys issue (34): the composition viewer's exports (the shown version's file, its
 * PDF, its zip) and reviews as events of the transcript. Kept beside contract.ts like contract-media.ts.
 */
import { z } from 'zod';

const compositionId = z.string().regex(/^cmp_[0-9a-f]{10}$/, 'not a composition id');

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

export const journeysMethods = {
  /**
   * One version of a composition as the person asked for it in the viewer: `file` (its own bytes), `pdf` (printed as
   * create_pdf prints it, in main: no model, no approval — the person asked) or `zip` (as `deskhand compositions export`).
   */
  exportComposition: {
    params: z.strictObject({ id: compositionId, version: z.number().int().positive(), as: z.enum(['file', 'pdf', 'zip']) }),
    result: compositionExportSchema,
  },
} as const;
