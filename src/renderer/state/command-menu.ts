/**
 * The composer's command menu (docs/commands.md): typing `/` at the start of the box opens a list of the slash
 * commands this conversation has — built-in (`/tools`), the person's, plugins', the folder's — filtered by what
 * follows the slash, with each one's description and argument hint. Arrow keys move, Enter or Tab puts
 * `/name ` in the box, Escape closes. Pure: the Composer draws it and feeds it keys.
 */
import type { CommandView } from '../../shared/contract/extensions';

/** The commands the menu shows for the box's text, best first; null when no menu belongs there. */
export function menuFor(text: string, commands: readonly CommandView[]): CommandView[] | null {
  const m = /^\/([\w.:-]*)$/.exec(text);
  if (!m) return null;
  const typed = m[1]!.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(typed));
  // Then a name containing it, or a description with a word that starts with it.
  const words = (t: string) => t.toLowerCase().split(/[^a-z0-9]+/);
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(typed) && (c.name.toLowerCase().includes(typed) || words(c.description).some((w) => w.startsWith(typed))));
  return [...starts, ...contains];
}

export type MenuAction = { kind: 'move'; index: number } | { kind: 'pick'; text: string } | { kind: 'close' } | null;

/**
 * What a key does while the menu shows `items` with `index` selected (null: the key is the box's, not the menu's).
 * Enter on a command already typed in full (`/tools`) is the box's: it sends.
 */
export function menuKey(key: string, items: readonly CommandView[], index: number, typed = ''): MenuAction {
  if (key === 'Escape') return { kind: 'close' };
  if (!items.length) return null;
  if (key === 'ArrowDown') return { kind: 'move', index: (index + 1) % items.length };
  if (key === 'ArrowUp') return { kind: 'move', index: (index - 1 + items.length) % items.length };
  const chosen = items[Math.min(index, items.length - 1)]!;
  if (key === 'Enter' && typed === `/${chosen.name}`) return null;
  if (key === 'Enter' || key === 'Tab') return { kind: 'pick', text: completion(chosen) };
  return null;
}

/** What picking a command puts in the box: the command and a space, ready for its arguments. */
export function completion(c: CommandView): string {
  return `/${c.name} `;
}

/** One row's words: `/name HINT — description (whose)`. */
export function rowLabel(c: CommandView): { name: string; hint: string | null; description: string; origin: string | null } {
  const origin = c.origin === 'builtin' ? 'built-in' : c.origin === 'project' ? 'this folder (sent as untrusted content)' : c.origin === 'plugin' ? 'plugin' : null;
  return { name: `/${c.name}`, hint: c.argumentHint, description: c.description, origin };
}
