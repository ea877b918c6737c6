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
 * holds (device, inode, size, modification and change times in nanoseconds, read before and after the read, equal),
 * so the next search does not read it again; the key is not remembered while the file's times are within the last
 * two seconds (a write in the same clock tick as the read could keep them), and the redactor forgets every entry when
 * it gains a secret.
 *
 * Before reading them, ripgrep sifts the candidates the memo does not know (`mayChange`): the redactor's prefilter
 * patterns (`SecretRedactor.prefilter`) name everything redaction could change, and a candidate none of them matches
 * is not read (redaction would leave it unchanged); it is remembered like a file read and found unchanged. grep can
 * hand each file with matches to the sifting as rg prints it (`CandidateSifter`, off by default: `pipelineTuning`).
 *
 * Not caught: a file the raw pattern does not match but whose redacted text would (a pattern that matches the
 * placeholder `[redacted:NAME]` itself) is not reported; that reveals nothing about the secret.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { RedactionPrefilter, UnchangedFiles } from '../../runtime/context/redaction';
import { runHostProgram } from '../../services/processes';
import { RG_BASE_ARGS, RG_OWN_GROUP, ripgrepPath } from './rg';

/** Times this close to now (ns) are not trusted to tell a later write apart. Exported so tests can shorten it. */
export const unchangedTuning = { racyNs: 2_000_000_000n };

const contentKey = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

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
    const before = fstatSync(fd, { bigint: true });
    const key = contentKey(before);
    if (memo?.has(abs, key)) return null;
    const text = readFileSync(fd).toString('utf8');
    const red = redact(text);
    if (red !== text) return red;
    if (memo) {
      const after = fstatSync(fd, { bigint: true });
      const now = BigInt(Date.now()) * 1_000_000n;
      const settled = now - after.mtimeNs > unchangedTuning.racyNs && now - after.ctimeNs > unchangedTuning.racyNs;
      if (settled && contentKey(after) === key) memo.add(abs, key);
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
      for (const line of r.stdout.split('\u0000')) if (line !== '') found.add(resolve(cwd, line));
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

/**
 * The prefilter's sifting, which may start while the search that finds the candidates is still running (grep feeds
 * it each file with matches as rg prints it when `pipelineTuning.batchFiles` is finite): each candidate is looked up
 * in the memo under a key read now, and the unknown ones are sifted by ripgrep a batch at a time (doubling), one rg at
 * a time, beside the search. A key is read before the sifting rg reads the file, as without the pipeline.
 * `redactedMirror` takes what it found and sifts the rest; it uses none of it when the redactor gained a secret since
 * the sifting began.
 */
export class CandidateSifter {
  private readonly seen = new Map<string, Unknown | 'known' | 'gone'>();
  private queue: Unknown[] = [];
  private running: Promise<void> = Promise.resolve();
  private launched = 0;
  private batches = 0;
  private failed = false;
  private readonly found = new Set<string>();

  private constructor(
    private readonly cwd: string,
    private readonly memo: UnchangedFiles,
    readonly filter: RedactionPrefilter,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** A sifter for this redactor's memo, or null when it has no prefilter (then candidates are read as they are). */
  static for(cwd: string, memo: UnchangedFiles | undefined, signal?: AbortSignal): CandidateSifter | null {
    const filter = memo?.prefilter() ?? null;
    return memo && filter ? new CandidateSifter(cwd, memo, filter, signal) : null;
  }

  /** A candidate (a path as rg printed it): its key is read now; a full batch of unknown ones starts a sifting rg. */
  add(path: string): void {
    if (this.seen.has(path)) return;
    const abs = resolve(this.cwd, path);
    const st = statSync(abs, { bigint: true, throwIfNoEntry: false });
    if (!st) {
      this.seen.set(path, 'gone');
      return;
    }
    const key = contentKey(st);
    if (this.memo.has(abs, key)) {
      this.seen.set(path, 'known');
      return;
    }
    const now = BigInt(Date.now()) * 1_000_000n;
    const u = { path, abs, key, settled: now - st.mtimeNs > unchangedTuning.racyNs && now - st.ctimeNs > unchangedTuning.racyNs };
    this.seen.set(path, u);
    this.queue.push(u);
    // Batches double (each rg costs a start and a pattern compile): a first one early, few in all.
    if (this.queue.length >= pipelineTuning.batchFiles * 2 ** this.batches) this.launch();
  }

  /** Sifts what is queued, after the batches before it (one rg at a time). */
  private launch(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    this.launched += batch.length;
    this.batches++;
    this.running = this.running.then(async () => {
      if (this.failed) return;
      const r = await mayChange(batch.map((u) => u.path), this.cwd, this.filter, this.signal);
      if (r === null) this.failed = true;
      else for (const abs of r) this.found.add(abs);
    });
  }

  /**
   * What became of each of `candidates` (every one is added first): known to the memo or gone (left out), or unknown,
   * with `sifted` the unknown ones ripgrep lists (null when sifting failed or was not worth it: then all are read).
   */
  async settle(candidates: readonly string[]): Promise<{ unknown: Unknown[]; sifted: Set<string> | null; known: string[] }> {
    for (const p of candidates) this.add(p);
    const unknown: Unknown[] = [];
    const known: string[] = [];
    for (const p of candidates) {
      const s = this.seen.get(p);
      if (s === 'known') known.push(p);
      else if (s !== undefined && s !== 'gone') unknown.push(s);
    }
    // Too few to be worth an rg of their own (and none sifted yet): read them all.
    if (this.launched === 0 && this.queue.length < prefilterTuning.minFiles) return { unknown, sifted: null, known };
    this.launch();
    await this.running;
    return { unknown, sifted: this.failed ? null : this.found, known };
  }
}

/**
 * Candidates queued before a sifting rg starts while the search runs (then twice as many, and so on). Off (Infinity)
 * by default: on the 2-core machine the bench runs on, each extra rg (a start and a pattern compile) and the `stat`s
 * taken while rg's output waited cost more than running beside the search saved (docs/performance.md, issue 54's
 * fourth round); no batch starts early and grep hands nothing over during the search. Exported so tests can run it
 * with batches of one, and a machine with cores to spare can turn it on.
 */
export const pipelineTuning = { batchFiles: Number.POSITIVE_INFINITY };

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
  /** The sifting begun while the candidates were found (grep's first pass), if any. */
  begun?: CandidateSifter | null,
): Promise<Mirror | null> {
  const changed = new Map<string, string>();
  // With a prefilter, ripgrep first sifts the candidates the memo does not know: a file none of its patterns matches
  // is one redaction leaves unchanged, and is not read here (it is remembered, as a file read and found unchanged
  // is). The others are read and redacted whole, as without it. The sifting may have begun during the search; what
  // it found counts only for the redactor's secrets as they were when it began.
  let toRead: readonly string[] = candidates;
  const since = memo?.version;
  const sifter = memo && candidates.length >= prefilterTuning.minFiles ? (begun && begun.filter.version === memo.version ? begun : CandidateSifter.for(cwd, memo)) : null;
  const filter = sifter?.filter ?? null;
  const clean: Unknown[] = [];
  /** Candidates the memo vouched for: read too if this search teaches the redactor a secret. */
  let known: string[] = [];
  if (sifter && memo) {
    const settled = await sifter.settle(candidates);
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
    const red = redactedText(resolve(cwd, p), redact, memo);
    if (red !== null) changed.set(p, red);
  }
  if (!filter && memo && memo.version !== since) {
    // Read one by one (too few to sift): a file read above taught the redactor a secret the memo's files were not
    // checked for; read every candidate not yet changed again.
    for (const p of candidates) {
      if (changed.has(p)) continue;
      const red = redactedText(resolve(cwd, p), redact, memo);
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
        const red = redactedText(resolve(cwd, again[i]!), redact, memo);
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
