/**
 * Path resolution for the file tools, kept in one place so a later containment layer (workspace roots, sensitive
 * paths) can wrap or replace it without touching the tools. Everything a file tool touches goes through
 * `resolveToolPath`; everything it prints goes through `displayPath`.
 */
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolError } from '../../../shared/errors';

/** Expands a leading `~` or `~/…` to the home folder. `~user` forms are left alone (and then resolved literally). */
export function expandHome(input: string, home: string = homedir()): string {
  if (input === '~') return home;
  if (input.startsWith('~/') || (sep === '\\' && input.startsWith('~\\'))) return resolve(home, input.slice(2));
  return input;
}

/** Resolves a path the model gave against the conversation's cwd: `~` expanded, normalised, always absolute. */
export function resolvePath(input: string, cwd: string): string {
  const trimmed = input.trim();
  if (trimmed === '') throw new ToolError('The path is empty. Pass a file or folder path (relative to the working directory or absolute).');
  if (trimmed.includes('\0')) throw new ToolError('The path contains a NUL byte, which no file system accepts.');
  const expanded = expandHome(trimmed);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The single entry point tools use: resolves against `state.cwd`. A containment layer can replace this later. */
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
