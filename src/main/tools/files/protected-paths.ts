/** Folders rm and mv refuse to remove or move away: `/`, the home folder, workspace roots, cwd, the data dir, and their ancestors. */
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { parse } from 'node:path';
import { isWithin } from './paths';

export interface ProtectionContext {
  cwd: string;
  workspaceRoots: readonly string[];
  dataDir: string;
}

async function canonical(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}

/**
 * Why removing or moving `abs` would be destructive beyond the thing itself, or null when it is allowed.
 * `abs` must not be a symlink (removing a link never touches its target; callers skip this check for links).
 */
export async function protectedReason(abs: string, ctx: ProtectionContext): Promise<string | null> {
  const real = await canonical(abs);
  if (parse(real).root === real) return `${abs} is the root of the file system`;
  const home = await canonical(homedir());
  if (isWithin(home, real)) return real === home ? `${abs} is the home folder` : `${abs} contains the home folder`;
  for (const root of ctx.workspaceRoots) {
    const r = await canonical(root);
    if (isWithin(r, real)) return real === r ? `${abs} is a workspace root of this conversation` : `${abs} contains the workspace root ${r}`;
  }
  const cwd = await canonical(ctx.cwd);
  if (isWithin(cwd, real)) return real === cwd ? `${abs} is the current working directory` : `${abs} contains the current working directory`;
  const data = await canonical(ctx.dataDir);
  if (isWithin(data, real)) return `${abs} holds Deskhand's own data`;
  return null;
}
