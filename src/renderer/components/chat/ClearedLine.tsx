/** On a past tool card: who or what cleared the call (the person and where, a saved rule, the policy) and when. */
import type { Cleared } from '../../../shared/contract/chat';

export function clearedText(c: Cleared): string {
  const when = c.at ? ` at ${new Date(c.at).toLocaleString()}` : '';
  if (c.by === 'person') return `${c.decision === 'denied' ? 'Denied' : 'Approved'} by you${c.via ? ` in ${c.via}` : ''}${when}`;
  if (c.by === 'rule') return `Allowed by your saved rule${c.via ? ` ${c.via}` : ''}${when}`;
  return 'Allowed by the conversation policy (no approval needed)';
}

export function ClearedLine({ cleared }: { cleared: Cleared }) {
  return <p className="muted small tool-cleared">{clearedText(cleared)}</p>;
}
