/**
 * The contract's browser area: a conversation's open browser session as the panel shows it, and closing it. Pure.
 */
import { z } from 'zod';
import { conversationIdSchema, okResult as ok } from './ids';

/** A conversation's open browser session as the UI shows it; `shot` is a small JPEG data URL of the page, when taken. */
export const browserSessionSchema = z.strictObject({
  tab: z.string(),
  url: z.string(),
  title: z.string(),
  tabs: z.number().int(),
  shot: z.string().nullable(),
});
export type BrowserSessionView = z.infer<typeof browserSessionSchema>;

export const browserMethods = {
  /** The conversation's browser session (browser family): its current tab, or null when none is open. */
  getBrowserSession: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ session: browserSessionSchema.nullable() }) },
  /** Stop: closes the conversation's browser session (its tabs; the browser process when no conversation uses it). */
  closeBrowserSession: { params: z.strictObject({ conversationId: conversationIdSchema }), result: ok },
};
