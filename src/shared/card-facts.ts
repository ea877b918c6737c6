/**
 * What an approval card says so a person decides in a second (issue 46): what the call will do (the runtime's one
 * generated sentence, runtime/decision/call-sentence.ts, carried in the request's data as `doing`), which grant would cover it
 * next time, and what each key does while the card has the focus. Pure (test/renderer/approval-card.test.ts).
 */
import { describePattern, offeredRoot } from './always-allow';
import { peerOfRulePattern } from './peers';

/** The sentence an approval request's data carries, or null (an older row, an input request). */
export function doingOf(data: unknown): string | null {
  if (!data || typeof data !== 'object') return null;
  const d = (data as { doing?: unknown }).doing;
  return typeof d === 'string' && d.trim() ? d : null;
}

/** Which grant would cover the call next time, in words, or null when no rule may be saved for it. */
export function nextTimeWords(pattern: string | null | undefined, folder: string | null = null): string | null {
  if (!pattern) return null;
  const root = offeredRoot(pattern);
  if (root !== null) return `Always allow (A) adds ${root} as a workspace root of this conversation: changes inside it stop asking.`;
  const peer = peerOfRulePattern(pattern);
  if (peer) return `Allow ${peer} for this conversation (A): messages to ${peer} stop asking here while only ${peer}'s answers are untrusted content in it.`;
  const where = folder ? `this conversation, every conversation in ${folder}, or everywhere` : 'this conversation or everywhere';
  return `Always allow (A) covers ${describePattern(pattern)} next time — in ${where}, for an hour, today or until you revoke it.`;
}

/** What a key does on a focused approval card. */
export type CardKeyAction = 'approve' | 'always' | 'open-always' | 'deny-reason' | 'close-always' | { scope: number } | null;

export interface CardKeyState {
  /** The "always allow" choice is open (scope and lifetime shown). */
  choosing: boolean;
  /** A rule may be saved for the call. */
  canAlways: boolean;
  /** "Always" is "allow this peer for this conversation": one key, no choice to open. */
  peer: boolean;
}

/**
 * The card's keys: Enter approves once (or saves the rule being chosen), A opens "always allow" (a peer's is
 * immediate), 1–4 pick the rule's scope while choosing, D or Esc go to the deny box (Esc first closes the choice), so
 * a stray Escape never denies on its own. Modified keys are the app's (Ctrl+Enter, Ctrl+Backspace: shortcuts.ts).
 */
export function cardKeyAction(key: string, mods: { ctrl?: boolean; meta?: boolean; alt?: boolean }, s: CardKeyState): CardKeyAction {
  if (mods.ctrl || mods.meta || mods.alt) return null;
  if (key === 'Enter') return s.choosing && s.canAlways ? 'always' : 'approve';
  if (key === 'Escape') return s.choosing ? 'close-always' : 'deny-reason';
  if (s.choosing && !s.peer && /^[1-4]$/.test(key)) return { scope: Number(key) - 1 };
  if (key === 'a' || key === 'A') return s.peer ? 'always' : s.canAlways ? 'open-always' : null;
  if (key === 'd' || key === 'D') return 'deny-reason';
  return null;
}

/** The hint under the card's buttons. */
export const CARD_KEY_HINT = 'On the card: ⏎ approve once · A always allow · 1–4 where (while choosing) · D or Esc deny · from anywhere: Ctrl+⏎ approve, Ctrl+⌫ deny';
