/**
 * Mission scopes: globs relative to the repository root (`src/api/**`, `docs/*.md`). `**` matches any number of
 * folders, `*` and `?` stay inside one path segment. Two scopes overlap when some path could match both: decided
 * conservatively from each glob's literal prefix (up to the first wildcard) and literal suffix.
 */
import { relative, resolve, sep } from 'node:path';

export function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches zero or more folders; a trailing `**` anything below.
      if (glob[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function checkGlob(glob: string): string | null {
  if (!glob || glob.startsWith('/') || /^[A-Za-z]:/.test(glob)) return `scope "${glob}" must be relative to the repository root`;
  if (glob.split('/').includes('..')) return `scope "${glob}" may not contain ..`;
  if (glob === '**' || glob === '**/*') return `scope "${glob}" is the whole repository; give each mission its own folders or files`;
  return null;
}

export function inScope(relPath: string, globs: readonly string[]): boolean {
  const p = relPath.split(sep).join('/');
  return globs.some((g) => globRegex(g).test(p));
}

/** The repository-relative path of an absolute one inside `root`, or null when it lies outside. */
export function relativeTo(root: string, abs: string): string | null {
  const rel = relative(root, resolve(abs));
  if (rel === '' || rel.startsWith('..') || resolve(root, rel) !== resolve(abs)) return rel === '' ? '' : null;
  return rel.split(sep).join('/');
}

function literalPrefix(glob: string): string {
  const i = glob.search(/[*?]/);
  return i < 0 ? glob : glob.slice(0, i);
}

function literalSuffix(glob: string): string {
  const i = Math.max(glob.lastIndexOf('*'), glob.lastIndexOf('?'));
  return i < 0 ? glob : glob.slice(i + 1);
}

/** Whether two globs may match a common path (conservative: true when unsure). */
export function globsOverlap(a: string, b: string): boolean {
  if (!/[*?]/.test(a)) return globRegex(b).test(a);
  if (!/[*?]/.test(b)) return globRegex(a).test(b);
  const pa = literalPrefix(a);
  const pb = literalPrefix(b);
  if (!pa.startsWith(pb) && !pb.startsWith(pa)) return false;
  const sa = literalSuffix(a);
  const sb = literalSuffix(b);
  if (sa && sb && !sa.endsWith(sb) && !sb.endsWith(sa)) return false;
  return true;
}
