/**
 * A conversation's first title, from its first message: short and about the task, so similar tasks can be told apart
 * in the sidebar ("Make me a quarterly sales report for the team…" → "Quarterly sales report for the team"). A
 * request's preface ("please", "can you", "make me a") is dropped, and the rest is cut at a word near 48 characters.
 * The person can rename it (the sidebar's ✎).
 */
const MAX = 48;
const PREFACE = /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:please[,]?\s+)?(?:(?:can|could|would|will) you(?: please)?\s+|i(?:'d| would) like you to\s+|i want you to\s+|i need you to\s+|help me(?: to)?\s+)?(?:please\s+)?(?:(?:make|create|write|give|build|draft|prepare) me (?:a|an|the|some)\s+)?/i;

export function shortTitle(message: string): string {
  const line = (message.trim().split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return 'New conversation';
  const stripped = line.replace(PREFACE, '');
  let title = stripped.length >= 3 ? stripped : line;
  if (title !== line) title = title[0]!.toUpperCase() + title.slice(1);
  if (title.length <= MAX) return title || line;
  const cut = title.slice(0, MAX + 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX / 2 ? cut.slice(0, space) : title.slice(0, MAX)).replace(/[,;:]$/, '')}…`;
}
