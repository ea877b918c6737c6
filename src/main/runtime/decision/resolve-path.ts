/** Resolving a path the model gave, the same way the path guard checks it (shared by every family that takes paths). */
import { lexicalPath } from './path-guard';

/** `~` expanded, normalised against `cwd`, always absolute: what the approval engine checked. */
export function resolvePath(input: string, cwd: string): string {
  return lexicalPath(input, cwd);
}
