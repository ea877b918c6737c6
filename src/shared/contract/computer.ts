/**
 * The contract's computer-use area: app grants, the runs using the desktop now, the kill switch and screenshots
 * for tool cards. Pure.
 */
import { z } from 'zod';
import { noParams as none } from './ids';

/** An app grant for computer use (Settings → App grants, `deskhand grants list`). */
export const appGrantViewSchema = z.strictObject({
  app: z.string(),
  capabilities: z.array(z.string()),
  createdAt: z.number(),
  expiresAt: z.number().nullable(),
  covers: z.string(),
});
export type AppGrantView = z.infer<typeof appGrantViewSchema>;
/** A run using the desktop now (the "Deskhand is using: <app>" banner). */
export const computerSessionSchema = z.strictObject({
  runId: z.string(),
  conversationId: z.string().nullable(),
  apps: z.array(z.string()),
  lastAction: z.string().nullable(),
});
export type ComputerSessionView = z.infer<typeof computerSessionSchema>;

export const computerMethods = {
  /** App grants for computer use (also `deskhand grants list | revoke APP`). */
  listAppGrants: { params: none, result: z.strictObject({ grants: z.array(appGrantViewSchema) }) },
  revokeAppGrant: { params: z.strictObject({ app: z.string().trim().min(1).max(200) }), result: z.strictObject({ grants: z.array(appGrantViewSchema) }) },
  /** Whether computer use can run here (`missing`: one line why not) and the runs using the desktop now. */
  getComputerUse: { params: none, result: z.strictObject({ missing: z.string().nullable(), sessions: z.array(computerSessionSchema) }) },
  /** The kill switch: stops every computer-use session at once and the runs that hold them. */
  stopComputerUse: { params: none, result: z.strictObject({ stopped: z.array(z.string()) }) },
  /** A computer-use screenshot (a PNG under the data folder's computer/) as a data URL, for tool cards. */
  readScreenshot: { params: z.strictObject({ path: z.string().min(1).max(4096) }), result: z.strictObject({ dataUrl: z.string() }) },
};
