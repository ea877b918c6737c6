/** A composition review in the person's terms, for the transcript, the Markdown export and editors (no zod: the renderer imports it). */

export type ReviewActionName = 'comment' | 'approve' | 'changes';

/** "You commented on “Figures” version 2", "You asked for changes to …", "You approved …". */
export function reviewHeadline(r: { action: ReviewActionName; title: string; version: number }): string {
  const what = `“${r.title}” version ${r.version}`;
  return r.action === 'comment' ? `You commented on ${what}` : r.action === 'changes' ? `You asked for changes to ${what}` : `You approved ${what}`;
}
