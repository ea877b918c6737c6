/**
 * Path resolution for the file tools. Containment (workspace roots, links, hard links, sensitive paths) is checked by
 * the approval engine with runtime/decision/path-guard.ts, which resolves exactly the same way. Everything a file tool touches
 * goes through `resolveToolPath`; everything it prints goes through `displayPath`.
 */
import { isAbsolute, relative } from 'node:path';
import { expandHome } from '../../runtime/decision/path-guard';
import { resolvePath } from '../../runtime/decision/resolve-path';

export { expandHome, resolvePath };

/** The single entry point tools use: resolves against `state.cwd` (containment is checked by the approval engine). */
export function resolveToolPath(input: string, ctx: { state: { cwd: string } }): string {
  return resolvePath(input, ctx.state.cwd);
}

/** True when `child` is `parent` or lies inside it (both absolute, normalised). */
export function isWithin(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** How a path is shown to the model: relative to cwd when inside it (shorter, stable), absolute otherwise. */
export function displayPath(abs: string, cwd: string): string {
  if (abs === cwd) return '.';
  if (isWithin(abs, cwd)) return relative(cwd, abs);
  return abs;
}
