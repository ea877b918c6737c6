/**
 * Shared planning and copying for cp and mv: where the source lands (inside an existing folder, or at the path),
 * whether something is replaced (only with force), and replacing in one step (temp copy + rename).
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { cp, copyFile, lstat, mkdir, open, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { readdirSync, realpathSync } from 'node:fs';
import { sensitiveMatch } from '../../runtime/decision/path-guard';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import type { Classification, ClassifyContext } from '../../runtime/tool';
import { errno, fsError } from './fs-errors';
import { displayPath, isWithin, resolveToolPath } from './paths';

export const transferParams = () =>
  z.object({
  source: z.string().describe('The file or folder to take: absolute, relative to the working directory, or starting with ~.'),
  destination: z
    .string()
    .describe('Where it goes. If this is an existing folder, the source is placed inside it under its own name; otherwise this is the new path (missing parent folders are created).'),
  force: z
    .boolean()
    .optional()
    .describe('Replace the destination if it already exists (default false: refuse instead). A file only replaces a file and a folder only a folder.'),
});
export type TransferArgs = z.infer<ReturnType<typeof transferParams>>;

export interface TransferPlan {
  src: string;
  srcShown: string;
  srcStat: Stats;
  target: string;
  targetShown: string;
  /** lstat of what is already at the target, or null. */
  existing: Stats | null;
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

function kind(st: Stats): string {
  return st.isDirectory() ? 'folder' : st.isSymbolicLink() ? 'symbolic link' : 'file';
}

export async function planTransfer(args: TransferArgs, cwd: string, verb: 'copy' | 'move'): Promise<TransferPlan> {
  const at = { state: { cwd } };
  const src = resolveToolPath(args.source, at);
  const srcShown = displayPath(src, cwd);
  let srcStat: Stats;
  try {
    // cp follows a top-level link (copies what it points to); mv moves the link itself.
    srcStat = verb === 'copy' ? await stat(src) : await lstat(src);
  } catch (err) {
    throw fsError(err, srcShown);
  }
  let target = resolveToolPath(args.destination, at);
  // An existing folder (or a link to one) as destination means "into it", like cp/mv do.
  const destStat = await stat(target).catch(() => null);
  if (destStat?.isDirectory() && target !== src) target = join(target, basename(src));
  else if (!destStat && /[\\/]$/.test(args.destination)) target = join(target, basename(src));
  const targetShown = displayPath(target, cwd);
  if (target === src) throw new ToolError(`The source and destination are the same path (${srcShown}); nothing to ${verb}.`);
  if (srcStat.isDirectory() && isWithin(target, src)) {
    throw new ToolError(`Cannot ${verb} the folder ${srcShown} into itself (${targetShown}). Pick a destination outside it.`);
  }
  let existing: Stats | null;
  try {
    existing = await lstatOrNull(target);
  } catch (err) {
    throw fsError(err, targetShown);
  }
  return { src, srcShown, srcStat, target, targetShown, existing };
}

/** Refuses replacing without force, and replacing across kinds (a folder with a file or the reverse). */
export function assertReplaceable(p: TransferPlan, force: boolean | undefined): void {
  if (!p.existing) return;
  if (!force) {
    throw new ToolError(
      `${p.targetShown} already exists (${kind(p.existing)}). Set force: true to replace it, or choose another destination.`,
      'conflict',
    );
  }
  const srcIsDir = p.srcStat.isDirectory();
  if (srcIsDir !== p.existing.isDirectory()) {
    throw new ToolError(
      `Cannot replace the ${kind(p.existing)} ${p.targetShown} with a ${kind(p.srcStat)}. Remove it first with rm if that is really intended.`,
      'conflict',
    );
  }
}

/** The classifier both tools share: low-risk unless force would replace something that exists. */
export async function classifyTransfer(args: TransferArgs, cctx: ClassifyContext, verb: 'copy' | 'move'): Promise<Classification> {
  try {
    const p = await planTransfer(args, cctx.cwd, verb);
    if (p.existing && args.force) {
      return {
        risk: 'high-risk',
        reasons: [`force replaces the existing ${kind(p.existing)} ${p.target}; its current content is lost`],
        rulePattern: null,
      };
    }
    if (p.existing) return { risk: 'low-risk', reasons: [`${p.target} exists and force is not set, so the call will refuse; nothing is replaced`] };
    return { risk: 'low-risk', reasons: [`${verb === 'copy' ? 'copies' : 'moves'} ${p.src} to the new path ${p.target}; nothing existing is replaced`] };
  } catch (err) {
    return { risk: 'low-risk', reasons: [`the call will fail before changing anything: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

export function siblingTemp(target: string): string {
  return join(dirname(target), `.${basename(target).slice(0, 180)}.${randomBytes(6).toString('hex')}.deskhand-tmp`);
}

/** Copies src (file, link or folder tree) to a fresh path `to`, which must not exist. Links inside folders stay links. */
export async function copyTree(src: string, srcStat: Stats, to: string, signal: AbortSignal, opts: { keepLink?: boolean } = {}): Promise<number> {
  let files = 0;
  if (srcStat.isSymbolicLink() && opts.keepLink) {
    await symlink(await readlink(src), to);
    return 1;
  }
  if (srcStat.isDirectory()) {
    await cp(src, to, {
      recursive: true,
      errorOnExist: true,
      force: false,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      filter: (from) => {
        if (signal.aborted) throw new ToolError('Stopped before finishing (the call was cancelled or timed out).', 'aborted');
        if (from !== src) files++;
        return true;
      },
    });
    return files;
  }
  // A file (or a top-level link, which is followed like cp does): copy, then fsync so the rename that follows is durable.
  await copyFile(src, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
  const fh = await open(to, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  return 1;
}

/**
 * Puts `staged` (a complete copy next to the target) in place of `target`. A file replaces a file in one rename; a
 * folder replacing a folder is swapped in two renames with the old one restored if the second fails.
 */
export async function installStaged(staged: string, target: string, replacingDir: boolean): Promise<void> {
  if (!replacingDir) {
    await rename(staged, target);
    return;
  }
  const trash = siblingTemp(target);
  await rename(target, trash);
  try {
    await rename(staged, target);
  } catch (err) {
    await rename(trash, target).catch(() => undefined);
    throw err;
  }
  await rm(trash, { recursive: true, force: true });
}

export async function ensureParent(target: string, shown: string): Promise<void> {
  try {
    await mkdir(dirname(target), { recursive: true });
  } catch (err) {
    throw fsError(err, shown, 'folder');
  }
}

/** Entries a copy or move checks for sensitive files before it starts; a larger source folder is refused. */
export const SENSITIVE_WALK_LIMIT = 20_000;

/**
 * Files keep their sensitivity: a copy or move of a credentials file (or of a folder holding one, or Deskhand's
 * data) is refused when the file would land on a path the path guard does not protect (`~/.ssh/config` copied to
 * `notes/config` would be readable without asking). Landing on a path that is sensitive too (`.env` → `.env.bak`) is
 * fine: the copy still asks.
 */
export function assertSensitivityKept(p: TransferPlan, ctx: { dataDir: string; workspaceRoots: readonly string[] }, verb: 'copy' | 'move'): void {
  const home = (() => {
    try {
      return realpathSync(homedir());
    } catch {
      return homedir();
    }
  })();
  const data = (() => {
    try {
      return realpathSync(ctx.dataDir);
    } catch {
      return ctx.dataDir;
    }
  })();
  const guard = { dataDir: data, roots: ctx.workspaceRoots, home };
  const keeps = (kind: string | undefined) => kind === 'credentials' || kind === 'deskhand-data';
  let srcReal: string;
  try {
    srcReal = realpathSync(p.src);
  } catch {
    srcReal = p.src;
  }
  let seen = 0;
  const check = (real: string, shown: string) => {
    const m = sensitiveMatch(real, guard);
    if (!m || !keeps(m.kind)) return;
    const dest = join(p.target, relative(srcReal, real));
    const after = sensitiveMatch(dest, guard);
    if (after && keeps(after.kind)) return;
    throw new ToolError(
      `Refusing to ${verb} ${shown}: it is ${m.what}, and at ${dest} it would no longer be protected (reading it there would not ask). ` +
        'Copy it yourself if you really mean to, or pick a destination that keeps its name.',
      'denied',
    );
  };
  check(srcReal, p.srcShown);
  if (!p.srcStat.isDirectory()) return;
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > SENSITIVE_WALK_LIMIT) {
        throw new ToolError(`Refusing to ${verb} ${p.srcShown}: it holds more than ${SENSITIVE_WALK_LIMIT} entries, too many to check for credentials. Copy a smaller folder.`, 'denied');
      }
      const full = join(dir, e.name);
      check(full, full);
      if (e.isDirectory()) walk(full);
    }
  };
  walk(srcReal);
}
