/**
 * Keyboard shortcuts of the window, as one pure function (tested without a browser) and the actions they run.
 *   Mod+Enter          approve the oldest approval waiting in this conversation (from the message box when it is
 *                      empty, or from anywhere outside a text field); a question or file pick gets the focus instead
 *   Mod+Backspace      deny it: focuses the reason field of its card (from an empty message box or outside fields)
 *   Mod+K, or /        search conversations and messages
 *   Alt+N, Mod+N       new conversation (a browser keeps Ctrl+N for itself, so `deskhand web` listens to Alt+N)
 *   Alt+↑ / Alt+↓      previous / next conversation in the sidebar
 * Mod is Ctrl, or ⌘ on macOS.
 */
export type ShortcutAction = 'approve' | 'deny' | 'search' | 'new' | 'previous' | 'next';

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
}

export interface ShortcutContext {
  /** The focused element is a text field (input, textarea, contenteditable). */
  inTextField: boolean;
  /** …and it is the message box, empty. */
  inEmptyMessageBox: boolean;
}

export function shortcutFor(e: KeyLike, ctx: ShortcutContext): ShortcutAction | null {
  if (e.isComposing) return null;
  const mod = e.ctrlKey || e.metaKey;
  const outsideFields = !ctx.inTextField || ctx.inEmptyMessageBox;
  if (mod && !e.altKey && !e.shiftKey && e.key === 'Enter' && outsideFields) return 'approve';
  if (mod && !e.altKey && !e.shiftKey && e.key === 'Backspace' && outsideFields) return 'deny';
  if (mod && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') return 'search';
  if (!mod && !e.altKey && !e.shiftKey && e.key === '/' && !ctx.inTextField) return 'search';
  if (((mod && !e.altKey) || (e.altKey && !mod)) && !e.shiftKey && e.key.toLowerCase() === 'n') return 'new';
  if (e.altKey && !mod && !e.shiftKey && e.key === 'ArrowUp') return 'previous';
  if (e.altKey && !mod && !e.shiftKey && e.key === 'ArrowDown') return 'next';
  return null;
}
