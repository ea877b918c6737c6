/**
 * One scan of a writable root: every path under it with its stat (type, size, mtime, ctime, inode, mode) and, for a
 * regular file under the size cap, the sha256 of its bytes — saved into the blob store the first time they are seen
 * (snapshot on first sight: a command can only be taken back if the bytes it is about to overwrite were kept before
 * it ran, and nothing says in advance which files a command will touch). A path whose stat is unchanged since the
 * previous scan keeps its hash without being read, so a scan of an unchanged tree costs one lstat per path.
 *
 * Never entered: `.git` folders (the person's repository is never read or restored), Deskhand's data folder, and
 * ignored folders (IGNORED_NAMES and the root's .gitignore folder patterns) — those are one `ignored` entry each,
 * their contents neither listed nor kept.
 */
import { lstatSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ignore } from 'ignore';
import type { BlobStore } from './blobs';

export type EntryType = 'file' | 'dir' | 'symlink' | 'ignored' | 'other';

export interface Entry {
  type: EntryType;
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  mode: number;
  /** sha256 of a regular file's bytes when they are kept in the blob store; null otherwise. */
  hash: string | null;
  /** A symbolic link's target. */
  link: string | null;
}

/** What a change records of one side of a path: enough to compare it and to put it back. */
export interface EntryState {
  type: EntryType;
  /** Permission bits (mode & 0o7777). */
  mode: number;
  size: number;
  mtime: number;
  hash?: string;
  link?: string;
}

/** Folders never descended into: dependencies and caches that a package manager rebuilds. */
export { IGNORED_NAMES } from './names';
import { IGNORED_NAMES } from './names';

export interface ScanLimits {
  /** Files above this many bytes are listed but their bytes are not kept (named "not restorable" when changed). */
  maxFileBytes: number;
  /** A root holding more paths than this is not watched at all (the scan stops and says so). */
  maxEntries: number;
  /** Paths never entered (Deskhand's data folder when it lies inside a root). */
  skip: readonly string[];
}

export class RootTooLarge extends Error {}

const gitignores = new Map<string, { mtime: number; matcher: Ignore | null }>();
/** The .gitignore parser, loaded with the first root that has a .gitignore (`policy explain` of most folders never needs it). */
let parser: (() => Ignore) | null = null;
const ignoreParser = (): (() => Ignore) => (parser ??= createRequire(import.meta.url)('ignore') as () => Ignore);

/** The root's .gitignore as a matcher for folders (re-read when it changes). */
export function ignoredBy(root: string): Ignore | null {
  const path = join(root, '.gitignore');
  let mtime = -1;
  try {
    mtime = statSync(path).mtimeMs;
  } catch {
    // no .gitignore
  }
  const known = gitignores.get(root);
  if (known && known.mtime === mtime) return known.matcher;
  let matcher: Ignore | null = null;
  if (mtime >= 0) {
    try {
      matcher = ignoreParser()().add(readFileSync(path, 'utf8'));
    } catch {
      matcher = null;
    }
  }
  gitignores.set(root, { mtime, matcher });
  return matcher;
}

function typeOf(mode: number): EntryType {
  const t = mode & 0o170000;
  if (t === 0o100000) return 'file';
  if (t === 0o040000) return 'dir';
  if (t === 0o120000) return 'symlink';
  return 'other';
}

export function sameStat(a: Entry, b: Entry): boolean {
  return a.type === b.type && a.size === b.size && a.mtime === b.mtime && a.ctime === b.ctime && a.ino === b.ino && a.mode === b.mode;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The current state of one absolute path, read the way a scan reads it (null: it does not exist). */
export function entryAt(abs: string, prev: Entry | undefined, blobs: BlobStore, maxFileBytes: number): Entry | null {
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return null;
  }
  const entry: Entry = { type: typeOf(st.mode), size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino, mode: st.mode, hash: null, link: null };
  if (entry.type === 'dir') entry.size = 0;
  if (prev && sameStat(prev, entry)) {
    entry.hash = prev.hash;
    entry.link = prev.link;
    return entry;
  }
  if (entry.type === 'file' && entry.size <= maxFileBytes) {
    try {
      const bytes = readFileSync(abs);
      // Another process may be writing it (a truncate, then the bytes): the state describes the bytes kept, with the
      // time stamps read after them, so a later scan compares against what was really hashed.
      if (bytes.length !== entry.size) {
        const again = lstatSync(abs);
        Object.assign(entry, { size: bytes.length, mtime: again.mtimeMs, ctime: again.ctimeMs });
      }
      entry.hash = sha256(bytes);
      blobs.put(entry.hash, bytes);
    } catch {
      entry.hash = null; // unreadable (permissions): listed, not kept
    }
  } else if (entry.type === 'symlink') {
    try {
      entry.link = readlinkSync(abs);
    } catch {
      entry.link = null;
    }
  }
  return entry;
}

/**
 * Scans `root` (absolute) against the previous scan's entries (relative, `/`-separated paths). Reads and keeps only
 * files whose stat changed or that are new. `onDir` is called for every folder before it is listed (the watcher
 * starts watching it there, so a change after the listing is an event, one before it is in the listing).
 */
export function scanRoot(root: string, prev: ReadonlyMap<string, Entry>, blobs: BlobStore, limits: ScanLimits, onDir?: (rel: string, ino: number, ignored: boolean) => void): Map<string, Entry> {
  const out = new Map<string, Entry>();
  walkInto(root, '', prev, out, blobs, limits, onDir);
  return out;
}

/** Lists the folder `startRel` of `root` (recursively) into `out`. */
export function walkInto(root: string, startRel: string, prev: ReadonlyMap<string, Entry>, out: Map<string, Entry>, blobs: BlobStore, limits: ScanLimits, onDir?: (rel: string, ino: number, ignored: boolean) => void): void {
  const matcher = ignoredBy(root);
  const skip = new Set(limits.skip);
  if (!startRel) onDir?.('', lstatSync(root).ino, false);
  const stack: string[] = [startRel];
  while (stack.length) {
    const relDir = stack.pop()!;
    const absDir = relDir ? join(root, relDir) : root;
    let names: string[];
    try {
      names = readdirSync(absDir);
    } catch {
      continue; // removed while scanning, or unreadable
    }
    for (const name of names) {
      if (name === '.git') continue;
      const rel = relDir ? `${relDir}/${name}` : name;
      const abs = absDir + sep + name;
      if (skip.has(abs)) continue;
      const entry = entryAt(abs, prev.get(rel), blobs, limits.maxFileBytes);
      if (!entry) continue;
      if (entry.type === 'dir' && isIgnoredDir(name, rel, matcher)) {
        entry.type = 'ignored';
        entry.mode = entry.mode & 0o7777;
        onDir?.(rel, entry.ino, true);
      } else if (entry.type === 'dir') {
        onDir?.(rel, entry.ino, false);
        stack.push(rel);
      }
      out.set(rel, entry);
      if (out.size > limits.maxEntries) throw new RootTooLarge(`${root} holds more than ${limits.maxEntries} paths; its changes are not recorded.`);
    }
  }
}

export function isIgnoredDir(name: string, rel: string, matcher: Ignore | null): boolean {
  return IGNORED_NAMES.has(name) || !!matcher?.ignores(`${rel}/`);
}

/**
 * What changed under `root` since `prev`, from the paths a watcher saw change (relative): each is looked at again; a
 * new folder is listed whole, a gone one drops everything under it. Returns only the paths whose entry differs from
 * `prev` or is gone (`null`), never a copy of `prev`: a step that changed one file of a 10,000-file root costs that
 * file, not the root. Exact when the watcher lost no event (tree-watch.ts).
 */
export function rescanPaths(
  root: string,
  prev: ReadonlyMap<string, Entry>,
  dirty: Iterable<string>,
  blobs: BlobStore,
  limits: ScanLimits,
  onDir: (rel: string, ino: number, ignored: boolean) => void,
  onGone: (rel: string) => void,
  watched: (rel: string, ino: number) => boolean,
): Map<string, Entry | null> {
  const delta = new Map<string, Entry | null>();
  let size = prev.size;
  const get = (rel: string): Entry | undefined => (delta.has(rel) ? (delta.get(rel) ?? undefined) : prev.get(rel));
  const set = (rel: string, e: Entry) => {
    if (!get(rel)) size++;
    delta.set(rel, e);
  };
  const remove = (rel: string) => {
    if (get(rel)) size--;
    if (prev.has(rel)) delta.set(rel, null);
    else delta.delete(rel);
  };
  const matcher = ignoredBy(root);
  const skip = new Set(limits.skip);
  const dropUnder = (rel: string) => {
    const prefix = `${rel}/`;
    for (const key of prev.keys()) if (key.startsWith(prefix)) remove(key);
    for (const key of [...delta.keys()]) if (key.startsWith(prefix)) remove(key);
    onGone(rel);
  };
  for (const rel of [...new Set(dirty)].sort((a, b) => a.length - b.length)) {
    if (rel.split('/').includes('.git')) continue;
    const abs = join(root, rel);
    if (skip.has(abs)) continue;
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (parent && get(parent)?.type !== 'dir') continue; // under an ignored folder, or its folder is gone
    const old = get(rel);
    const entry = entryAt(abs, old, blobs, limits.maxFileBytes);
    if (!entry) {
      if (old) remove(rel);
      if (old?.type === 'dir' || old?.type === 'ignored') dropUnder(rel);
      continue;
    }
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (entry.type === 'dir' && isIgnoredDir(name, rel, matcher)) {
      entry.type = 'ignored';
      entry.mode = entry.mode & 0o7777;
      if (old?.type === 'dir') dropUnder(rel);
      onDir(rel, entry.ino, true);
    } else if (entry.type === 'dir' && (old?.type !== 'dir' || old.ino !== entry.ino || !watched(rel, entry.ino))) {
      // New, replaced, or made by another process before this one watched it: what is in it was never an event here.
      if (old?.type === 'dir' || old?.type === 'ignored') dropUnder(rel);
      set(rel, entry);
      onDir(rel, entry.ino, false);
      const listed = new Map<string, Entry>();
      walkInto(root, rel, prev, listed, blobs, limits, onDir);
      for (const [r, e] of listed) set(r, e);
      if (size > limits.maxEntries) throw new RootTooLarge(`${root} holds more than ${limits.maxEntries} paths; its changes are not recorded.`);
      continue;
    } else if (entry.type !== 'dir' && (old?.type === 'dir' || old?.type === 'ignored')) dropUnder(rel);
    set(rel, entry);
    if (size > limits.maxEntries) throw new RootTooLarge(`${root} holds more than ${limits.maxEntries} paths; its changes are not recorded.`);
  }
  // An entry looked at again and found as it was is no change.
  for (const [rel, e] of delta) {
    const old = prev.get(rel);
    if (e && old && old.type === e.type && old.size === e.size && old.mtime === e.mtime && old.ctime === e.ctime && old.ino === e.ino && old.mode === e.mode && old.hash === e.hash && old.link === e.link) delta.delete(rel);
  }
  return delta;
}

export function stateOf(e: Entry): EntryState {
  return { type: e.type, mode: e.mode & 0o7777, size: e.size, mtime: e.mtime, ...(e.hash ? { hash: e.hash } : {}), ...(e.link !== null ? { link: e.link } : {}) };
}

/** Whether two states hold the same thing (contents, link target, permission bits); time stamps do not count. */
export function sameState(a: EntryState | null, b: EntryState | null): boolean {
  if (!a || !b) return a === b;
  if (a.type !== b.type || a.mode !== b.mode) return false;
  switch (a.type) {
    case 'file':
      return a.hash && b.hash ? a.hash === b.hash : a.size === b.size && a.mtime === b.mtime && !a.hash && !b.hash;
    case 'symlink':
      return a.link === b.link;
    case 'ignored':
      return a.mtime === b.mtime;
    default:
      return true;
  }
}

export type ChangeKind = 'created' | 'modified' | 'deleted' | 'mode';

/** The kind of change from one state to another, or null when they hold the same. */
export function kindOf(before: EntryState | null, after: EntryState | null): ChangeKind | null {
  if (sameState(before, after)) return null;
  if (!before) return 'created';
  if (!after) return 'deleted';
  if (before.type === after.type && before.mode !== after.mode && sameState({ ...before, mode: after.mode }, after)) return 'mode';
  return 'modified';
}
