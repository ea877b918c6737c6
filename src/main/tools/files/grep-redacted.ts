/**
 * grep matches what the model may see, not the raw bytes (issue 29, mechanism 13). ripgrep matches files as they are,
 * so `files_with_matches` and `count_matches` would tell whether a secret in an ordinary file matches a pattern
 * (a prefix, a character class, a case-insensitive spelling) even though every line shown is redacted. So the files
 * the raw pattern matches are only candidates: each is redacted as a whole (the run's secrets and credential shapes),
 * and when that changes any of them, the search runs again, unchanged, over a private mirror that holds the redacted
 * copies (the others byte for byte) at the same relative paths. Every mode's answer — lines, file lists, counts,
 * pagination — is then exactly the answer for the redacted text, and paths are mapped back to the real ones.
 *
 * A file redaction left unchanged is remembered by the redactor (`UnchangedFiles`) under its path and a key of what it
 * holds (device, inode, size, modification and change times in microseconds, read before and after the read, equal),
 * so the next search does not read it again; the key is not remembered while the file's times are within the last
 * two seconds (a write in the same clock tick as the read could keep them), and the redactor forgets every entry when
 * it gains a secret.
 *
 * The keys of the first search's candidates are read while that search runs (`SearchedKeys`), each once rg is done
 * with the file, so the `stat` per candidate is paid beside rg instead of after it.
 *
 * Before reading them, ripgrep sifts the candidates the memo does not know (`mayChange`): the redactor's prefilter
 * patterns (`SecretRedactor.prefilter`) name everything redaction could change, and a candidate none of them matches
 * is not read (redaction would leave it unchanged); it is remembered like a file read and found unchanged.
 *
 * Not caught: a file the raw pattern does not match but whose redacted text would (a pattern that matches the
 * placeholder `[redacted:NAME]` itself) is not reported; that reveals nothing about the secret.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { RedactionPrefilter, UnchangedFiles } from '../../runtime/context/redaction';
import { runHostProgram } from '../../services/processes';
import { RG_BASE_ARGS, RG_OWN_GROUP, ripgrepPath } from './rg';

/** Times this close to now (ms) are not trusted to tell a later write apart. Exported so tests can shorten it. */
export const unchangedTuning = { racyMs: 2_000 };

/**
 * What a file holds, as far as its metadata tells: device, inode, size, modification and change times. The times are
 * whole microseconds (from the millisecond doubles), not BigInt nanoseconds: a key is remembered only when both
 * times are more than `racyMs` old, and any later write sets the change time to now (programs cannot set it), which
 * moves it by more than that; the BigInt form cost a third more per `stat` and its garbage (issue 54, fifth round).
 */
const contentKey = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${Math.round(st.mtimeMs * 1000)}:${Math.round(st.ctimeMs * 1000)}`;

/** Both times are old enough (`unchangedTuning`) for the key to tell a later write apart. */
const settledAt = (st: Stats, now: number): boolean => now - st.mtimeMs > unchangedTuning.racyMs && now - st.ctimeMs > unchangedTuning.racyMs;

/**
 * `path` (as rg printed it) from `cwd`, as `resolve` gives it: a plain relative path (no `.` or `..` segment, no empty
 * one) from a normalised absolute `cwd` is joined directly (`resolve` cost 6 ms per 11,000 candidates).
 */
function absolute(cwd: string, path: string): string {
  const plain = (p: string) => !p.includes('/.') && !p.includes('//') && !p.endsWith('/');
  if (sep === '/' && cwd.charCodeAt(0) === 47 && (cwd === '/' || plain(cwd)) && path !== '' && path.charCodeAt(0) !== 47 && !path.startsWith('.') && plain(path)) {
    return cwd === '/' ? `/${path}` : `${cwd}/${path}`;
  }
  return resolve(cwd, path);
}

/**
 * The file's text when redaction changes it, or null when it does not (or it is gone). A file remembered as unchanged
 * under the same key is not read. Synchronous: thousands of small files cost a few system calls each, which the
 * thread pool's round trips would multiply; the caller yields between batches.
 */
function redactedText(abs: string, redact: (text: string) => string, memo: UnchangedFiles | undefined): string | null {
  let fd: number;
  try {
    fd = openSync(abs, 'r');
  } catch {
    return null; // gone since rg saw it: the second search will not find it either
  }
  try {
    const before = fstatSync(fd);
    const key = contentKey(before);
    if (memo?.has(abs, key)) return null;
    const text = readFileSync(fd).toString('utf8');
    const red = redact(text);
    if (red !== text) return red;
    if (memo) {
      const after = fstatSync(fd);
      if (settledAt(after, Date.now()) && contentKey(after) === key) memo.add(abs, key);
    }
    return null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Files judged between two turns of the event loop. */
const BATCH = 256;

/**
 * Fewer candidates than this are read in JavaScript directly; more are first sifted by ripgrep (`mayChange`), a batch
 * of paths per run of at most `argBytes` of arguments (each path's bytes, its NUL and its pointer): a single run for
 * most searches where the system allows long command lines (Linux about 2 MB, macOS 1 MB; Windows 32 K characters),
 * since each run costs a process start and a pattern compile. Exported so tests can force either path and batching.
 */
export const prefilterTuning = {
  minFiles: 16,
  argBytes: process.platform === 'win32' ? 24 * 1024 : process.platform === 'darwin' ? 384 * 1024 : 768 * 1024,
};

/**
 * Of `paths` (as rg printed them, relative to `cwd` or absolute), those in which the redactor's prefilter patterns
 * match: the only ones redaction can change. ripgrep reads the files (patterns on stdin, never on the command line;
 * every file searched as raw bytes, as the redactor reads them: `--text`, no transcoding), a batch of paths per run.
 * Null when ripgrep fails on any batch (a file gone, an error): then every file is read and redacted here.
 */
async function mayChange(paths: readonly string[], cwd: string, filter: RedactionPrefilter, signal?: AbortSignal): Promise<Set<string> | null> {
  if (filter.patterns === '') return new Set();
  const program = await ripgrepPath();
  const batches: string[][] = [[]];
  let bytes = 0;
  for (const p of paths) {
    if (bytes > prefilterTuning.argBytes) {
      batches.push([]);
      bytes = 0;
    }
    batches[batches.length - 1]!.push(p);
    bytes += Buffer.byteLength(p) + 1 + 8;
  }
  const args = [...RG_BASE_ARGS, '--files-with-matches', '--null', '--text', '--encoding=none', '--case-sensitive', '--no-ignore', '--hidden', ...(filter.multiline ? ['--multiline'] : []), '--file=-', '--'];
  const found = new Set<string>();
  // Two at a time: rg is multithreaded already, and each batch is small.
  for (let i = 0; i < batches.length; i += 2) {
    const runs = await Promise.all(batches.slice(i, i + 2).map((batch) => runHostProgram({ program, args: [...args, ...batch], cwd, input: filter.patterns, maxBuffer: 64 * 1024 * 1024, timeoutMs: 120_000, ownGroup: RG_OWN_GROUP, signal })));
    for (const r of runs) {
      if (r.error || (r.code !== 0 && r.code !== 1) || r.stoppedBy) return null;
      for (const line of r.stdout.split('\u0000')) if (line !== '') found.add(absolute(cwd, line));
    }
  }
  return found;
}

interface Unknown {
  path: string;
  abs: string;
  key: string;
  settled: boolean;
}

/** The key of the file at `abs` now (null: nothing there), and whether its times are settled at `now`. */
function keyNow(abs: string, now: number): Omit<Unknown, 'path'> | null {
  const st = statSync(abs, { throwIfNoEntry: false });
  return st ? { abs, key: contentKey(st), settled: settledAt(st, now) } : null;
}

/**
 * Candidates' keys read while the search still runs (issue 54, eighth round): the main thread mostly waits for rg's
 * output then, so the `stat` per candidate (the largest cost of a repeated search) is paid beside rg instead of after
 * it. A key must be read after ripgrep has read the file (a write after that changes it; one before it could be
 * missed): the caller reads a file's key once rg's output has moved past the file (rg's parallel search prints each
 * file's lines together, after searching it) or rg has exited. Paths as rg printed them.
 */
export class SearchedKeys {
  private readonly keys = new Map<string, Omit<Unknown, 'path'> | null>();

  constructor(private readonly cwd: string) {}

  /**
   * Reads the key of `path` now: the file is gone (null) or its key, and whether its times were settled then. Called
   * from rg's output handler, so it never throws: a path that cannot be asked (no permission, a loop) gets no key
   * here, and `sift` asks it again where its error is a tool error.
   */
  read(path: string): void {
    try {
      this.keys.set(path, keyNow(absolute(this.cwd, path), Date.now()));
    } catch {
      this.keys.delete(path);
    }
  }

  /** The key read for `path` (null: gone), or undefined when none was. */
  get(path: string): Omit<Unknown, 'path'> | null | undefined {
    return this.keys.get(path);
  }
}

/**
 * What became of each of `candidates` (paths as rg printed them): known to the memo under the key read during the
 * search (`searched`) or now (`known`), or gone (left out), or unknown, with `sifted` the unknown ones the redactor's
 * prefilter patterns match (null when there are too few to be worth an rg of their own, or sifting failed: then all
 * are read). The key is read before the sifting rg reads the file, so a write since changes it.
 */
async function sift(
  candidates: readonly string[],
  cwd: string,
  memo: UnchangedFiles,
  filter: RedactionPrefilter,
  searched?: SearchedKeys,
  signal?: AbortSignal,
): Promise<{ unknown: Unknown[]; sifted: Set<string> | null; known: string[] }> {
  const unknown: Unknown[] = [];
  const known: string[] = [];
  const now = Date.now();
  const seen = new Set<string>();
  for (const path of candidates) {
    if (seen.has(path)) continue;
    seen.add(path);
    const read = searched?.get(path);
    const key = read === undefined ? keyNow(absolute(cwd, path), now) : read;
    if (!key) continue; // gone since rg saw it: the second search will not find it either
    if (memo.has(key.abs, key.key)) known.push(path);
    else unknown.push({ path, ...key });
  }
  if (unknown.length < prefilterTuning.minFiles) return { unknown, sifted: null, known };
  return { unknown, sifted: await mayChange(unknown.map((u) => u.path), cwd, filter, signal), known };
}

export interface Mirror {
  /** The private folder (0700) holding the copies: `abs/<absolute path>` and `<nested…>/rel/<relative path>`. */
  root: string;
  /** Where relative candidates live: the search's working directory inside the mirror. */
  cwd: string;
  /** A line of rg output with a mirror path turned back into the real path. */
  unmap(line: string): string;
  remove(): Promise<void>;
}

/** How many `..` segments a relative path climbs above its start at most. */
function climb(p: string): number {
  let depth = 0;
  let most = 0;
  for (const part of p.split(/[\\/]+/)) {
    if (part === '..') most = Math.max(most, ++depth);
    else if (part && part !== '.') depth--;
  }
  return most;
}

/**
 * The redacted mirror of the candidate files (paths as rg printed them, relative to `cwd` or absolute), or null when
 * redaction changes none of them (then the raw answer is already the redacted one).
 */
export async function redactedMirror(
  candidates: readonly string[],
  cwd: string,
  redact: (text: string) => string,
  extraPaths: readonly string[] = [],
  memo?: UnchangedFiles,
  signal?: AbortSignal,
  searched?: SearchedKeys,
): Promise<Mirror | null> {
  const changed = new Map<string, string>();
  // With a prefilter, ripgrep first sifts the candidates the memo does not know: a file none of its patterns matches
  // is one redaction leaves unchanged, and is not read here (it is remembered, as a file read and found unchanged
  // is). The others are read and redacted whole, as without it.
  let toRead: readonly string[] = candidates;
  const since = memo?.version;
  const filter = memo && candidates.length >= prefilterTuning.minFiles ? memo.prefilter() : null;
  const clean: Unknown[] = [];
  /** Candidates the memo vouched for: read too if this search teaches the redactor a secret. */
  let known: string[] = [];
  if (filter && memo) {
    const settled = await sift(candidates, cwd, memo, filter, searched, signal);
    known = settled.known;
    const { unknown, sifted } = settled;
    if (sifted === null) toRead = unknown.map((u) => u.path);
    else {
      toRead = unknown.filter((u) => sifted.has(u.abs)).map((u) => u.path);
      for (const u of unknown) if (!sifted.has(u.abs)) clean.push(u);
    }
  }
  for (let i = 0; i < toRead.length; i++) {
    if (i > 0 && i % BATCH === 0) await new Promise<void>((r) => setImmediate(r));
    const p = toRead[i]!;
    const red = redactedText(absolute(cwd, p), redact, memo);
    if (red !== null) changed.set(p, red);
  }
  if (!filter && memo && memo.version !== since) {
    // Read one by one (too few to sift): a file read above taught the redactor a secret the memo's files were not
    // checked for; read every candidate not yet changed again.
    for (const p of candidates) {
      if (changed.has(p)) continue;
      const red = redactedText(absolute(cwd, p), redact, memo);
      if (red !== null) changed.set(p, red);
    }
  }
  if (filter && memo) {
    if (memo.version !== filter.version) {
      // The redactor gained a secret (a file read above taught it one) the sifted files were not searched for, nor
      // the memo's files vouched for: read them too.
      const again = [...clean.map((u) => u.path), ...known];
      for (let i = 0; i < again.length; i++) {
        if (i > 0 && i % BATCH === 0) await new Promise<void>((r) => setImmediate(r));
        const red = redactedText(absolute(cwd, again[i]!), redact, memo);
        if (red !== null) changed.set(again[i]!, red);
      }
    } else {
      // The key was read before ripgrep read the file: a write since then changed the key, so the entry never
      // vouches for bytes ripgrep did not see (and a key within the racy window is not kept).
      for (const u of clean) if (u.settled) memo.add(u.abs, u.key);
    }
  }
  if (changed.size === 0) return null;
  const root = await mkdtemp(join(tmpdir(), 'deskhand-grep-'));
  const depth = Math.max(0, ...candidates.filter((p) => !isAbsolute(p)).map(climb), ...extraPaths.filter((p) => !isAbsolute(p)).map(climb));
  const rel = join(root, ...Array.from({ length: depth }, (_, i) => `up${i}`), 'rel');
  await mkdir(rel, { recursive: true, mode: 0o700 });
  const absRoot = join(root, 'abs');
  try {
    for (const p of candidates) {
      const dest = isAbsolute(p) ? join(absRoot, p) : join(rel, p);
      await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
      const red = changed.get(p);
      if (red !== undefined) await writeFile(dest, red, { mode: 0o600 });
      else await copyFile(resolve(cwd, p), dest).catch(() => undefined);
    }
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  const prefix = absRoot;
  return {
    root,
    cwd: rel,
    unmap: (line) => (line.startsWith(prefix + sep) ? line.slice(prefix.length) : line),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
