/**
 * What a file or folder looks like now, without reading it: the one stamp the caches that are asked on every model
 * step or hook event compare (settings.json, plugins.json, project instructions, agent-definition folders), so a change
 * is seen on the next ask and an unchanged path costs a stat.
 *
 * Metadata only: nothing here opens a file. It stats the path as given (and, for a link, its target) and lists a folder's
 * names; what is then read because of workspace content goes through the guarded reader (shared/content-reader.ts).
 */
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** The stamp of a path with nothing at it. */
export const NOTHING = '-';

/**
 * The stamp of a `stat` the caller already took (it needed the size or the kind too): device, inode, size,
 * modification and change times. The change time is the kernel's (no `touch` sets it back), so a same-size rewrite
 * that restores the modification time still changes the stamp.
 */
export const statStamp = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
const code = (err: unknown) => (err as NodeJS.ErrnoException).code ?? 'error';

/**
 * A path's stamp: its own `lstat` (device, inode, size, modification and change times) and, for a symbolic link, its
 * target's after `>` (`-` for a link to nothing, `!CODE` when the target cannot be asked: a loop, no permission).
 * `-` when nothing is at the path; `!CODE` when the path itself cannot be asked. Most paths asked are not there: that
 * answer comes without an exception.
 */
export function pathStamp(path: string): string {
  let own: Stats | undefined;
  try {
    own = lstatSync(path, { throwIfNoEntry: false });
  } catch (err) {
    return `!${code(err)}`;
  }
  if (!own) return NOTHING;
  if (!own.isSymbolicLink()) return statStamp(own);
  try {
    const target = statSync(path, { throwIfNoEntry: false });
    return `${statStamp(own)}>${target ? statStamp(target) : NOTHING}`;
  } catch (err) {
    return `${statStamp(own)}>!${code(err)}`;
  }
}

/** Whether a stamp says nothing is at the path (not there, or the path could not be asked); a link to nothing is there. */
export const nothingAt = (stamp: string): boolean => stamp === NOTHING || stamp.startsWith('!');

/**
 * A folder's stamp: its own and every entry's, by name (a file added, removed, rewritten, renamed or relinked changes
 * it). Nothing is read; `-` when the folder is not there.
 */
export function folderStamp(dir: string): string {
  const own = pathStamp(dir);
  if (nothingAt(own)) return own;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    return `${own}!${code(err)}`;
  }
  return `${own}[${names.map((n) => `${n}=${pathStamp(join(dir, n))}`).join('|')}]`;
}
