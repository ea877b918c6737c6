/**
 * The person's own stdio MCP servers: the files their command line names, pinned when the person adds the server
 * (`deskhand mcp add`, Settings). The paths come from the person's own command line, not from workspace content, and
 * the files are only hashed (their text goes nowhere), so they are read here directly.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import type { StdioServerConfig } from './config';

/** Programs installed system-wide are the system's to update: they are not pinned. */
const SYSTEM_PREFIXES = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/opt/', '/nix/', '/snap/', '/System/', '/Library/', '/Applications/', '/etc/'];
/** Larger files are pinned by size and mtime, not hashed (a same-size rewrite that keeps the mtime is not noticed). */
const MAX_PIN_BYTES = 64 * 1024 * 1024;

export type ServerPin = NonNullable<StdioServerConfig['pins']>[number];

/**
 * The server as the person added it, made to run the same wherever Deskhand starts: the working folder recorded
 * (`cwd`, the folder `mcp add` ran in unless one was given) and every regular file its command line names (the
 * program, a script argument, `--flag=path`), relative ones resolved against that folder, pinned by sha256.
 */
export function pinServer(config: StdioServerConfig, cwd: string): StdioServerConfig {
  const folder = resolve(config.cwd ?? cwd);
  const pins: ServerPin[] = [];
  const seen = new Set<string>();
  for (const arg of commandWords(config)) {
    const path = namedFile(arg, folder);
    if (!path || seen.has(path)) continue;
    seen.add(path);
    const sha = fileSha(path);
    if (sha) pins.push({ arg, path, sha256: sha });
  }
  return { ...config, cwd: folder, ...(pins.length ? { pins } : {}) };
}

/** Why a pinned server must not start now (a pinned file changed or is gone), or null. */
export function pinsChanged(config: StdioServerConfig): string | null {
  const changed = (config.pins ?? []).filter((p) => fileSha(p.path) !== p.sha256).map((p) => p.path);
  if (!changed.length) return null;
  return (
    `${changed.join(', ')} changed since the MCP server ${config.name} was added, so it does not start (the server runs ` +
    `it on this computer). Look at the change; if it is yours, add the server again to pin the new version: ` +
    `deskhand mcp add ${config.name} -- ${[config.command, ...(config.args ?? [])].join(' ')}`
  );
}

function commandWords(config: StdioServerConfig): string[] {
  return [config.command, ...(config.args ?? [])].flatMap((w) => {
    const eq = /^--?[A-Za-z][\w-]*=(.+)$/.exec(w);
    return eq ? [w, eq[1]!] : [w];
  });
}

/** The regular file a word names (absolute, or relative to `folder`; links followed), unless a system one. */
function namedFile(arg: string, folder: string): string | null {
  if (!arg || arg.includes('\0') || arg.startsWith('-')) return null;
  const abs = isAbsolute(arg) ? resolve(arg) : resolve(folder, arg);
  try {
    if (!statSync(abs).isFile()) return null;
    const real = realpathSync.native(abs);
    return SYSTEM_PREFIXES.some((p) => real.startsWith(p) || `${real}${sep}` === p) ? null : real;
  } catch {
    return null;
  }
}

function fileSha(path: string): string | null {
  try {
    const st = statSync(path);
    if (!st.isFile()) return null;
    if (st.size > MAX_PIN_BYTES) return `size:${st.size}:${st.mtimeMs}`;
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
}
