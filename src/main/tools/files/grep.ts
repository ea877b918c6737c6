/**
 * grep: ripgrep over file contents with three output modes and offset/head_limit pagination, and the system `grep`
 * when no ripgrep is usable (Spec I).
 *
 * Pagination counts results: files, or in content mode matching lines; context lines and `--` separators come with
 * the matches they surround and never count (Spec II). Determinism: every answer, paginated or not, is ordered by
 * path, so pages do not shift between calls. Small result sets are collected from a parallel rg run and sorted here;
 * when a content search produces more than PASS_A_MAX_LINES lines, rg is rerun with --sort=path and killed once the
 * page is full. Both orders are the same (path components compared byte-wise), so offsets stay valid either way.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { redactedMirror, SearchedKeys, type Mirror } from './grep-redacted';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { fsError, plural } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';
import { RG_BASE_ARGS, rgErrorLine, runRg, type RgResult } from './rg';
import { runSystemGrep } from './system-grep';
import { isSensitivePath, SENSITIVE_RG_EXCLUDES } from './sensitive';

export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** Longer lines are cut (with a marker), so one minified file cannot flood the output. */
export const GREP_MAX_COLUMNS = 500;
/**
 * rg itself cuts only far past that: lines are redacted whole and only then cut to GREP_MAX_COLUMNS, so a credential
 * at the cut is never shown in part (a part would no longer look like one).
 */
const RG_MAX_COLUMNS = 16 * GREP_MAX_COLUMNS;
/** Memory guard for unlimited output (head_limit 0). */
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
/**
 * Content results up to this many lines/bytes are collected from a parallel run and sorted; more switch to a sorted
 * rerun that stops early. Exported so tests can force the second path.
 */
export const grepTuning = { passAMaxLines: 20_000, passAMaxBytes: 8 * 1024 * 1024 };

const params = () => z.object({
  pattern: z.string().describe('Regular expression (ripgrep syntax).'),
  path: z.string().optional().describe('File or folder (default: the working directory).'),
  glob: z
    .string()
    .optional()
    .describe('Only files matching this glob, e.g. "*.{ts,tsx}" ("!…" excludes).'),
  type: z.string().optional().describe('Only files of this ripgrep type, e.g. py.'),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count_matches'])
    .optional()
    .describe('files_with_matches (default: paths), content (path:line:text) or count_matches.'),
  '-A': z.number().int().min(0).max(100).optional().describe('Lines after each match.'),
  '-B': z.number().int().min(0).max(100).optional().describe('Lines before each match.'),
  '-C': z.number().int().min(0).max(100).optional().describe('Lines around each match.'),
  '-i': z.boolean().optional().describe('Ignore case.'),
  '-n': z.boolean().optional().describe('Line numbers (default true).'),
  multiline: z.boolean().optional().describe('Let the pattern span lines.'),
  include_ignored: z
    .boolean()
    .optional()
    .describe('Include .gitignored files.'),
  offset: z.number().int().min(0).optional().describe('Skip this many results (the next page).'),
  head_limit: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`Most results (default ${GREP_DEFAULT_HEAD_LIMIT}; 0 = all).`),
});
type Args = z.infer<ReturnType<typeof params>>;

/**
 * Sorts in the order `rg --sort=path` walks: component by component, byte-wise (a "/" sorts before any character).
 * Keys are computed once per item, not per comparison.
 */
function sortByPath<T>(items: T[], pathOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ key: pathOf(item).replaceAll('/', '\u0000'), item }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.item);
}

function cutLine(line: string): string {
  if (line.length <= GREP_MAX_COLUMNS) return line;
  let end = GREP_MAX_COLUMNS;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${line.slice(0, end)} [… omitted end of long line]`;
}

/** The length of the longest line of `text` (lines split at `\n`, as `cutLine` is applied). */
function longestLine(text: string): number {
  if (text.length <= GREP_MAX_COLUMNS) return text.length;
  let most = 0;
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    if (end - at > most) most = end - at;
    if (nl === -1) return most;
    at = nl + 1;
  }
}

/** One line of `--null --line-number` output: a match (`path\0 12:text`) or a context line (`path\0 13-text`). */
interface Entry {
  path: string;
  no: number;
  match: boolean;
  /** What follows the path and its separator when shown: `12:text` with line numbers, `text` without. */
  text: string;
}

function parseEntry(line: string, numbered: boolean): Entry | null {
  const p = line.indexOf('\u0000');
  if (p === -1) return null; // `--` separators: recomputed for the page
  let q = p + 1;
  while (q < line.length && line.charCodeAt(q) >= 48 && line.charCodeAt(q) <= 57) q++;
  if (q === p + 1) return null;
  return { path: line.slice(0, p), no: Number(line.slice(p + 1, q)), match: line[q] === ':', text: line.slice(numbered ? p + 1 : q + 1) };
}

/** `path\0 12:text` → `path:12:text`, context `path-13-text`; without line numbers `path:text` / `path-text`. */
function formatEntry(e: Entry): string {
  return `${e.path}${e.match ? ':' : '-'}${e.text}`;
}

/**
 * rg's `--null --line-number` output parsed as bytes, chunk by chunk: lines found with `indexOf` on the buffer, the
 * line number read from its digits, the path decoded once per run of lines from the same file (rg prints a file's
 * lines together), and only each line's text decoded. The same entries as `parseEntry` over the decoded lines, with
 * no decoded chunk, split array or per-line slices in between (issue 54, fifth round: the warm search's garbage).
 */
class EntryParser {
  private rest: Buffer | null = null;
  /** The current path's bytes: where they are in the chunk they came in (chunks are not reused, so no copy). */
  private pathData: Buffer = Buffer.alloc(0);
  private pathStart = 0;
  private pathLen = -1;
  private path = '';

  constructor(
    private readonly numbered: boolean,
    private readonly unmap: (path: string) => string,
    private readonly onEntry: (e: Entry) => boolean,
  ) {}

  /** Parses the complete lines of `chunk` (with what was left of the one before); false once `onEntry` said stop. */
  push(chunk: Buffer): boolean {
    const data = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    let at = 0;
    for (;;) {
      const nl = data.indexOf(10, at);
      if (nl === -1) break;
      if (!this.line(data, at, nl)) return false;
      at = nl + 1;
    }
    if (at < data.length) this.rest = Buffer.from(data.subarray(at));
    return true;
  }

  /** The last line when rg's output did not end with a line break. */
  end(): boolean {
    const rest = this.rest;
    this.rest = null;
    return rest ? this.line(rest, 0, rest.length) : true;
  }

  private line(data: Buffer, start: number, end: number): boolean {
    const p = data.indexOf(0, start);
    if (p === -1 || p >= end) return true; // `--` separators: recomputed for the page
    let q = p + 1;
    let no = 0;
    while (q < end && data[q]! >= 48 && data[q]! <= 57) no = no * 10 + (data[q++]! - 48);
    if (q === p + 1) return true;
    const len = p - start;
    if (len !== this.pathLen || data.compare(this.pathData, this.pathStart, this.pathStart + len, start, p) !== 0) {
      this.pathData = data;
      this.pathStart = start;
      this.pathLen = len;
      this.path = this.unmap(data.toString('utf8', start, p));
    }
    const text = data.toString('utf8', this.numbered ? p + 1 : q + 1, end);
    return this.onEntry({ path: this.path, no, match: data[q] === 58, text });
  }
}

/**
 * Builds one page of content output from entries in path order: the matches numbered offset..offset+limit-1, each
 * with the context lines rg printed around it (at most `before`/`after` lines), and `--` between groups that are not
 * adjacent, as rg shows them. Returns false from `feed` once the match after the page is seen.
 */
class ContentPager {
  readonly lines: string[] = [];
  matches = 0;
  selected = 0;
  more = false;
  overflow = false;
  private bytes = 0;
  private path = '';
  private pending: Entry[] = [];
  private lastSelected: number | null = null;
  private last: Entry | null = null;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
    private readonly before: number,
    private readonly after: number,
  ) {}

  feed(e: Entry): boolean {
    if (e.path !== this.path) {
      this.path = e.path;
      this.pending = [];
      this.lastSelected = null;
    }
    if (e.match) {
      const idx = this.matches++;
      if (idx >= this.offset + this.limit) {
        this.more = true;
        return false;
      }
      if (idx < this.offset) {
        this.pending = [];
        this.lastSelected = null;
        return true;
      }
      for (const c of this.pending) if (c.no >= e.no - this.before) this.emit(c);
      this.pending = [];
      this.selected++;
      this.lastSelected = e.no;
      return this.emit(e);
    }
    if (this.lastSelected !== null && e.no <= this.lastSelected + this.after) return this.emit(e);
    this.pending.push(e);
    if (this.pending.length > this.before) this.pending.shift();
    return true;
  }

  private emit(e: Entry): boolean {
    const contextOn = this.before > 0 || this.after > 0;
    if (contextOn && this.last && (this.last.path !== e.path || this.last.no + 1 !== e.no)) this.lines.push('--');
    const line = formatEntry(e);
    this.lines.push(line);
    this.last = e;
    this.bytes += line.length + 1;
    if (this.bytes > MAX_OUTPUT_BYTES) {
      this.overflow = true;
      return false;
    }
    return true;
  }
}

function buildArgs(args: Args, searchArg: string | null, mode: NonNullable<Args['output_mode']>, pcre2: boolean): string[] {
  const a = [...RG_BASE_ARGS, '--hidden', '--no-require-git', '--glob=!.git/', `--max-columns=${RG_MAX_COLUMNS}`, '--max-columns-preview'];
  if (args.include_ignored) a.push('--no-ignore');
  if (args['-i']) a.push('--ignore-case');
  else a.push('--case-sensitive');
  if (args.multiline) a.push('--multiline', '--multiline-dotall');
  if (pcre2) a.push('--pcre2');
  if (args.type) a.push(`--type=${args.type}`);
  if (args.glob) {
    const g = args.glob.trim();
    // A plain name glob becomes a file type, which (unlike --glob) keeps ignore rules in force.
    if (!g.startsWith('!') && !g.includes('/') && !args.type) a.push(`--type-add=deskhandglob:${g}`, '--type=deskhandglob');
    else a.push(`--glob=${g}`);
  }
  for (const ex of SENSITIVE_RG_EXCLUDES) a.push(`--iglob=${ex}`);
  if (mode === 'files_with_matches') a.push('--files-with-matches');
  else if (mode === 'count_matches') a.push('--count-matches', '--with-filename');
  else {
    // Line numbers always: they tell matches from context lines and place the context; -n false drops them later.
    a.push('--with-filename', '--line-number');
    if (args['-C'] !== undefined) a.push(`--context=${args['-C']}`);
    if (args['-A'] !== undefined) a.push(`--after-context=${args['-A']}`);
    if (args['-B'] !== undefined) a.push(`--before-context=${args['-B']}`);
  }
  a.push('--regexp', args.pattern);
  if (searchArg !== null) a.push('--', searchArg);
  return a;
}

function rgFailure(stderr: string, args: Args, pcre2: boolean): ToolError {
  const line = rgErrorLine(stderr);
  if (!pcre2 && /look-around|backreferences/i.test(stderr)) {
    return new ToolError('look-around needs PCRE2', 'invalid_args', { retryWithPcre2: true });
  }
  if (pcre2 && /PCRE2 is not available|not compiled with PCRE2/i.test(stderr)) {
    return new ToolError('The pattern uses look-around or backreferences, which this ripgrep build cannot run. Rewrite it without them.');
  }
  if (/regex parse error|error parsing regex|unclosed|repetition operator/i.test(stderr)) {
    const detail = stderr.trim().split('\n').slice(0, 6).join('\n');
    return new ToolError(
      `Invalid regular expression ${JSON.stringify(args.pattern)}. Escape literal ( ) [ ] { } . * + ? | with a backslash, or simplify it.\n${detail}`,
    );
  }
  if (/unrecognized file type/i.test(stderr)) {
    return new ToolError(`Unknown file type ${JSON.stringify(args.type ?? '')}. Use a ripgrep type name such as ts, js, py, rust, go, java, md, json, or filter with glob instead.`);
  }
  if (/literal "\\n" is not allowed/.test(stderr)) {
    return new ToolError('The pattern matches a line break (\\n); set multiline: true to search across lines.');
  }
  return new ToolError(`grep failed: ${line || 'ripgrep exited with an error'}`, 'internal');
}

interface Page {
  lines: string[];
  /** Results on this page (files, or matching lines in content mode). */
  count: number;
  /** count_matches: the sum of all counts. */
  sum?: number;
  /** Total entries when known. */
  total: number | null;
  more: boolean;
  overflow: boolean;
}

export const grepTool = defineTool({
  name: 'grep',
  claudeCodeName: 'Grep',
  description:
    'Search file contents for a regular expression (ripgrep), ordered by path; -A/-B/-C/-n apply to content mode.',
  details:
    'Escape literal ( [ { . * + ? | with a backslash; look-around and backreferences switch to PCRE2. Pages hold ' +
    'head_limit results after offset (content mode: matching lines; context lines come with them uncounted); a ' +
    `notice gives the next offset. Lines longer than ${GREP_MAX_COLUMNS} characters are cut. Where ripgrep cannot ` +
    'run, the system grep answers and ignore files are not applied (the answer says so). To find files by name use find.',
  params,
  risk: 'read-only',
  disclosure: 'private',
  facts: { reaches: [] },
  presentation: { title: 'Search file contents', icon: 'search', summary: (args) => (args.path ? `${args.pattern} in ${args.path}` : args.pattern) },
  effects: (args) => ({ paths: { read: [args.path ?? '.'] } }),
  async execute(args, ctx) {
    try {
      return { output: await search(args, ctx, false) };
    } catch (err) {
      // Look-around and backreferences need ripgrep's PCRE2 engine: retry with it once.
      if (err instanceof ToolError && err.details?.retryWithPcre2) return { output: await search(args, ctx, true) };
      throw err;
    }
  },
});

async function search(args: Args, ctx: ToolContext, pcre2: boolean): Promise<string> {
  if (args.pattern === '') throw new ToolError('pattern is empty. Pass a regular expression to search for.');
  const mode = args.output_mode ?? 'files_with_matches';
  const cwd = ctx.state.cwd;
  const target = resolveToolPath(args.path ?? '.', ctx);
  const shownTarget = displayPath(target, cwd);
  try {
    const st = await stat(target);
    if (st.isFile() && isSensitivePath(target)) {
      throw new ToolError(`${shownTarget} is a secret-bearing file (keys, credentials, .env); grep does not search it.`);
    }
  } catch (err) {
    throw fsError(err, shownTarget);
  }
  // Relative paths in the output: search "." implicitly when the target is the cwd.
  const searchArg = target === cwd ? null : shownTarget;
  const offset = args.offset ?? 0;
  const limit = args.head_limit === 0 ? Number.POSITIVE_INFINITY : (args.head_limit ?? GREP_DEFAULT_HEAD_LIMIT);
  const numbered = args['-n'] !== false;
  let sawOutput = false;
  let fallback: string | null = null;
  // Where the search runs: the real files, or (when a candidate holds something the model may not see) the redacted
  // copies of the candidates, whose paths are mapped back to the real ones.
  let where: { cwd: string; searchArg: string | null; unmap: (line: string) => string } = { cwd, searchArg, unmap: (l) => l };
  /**
   * Runs the search with `extra` flags. Its output comes as lines (`onLines`), or, given `onEntry`, as parsed
   * `--null --line-number` entries: from rg's bytes (`EntryParser`), from the system grep's lines otherwise.
   */
  const run = async (
    extra: string[],
    onLines: (l: string[]) => boolean | void,
    as: NonNullable<Args['output_mode']> = mode,
    onEntry?: (e: Entry) => boolean,
  ): Promise<{ stopped: boolean }> => {
    const baseArgs = buildArgs(args, where.searchArg, as, pcre2);
    const argv = extra.length ? [...baseArgs.slice(0, RG_BASE_ARGS.length), ...extra, ...baseArgs.slice(RG_BASE_ARGS.length)] : baseArgs;
    const mapped = where.unmap;
    const feed = onEntry
      ? (lines: string[]) => {
          for (const line of lines) {
            const e = parseEntry(mapped(line), numbered);
            if (e && !onEntry(e)) return false;
          }
          return true;
        }
      : (lines: string[]) => onLines(lines.map(mapped));
    let res: RgResult;
    const opts = { cwd: where.cwd, signal: ctx.signal, onLines: feed };
    try {
      if (fallback !== null) res = await runSystemGrep(args, where.searchArg, as, opts);
      else if (onEntry) {
        const parser = new EntryParser(numbered, mapped, onEntry);
        res = await runRg(argv, { cwd: where.cwd, signal: ctx.signal, onChunk: (chunk) => parser.push(chunk) });
        if (!res.stopped && !parser.end()) res = { ...res, stopped: true };
      } else res = await runRg(argv, opts);
    } catch (err) {
      if (!(err instanceof ToolError && err.details?.rgUnusable) || fallback !== null) throw err;
      // No usable ripgrep (missing, not executable): the system grep answers instead (Spec I).
      fallback = String(err.details.reason ?? 'ripgrep is not available');
      res = await runSystemGrep(args, where.searchArg, as, opts);
    }
    if (res.code === 2 && !res.stopped && rgErrorLine(res.stderr) !== '' && !sawOutput) throw fallback === null ? rgFailure(res.stderr, args, pcre2) : new ToolError(`grep failed: ${rgErrorLine(res.stderr)}`);
    return { stopped: res.stopped };
  };

  // Matching sees only what the model may see (grep-redacted.ts). The answer is first computed over the real files;
  // the files with matches it saw (every one of them when it read rg's output to the end, otherwise those of a
  // separate files-with-matches pass) are the candidates, and when redaction changes any of them the answer is
  // computed again over their redacted copies, so every mode's answer (lines, file lists, counts) is the answer for
  // the redacted text. A file the redactor already knows to be unchanged is not read again.
  let mirror: Mirror | null = null;
  try {
    // The candidates' keys are read while this first search runs (grep-redacted.ts, `SearchedKeys`), each once rg is
    // done with the file; they are used only when this run's answer is the one kept (every candidate seen), since
    // a rerun (the sorted pass, the files pass) reads the files again after them.
    const searched = ctx.unchangedByRedaction ? new SearchedKeys(cwd) : undefined;
    let answer = await computePage(searched);
    const candidates = answer.seen ? [...answer.seen] : await listCandidates();
    if (candidates.length) {
      const keys = answer.seen && fallback === null ? searched : undefined;
      mirror = await redactedMirror(candidates, cwd, (text) => ctx.redact(text), searchArg === null ? [] : [searchArg], ctx.unchangedByRedaction, ctx.signal, keys);
      if (mirror) {
        const m = mirror;
        const mappedArg = searchArg === null ? null : isAbsolute(searchArg) ? join(m.root, 'abs', searchArg) : searchArg;
        where = { cwd: m.cwd, searchArg: mappedArg, unmap: m.unmap };
        sawOutput = false;
        answer = await computePage();
      }
    }
    return format(answer.page);
  } finally {
    await mirror?.remove();
  }

  async function listCandidates(): Promise<string[]> {
    const found: string[] = [];
    await run([], (lines) => {
      for (const l of lines) if (l !== '') found.push(l);
      return found.length <= 1_000_000;
    }, 'files_with_matches');
    return found;
  }

  /**
   * The page, and the files with matches seen on the way: all of them, or null when rg was stopped before its end.
   * With `searched`, each file's key is read as soon as rg is done with it (a file's block of lines ended, or its
   * path or count printed).
   */
  async function computePage(searched?: SearchedKeys): Promise<{ page: Page; seen: Set<string> | null }> {
  let page: Page;
  let seen: Set<string> | null;
  if (mode === 'content') {
    ({ page, seen } = await pagedContent(searched));
  } else {
    // files / counts: small outputs; collect everything, sort, slice.
    const all: string[] = [];
    let overflow = false;
    const pathOf = mode === 'count_matches' ? (l: string) => l.slice(0, l.lastIndexOf(':')) : (l: string) => l;
    await run([], (lines) => {
      sawOutput = true;
      for (const l of lines) {
        if (l === '') continue;
        all.push(l);
        // rg prints a path (or its count) once it is done with the file.
        searched?.read(pathOf(l));
      }
      if (all.length > 5_000_000) {
        overflow = true;
        return false;
      }
      return true;
    });
    const sorted = sortByPath(all, pathOf);
    seen = overflow ? null : new Set(all.map(pathOf));
    const end = Math.min(sorted.length, offset + limit);
    page = { lines: sorted.slice(offset, end), count: end - Math.min(offset, end), total: sorted.length, more: end < sorted.length, overflow };
    if (mode === 'count_matches') {
      let sum = 0;
      for (const l of sorted) sum += Number(l.slice(l.lastIndexOf(':') + 1)) || 0;
      page.sum = sum;
    }
  }
  return { page, seen };
  }

  async function pagedContent(searched?: SearchedKeys): Promise<{ page: Page; seen: Set<string> | null }> {
    const after = args['-A'] ?? args['-C'] ?? 0;
    const before = args['-B'] ?? args['-C'] ?? 0;
    const pager = new ContentPager(offset, limit, before, after);
    // Pass A: parallel rg, entries grouped by file, stop if the result set is too large to sort here.
    const blocks = new Map<string, Entry[]>();
    let current: Entry[] | null = null;
    let currentPath = '';
    let lineCount = 0;
    let charCount = 0;
    let tooBig = false;
    await run(['--null'], () => undefined, mode, (e) => {
      sawOutput = true;
      if (e.path !== currentPath || current === null) {
        // rg's parallel search prints a file's lines together once it has searched the file: the block before is done.
        if (current !== null) searched?.read(currentPath);
        currentPath = e.path;
        current = blocks.get(e.path) ?? null;
        if (!current) {
          current = [];
          blocks.set(e.path, current);
        }
      }
      current.push(e);
      lineCount++;
      charCount += e.path.length + e.text.length + 2;
      // The system grep fallback has no sorted mode: it is always sorted here.
      if (fallback === null && (lineCount > grepTuning.passAMaxLines || charCount > grepTuning.passAMaxBytes)) {
        tooBig = true;
        return false;
      }
      return true;
    });
    if (!tooBig) {
      if (current !== null) searched?.read(currentPath);
      let total = 0;
      for (const block of blocks.values()) for (const e of block) if (e.match) total++;
      outer: for (const path of sortByPath([...blocks.keys()], (p) => p)) {
        for (const e of blocks.get(path) as Entry[]) if (!pager.feed(e)) break outer;
      }
      return { page: { lines: pager.lines, count: pager.selected, total: pager.overflow ? null : total, more: pager.more, overflow: pager.overflow }, seen: new Set(blocks.keys()) };
    }
    // Pass B: rg in path order, streamed, killed once the match after the page is seen.
    const res = await run(['--null', '--sort=path'], () => undefined, mode, (e) => pager.feed(e));
    return { page: { lines: pager.lines, count: pager.selected, total: res.stopped ? null : pager.matches, more: pager.more, overflow: pager.overflow }, seen: null };
  }

  function format(page: Page): string {
  const count = page.count;
  if (count === 0 && !page.more) {
    if (offset > 0 && (page.total ?? 0) > 0) return `No results at offset ${offset}; there are only ${page.total} entries.`;
    const ign = args.include_ignored ? '' : ' (ignored files were skipped; include_ignored: true searches them)';
    return `No matches for ${JSON.stringify(args.pattern)} in ${shownTarget}${ign}.`;
  }
  const notes: string[] = [];
  const unit = mode === 'content' ? 'matching line' : 'file';
  if (page.more) {
    const totalText = page.total !== null ? ` of ${page.total}` : '';
    notes.push(
      `Showing ${unit}s ${offset + 1}-${offset + count}${totalText}. More results: call again with offset=${offset + count}` +
        (mode === 'content' ? ', or narrow the search with path, glob or a more specific pattern.' : '.'),
    );
  } else if (offset > 0) notes.push(`Showing ${unit}s ${offset + 1}-${offset + count}${page.total !== null ? ` of ${page.total}` : ''}.`);
  if (fallback !== null) {
    notes.push(`ripgrep is not usable here (${fallback}), so the system grep searched instead: .gitignore, .ignore and .rgignore were not applied.`);
  }
  if (page.overflow) notes.push('The output was cut short because it is too large (over 32 MB or 5 million entries); narrow the search with path, glob or a more specific pattern.');
  if (mode === 'count_matches') {
    const sum = page.sum ?? 0;
    notes.unshift(`${plural(sum, 'match', 'matches')} in ${plural(page.total ?? count, 'file')}.`);
  }
  // Redact before cutting (the runtime redacts the result again; by then a cut credential would not be recognised).
  // The page is redacted as one text: the patterns are line-aware (a key spread over lines is caught too), and one
  // pass over the text costs a fraction of a pass per line.
  const redacted = ctx.redact(page.lines.join('\n'));
  // Split and joined again only when a line is to be cut (most pages have none: 16,000 lines cost 10 ms to split).
  const body = longestLine(redacted) > GREP_MAX_COLUMNS ? redacted.split('\n').map(cutLine).join('\n') : redacted;
  return notes.length ? `${body}\n[${notes.join(' ')}]` : body;
  }
}
