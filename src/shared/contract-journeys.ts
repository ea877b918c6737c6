/**
 * The contract's part for the journeys issue (34): the composition viewer's exports (the shown version's file, its
 * PDF, its zip), reviews as events of the transcript, and the web New-conversation dialog's folder browser. Kept beside contract.ts like contract-media.ts.
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

export const folderListingSchema = z.strictObject({
  /** The folder listed, absolute and resolved (symbolic links followed). */
  path: z.string(),
  /** Its parent, or null at the root. */
  parent: z.string().nullable(),
  /** Its sub-folders (links to folders included), by name; hidden ones only when asked; sensitive ones never. */
  folders: z.array(z.strictObject({ name: z.string(), path: z.string(), hidden: z.boolean() })),
  /** More sub-folders than the listing holds were left out. */
  truncated: z.boolean(),
});
export type FolderListingView = z.infer<typeof folderListingSchema>;

export const journeysMethods = {
  /**
   * One version of a composition as the person asked for it in the viewer: `file` (its own bytes), `pdf` (printed as
   * create_pdf prints it, in main: no model, no approval — the person asked) or `zip` (as `deskhand compositions export`).
   */
  exportComposition: {
    params: z.strictObject({ id: compositionId, version: z.number().int().positive(), as: z.enum(['file', 'pdf', 'zip']) }),
    result: compositionExportSchema,
  },
  /**
   * Print: the version's PDF (as `exportComposition` `pdf` makes it) behind a short-lived same-host ticket URL, which
   * the app loads into a hidden frame of its own and prints (a `blob:` frame would need the app's policy to allow
   * blob: frames, which a composition could then navigate its own frame to).
   */
  printComposition: {
    params: z.strictObject({ id: compositionId, version: z.number().int().positive() }),
    result: z.strictObject({ url: z.string() }),
  },
  /**
   * The sub-folders of a folder (home by default; `~` allowed), for the web New-conversation dialog's folder browser.
   * Through the path guard: a sensitive folder (credentials, Deskhand's data, VCS hooks) is neither listed nor opened.
   */
  listFolders: {
    params: z.strictObject({ path: z.string().max(4096).optional(), hidden: z.boolean().default(false) }),
    result: folderListingSchema,
  },
} as const;
