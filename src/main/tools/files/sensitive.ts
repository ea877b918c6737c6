/**
 * Secret-bearing files that searches skip: `find` hides them unless the pattern names them, `grep` never searches
 * them. (Reading one on purpose with read_file asks under every policy: the path guard judges it from the same list.)
 */
import { basename } from 'node:path';
import { SECRET_FILE_RULES } from '../../../shared/sensitive-paths';
import { expandBraces, globToRegExp } from './glob';

// The one shared list (src/shared/sensitive-paths.ts): the path guard asks for these, the sandbox hides them.
const RULES = SECRET_FILE_RULES;

const COMPILED = RULES.map((r) => ({ ...r, re: globToRegExp(r.glob, { caseInsensitive: true }) }));

/** Negated globs for ripgrep (`--iglob '!…'`), appended after any user glob so they take precedence. */
export const SENSITIVE_RG_EXCLUDES: readonly string[] = RULES.map((r) => `!${r.glob}`);

/** The rules a file name falls under (empty when it is not secret-bearing). */
function rulesFor(name: string): typeof COMPILED {
  return COMPILED.filter((r) => r.re.test(name));
}

export function isSensitiveName(name: string): boolean {
  return rulesFor(name).length > 0;
}

export function isSensitivePath(path: string): boolean {
  return isSensitiveName(basename(path));
}

/**
 * A filter for `find` results: hides secret-bearing files unless the search pattern names them (e.g. `**\/.env*`,
 * `*.{pem,key}`). Returns null when nothing is hidden by the pattern (fast path: no check per result).
 */
export function sensitiveFilterFor(pattern: string): ((path: string) => boolean) | null {
  const expansions = expandBraces(pattern.toLowerCase()).map((p) => p.slice(p.lastIndexOf('/') + 1));
  const named = new Set(COMPILED.filter((r) => expansions.some((p) => p.includes(r.token))).map((r) => r.glob));
  if (named.size === COMPILED.length) return null;
  return (path: string) => {
    const rules = rulesFor(basename(path));
    return rules.length === 0 || rules.some((r) => named.has(r.glob));
  };
}
