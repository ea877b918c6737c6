/**
 * A wake-up message of a scheduled prompt (host/background/schedule-fire.ts `fireMessage`), read back for the
 * transcript: what fired, when, and why, so it shows as an event of its own, never as the person's words with raw
 * `<scheduled-fire>` markup (issue 52).
 */
export interface ScheduledFireView {
  /** The prompt the person (or the agent, with their approval) scheduled. */
  prompt: string;
  /** When it fired, as the envelope wrote it (the schedule's time zone). */
  firedAt: string;
  /** When it was due (ISO), and its cron for a recurring one. */
  due: string | null;
  cron: string | null;
  /** How many missed fires this one stands for (1: none missed), and whether it was the last of a stale trigger. */
  coalesced: number;
  stale: boolean;
  /** The envelope's notes for the model (missed fires, last fire), as written. */
  notes: string[];
}

const ENVELOPE = /^\[Deskhand: scheduled prompt \S+ fired at ([^\]\n]+)\]\n<scheduled-fire ([^>\n]*)>\n([\s\S]*)\n<\/scheduled-fire>(?:\n([\s\S]*))?$/;

export function parseScheduledFire(text: string): ScheduledFireView | null {
  const m = ENVELOPE.exec(text);
  if (!m) return null;
  const attrs = new Map([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
  return {
    prompt: m[3]!,
    firedAt: m[1]!.trim(),
    due: attrs.get('due') ?? null,
    cron: attrs.get('cron') ?? null,
    coalesced: Number(attrs.get('coalescedCount') ?? 1) || 1,
    stale: attrs.get('stale') === 'true',
    notes: m[4] ? m[4].split('\n').filter(Boolean) : [],
  };
}

/** Why it fired, in words: the one-time time it was set for, or its repeating schedule. */
export function fireReason(f: ScheduledFireView): string {
  const missed = f.coalesced > 1 ? ` It stands for ${f.coalesced} fires missed while nothing could run.` : '';
  const last = f.stale ? ' It was the last fire of this schedule (over 7 days old); it is now deleted.' : '';
  const why = f.cron ? `It repeats on the schedule “${f.cron}”.` : `It was set for ${f.due ? new Date(f.due).toLocaleString() : 'this time'}.`;
  return `${why}${missed}${last}`;
}
