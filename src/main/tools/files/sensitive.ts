/**
 * Secret-bearing files that searches skip: `find` never lists them and `grep` never searches them, whatever the
 * pattern names (Spec II). (Reading one on purpose with read_file asks under every policy: the path guard judges it
 * from the same list.)
 */
import { basename } from 'node:path';
import { SECRET_FILE_RULES } from '../../../shared/sensitive-paths';
import { globToRegExp } from './glob';

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
