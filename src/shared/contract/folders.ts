/**
 * The contract's folders area: the web New-conversation dialog's folder browser (the desktop app uses the OS dialog).
 * Pure.
 */
import { z } from 'zod';

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

export const folderMethods = {
  /**
   * The sub-folders of a folder (home by default; `~` allowed), for the web New-conversation dialog's folder browser.
   * Through the path guard: a sensitive folder (credentials, Deskhand's data, VCS hooks) is neither listed nor opened.
   */
  listFolders: {
    params: z.strictObject({ path: z.string().max(4096).optional(), hidden: z.boolean().default(false) }),
    result: folderListingSchema,
  },
} as const;
