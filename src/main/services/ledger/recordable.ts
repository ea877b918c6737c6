/**
 * Whether the change ledger records a conversation's writable roots, judged before a step runs (the approval engine's
 * confined inspector asks for this: a workspace change needs no card only where it can be taken back). A root is
 * recorded when it is an existing folder, not the file system's root, the home folder or the temp folder, and holds
 * at most the ledger's 50,000 paths (counted once per process and again after five minutes; ignored folders and
 * `.git` count as one entry, as the scan treats them, so the count never says "recorded" where the scan would stop).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES } from './ledger';
import { IGNORED_NAMES, ignoredBy, isIgnoredDir } from './scan';

const MAX_ENTRIES = 50_000;
const RECOUNT_MS = 5 * 60_000;
const counted = new Map<string, { at: number; ok: boolean }>();

function tooBroad(root: string): boolean {
  return root === sep || root === resolve(homedir()) || root === resolve(tmpdir());
}

/** Counts the paths under a folder, stopping past the limit; false when it holds more (or cannot be listed). */
function fitsLedger(root: string, skip: string): boolean {
  let n = 0;
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      if (dir === root) return false;
      continue;
    }
    for (const d of names) {
      if (++n > MAX_ENTRIES) return false;
      const abs = join(dir, d.name);
      if (d.isDirectory() && !IGNORED_NAMES.has(d.name) && d.name !== '.git' && abs !== skip) stack.push(abs);
    }
  }
  return true;
}

/**
 * Would the ledger keep what a write to this path replaces? Not inside `.git`, an ignored folder (`node_modules`, a
 * folder the root's .gitignore names) or Deskhand's data, and not over a file above the ledger's 8 MiB.
 */
function keepsPath(path: string, roots: readonly string[], skip: string): boolean {
  const abs = resolve(path);
  if (abs === skip || abs.startsWith(skip + sep)) return false;
  const root = roots.map((r) => resolve(r)).filter((r) => abs === r || abs.startsWith(r + sep)).sort((a, b) => b.length - a.length)[0];
  if (!root) return false;
  const parts = relative(root, abs).split(sep).filter(Boolean);
  const matcher = ignoredBy(root);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '.git') return false;
    // Every folder on the way (and the path itself, were it a folder) must be one the scan enters.
    if (isIgnoredDir(parts[i]!, parts.slice(0, i + 1).join('/'), matcher)) return false;
  }
  try {
    const st = lstatSync(abs);
    if (st.isFile() && st.size > DEFAULT_MAX_FILE_BYTES) return false;
    // A folder (removed or replaced whole): everything in it must be kept, so no ignored folder or big file inside.
    if (st.isDirectory()) return keepsFolder(root, abs, matcher);
  } catch {
    // a new file: nothing to keep, and the ledger records its creation
  }
  return true;
}

/** Everything under a folder is kept by the ledger: no ignored folder, no file over 8 MiB, at most 10,000 paths. */
function keepsFolder(root: string, folder: string, matcher: ReturnType<typeof ignoredBy>): boolean {
  let n = 0;
  const stack = [folder];
  while (stack.length) {
    const dir = stack.pop()!;
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const d of names) {
      if (++n > 10_000) return false;
      const abs = join(dir, d.name);
      if (d.isDirectory()) {
        if (d.name === '.git' || isIgnoredDir(d.name, relative(root, abs).split(sep).join('/'), matcher)) return false;
        stack.push(abs);
      } else if (d.isFile()) {
        try {
          if (lstatSync(abs).size > DEFAULT_MAX_FILE_BYTES) return false;
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return true;
}

/**
 * Does the ledger record every one of these roots (with Deskhand's data folder skipped), and keep what a write to
 * each of `writes` replaces?
 */
export function ledgerRecords(roots: readonly string[], dataDir: string, writes: readonly string[] = [], now = Date.now()): boolean {
  if (!roots.length) return false;
  const skip = resolve(dataDir);
  for (const r of roots) {
    const root = resolve(r);
    if (tooBroad(root)) return false;
    try {
      if (!lstatSync(root).isDirectory()) return false;
    } catch {
      return false;
    }
    const known = counted.get(root);
    if (known && now - known.at < RECOUNT_MS) {
      if (!known.ok) return false;
      continue;
    }
    const ok = fitsLedger(root, skip);
    counted.set(root, { at: now, ok });
    if (!ok) return false;
  }
  return writes.every((w) => keepsPath(w, roots, skip));
}
