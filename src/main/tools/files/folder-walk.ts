/**
 * The folders under a search root, for `find` with type "directory". ripgrep lists files only, so folders known
 * through their files would miss empty ones and ones holding only ignored files; this walks the folders themselves
 * and applies the same ignore files ripgrep reads (.gitignore, .ignore, .rgignore, in the root's parents too; the
 * deepest rule that speaks decides, .rgignore over .ignore over .gitignore at one level). `.git` is never entered and
 * symbolic links are not followed.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';
import type { Ignore } from 'ignore';
import { throwIfAborted } from './fs-errors';

/** The ignore-file parser, loaded by the first folder that has an ignore file (a run's start does not load it). */
let parser: ((options: { allowRelativePaths: boolean }) => Ignore) | null = null;
const ignore = (options: { allowRelativePaths: boolean }): Ignore => (parser ??= createRequire(import.meta.url)('ignore') as NonNullable<typeof parser>)(options);

/** Ignore files of one folder, highest precedence first (ripgrep's order). */
const IGNORE_FILES = ['.rgignore', '.ignore', '.gitignore'];

interface Rules {
  /** The folder the rules belong to (absolute). */
  base: string;
  sets: Ignore[];
}

async function rulesOf(dir: string): Promise<Rules | null> {
  const sets: Ignore[] = [];
  for (const name of IGNORE_FILES) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => null);
    if (text !== null) sets.push(ignore({ allowRelativePaths: true }).add(text));
  }
  return sets.length ? { base: dir, sets } : null;
}

/** Whether folder `abs` is ignored by the rules in force there. */
function ignoredBy(stack: readonly Rules[], abs: string): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const rules = stack[i] as Rules;
    const path = relative(rules.base, abs).split(sep).join('/');
    if (path === '' || path.startsWith('..')) continue;
    for (const set of rules.sets) {
      const r = set.test(`${path}/`);
      if (r.unignored) return false;
      if (r.ignored) return true;
    }
  }
  return false;
}

export interface FolderWalk {
  /** Folders relative to the root ('/'-separated), each with its modification time. */
  folders: { rel: string; mtimeMs: number }[];
  capped: boolean;
}

export async function walkFolders(root: string, opts: { includeIgnored: boolean; max: number; signal: AbortSignal }): Promise<FolderWalk> {
  const parentRules: Rules[] = [];
  if (!opts.includeIgnored) {
    // Ignore files of the root's parents apply inside it too (ripgrep reads them as well).
    const chain: string[] = [];
    for (let d = dirname(root); d !== dirname(d); d = dirname(d)) chain.unshift(d);
    for (const d of chain) {
      const r = await rulesOf(d);
      if (r) parentRules.push(r);
    }
  }
  const folders: FolderWalk['folders'] = [];
  let capped = false;
  const visit = async (rel: string, stack: Rules[]): Promise<void> => {
    if (capped) return;
    throwIfAborted(opts.signal);
    const abs = rel === '' ? root : join(root, rel);
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return; // unreadable folders are skipped, as ripgrep skips them
    }
    const own = opts.includeIgnored ? null : await rulesOf(abs);
    const here = own ? [...stack, own] : stack;
    const subs = entries.filter((e) => e.isDirectory() && e.name !== '.git').map((e) => (rel === '' ? e.name : `${rel}/${e.name}`));
    for (const sub of subs.sort()) {
      if (!opts.includeIgnored && ignoredBy(here, join(root, sub))) continue;
      if (folders.length >= opts.max) {
        capped = true;
        return;
      }
      const mtimeMs = await stat(join(root, sub)).then((s) => s.mtimeMs, () => 0);
      folders.push({ rel: sub, mtimeMs });
      await visit(sub, here);
    }
  };
  await visit('', parentRules);
  return { folders, capped };
}
