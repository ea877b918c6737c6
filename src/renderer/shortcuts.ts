/** Window shortcuts: the keys are in shared/shortcuts.ts (pure, tested); this reads the focused element. */
import type { ShortcutContext } from '../shared/shortcuts';

export function contextOf(target: EventTarget | null): ShortcutContext {
  const el = target instanceof HTMLElement ? target : null;
  const tag = el?.tagName;
  const inTextField = !!el && (tag === 'TEXTAREA' || (tag === 'INPUT' && !['checkbox', 'radio', 'button', 'submit'].includes((el as HTMLInputElement).type)) || el.isContentEditable);
  const inEmptyMessageBox = inTextField && el?.getAttribute('aria-label') === 'Message' && !(el as HTMLTextAreaElement).value.trim();
  return { inTextField, inEmptyMessageBox };
}
