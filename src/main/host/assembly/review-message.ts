/**
 * A composition review as the model receives it (issue 34 item 17): a marked header, the person's words, then what
 * the review means and what to do, in Deskhand's words. The projections read it back into a review event, so the
 * transcript shows "You asked for changes to …" and never the header or the instructions as the person's message.
 * Both halves here so they cannot drift apart.
 */

export type ReviewAction = 'comment' | 'approve' | 'changes';

export interface Review {
  composition: string;
  title: string;
  version: number;
  action: ReviewAction;
  /** The person's own words (empty for a plain approval). */
  text: string;
}

const ACTIONS: readonly ReviewAction[] = ['comment', 'approve', 'changes'];

/** What Deskhand tells the model after the person's words, per action. */
function instructions(r: Review): string {
  const what = `version ${r.version} of the composition ${JSON.stringify(r.title)} (${r.composition})`;
  const from = "This message comes from Deskhand's composition viewer, not from the chat box:";
  switch (r.action) {
    case 'comment':
      return `${from} the person commented on ${what}. A comment asks for nothing by itself: keep it in mind the next time you work on this composition, and do not revise it because of the comment alone.`;
    case 'approve':
      return `${from} the person approved ${what}. publish_composition now publishes exactly this version when the person asks; do not revise it unless they ask.`;
    case 'changes':
      return `${from} the person asks for changes to ${what}${r.text ? ' (their words are above)' : ''}. Revise it now: call create_composition with revises: "${r.composition}" (the result becomes the next version, which the person reviews again), then say in one or two sentences what you changed.`;
  }
}

const header = (r: Review) => `[composition review ${r.composition} v${r.version} ${r.action}] ${JSON.stringify(r.title)}`;

export function reviewMessage(r: Review): string {
  return `${header(r)}${r.text ? `\n${r.text}` : ''}\n\n${instructions(r)}`;
}

const HEADER = /^\[composition review (cmp_[0-9a-f]{10}) v([1-9]\d{0,8}) (comment|approve|changes)\] ("(?:[^"\\\n]|\\.)*")$/;

/** The other half of reviewMessage: a stored user-role message that is exactly a review, or null (the person's text). */
export function parseReviewMessage(text: string): Review | null {
  if (!text.startsWith('[composition review ')) return null;
  const nl = text.indexOf('\n');
  if (nl < 0) return null;
  const m = HEADER.exec(text.slice(0, nl));
  if (!m || !ACTIONS.includes(m[3] as ReviewAction)) return null;
  let title: string;
  try {
    title = JSON.parse(m[4]!) as string;
  } catch {
    return null;
  }
  const base = { composition: m[1]!, title, version: Number(m[2]), action: m[3] as ReviewAction };
  const tail = `\n\n${instructions({ ...base, text: 'x' })}`;
  const tailEmpty = `\n\n${instructions({ ...base, text: '' })}`;
  const rest = text.slice(nl);
  if (rest.endsWith(tail) && rest.length > tail.length + 1 && rest.startsWith('\n')) {
    const body = rest.slice(1, -tail.length);
    if (body) return { ...base, text: body };
  }
  if (rest === tailEmpty) return { ...base, text: '' };
  return null;
}
