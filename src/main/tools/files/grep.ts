/**
 * grep: ripgrep over file contents with three output modes and offset/head_limit pagination.
 *
 * Speed: rg's stdout is streamed; unpaginated content output is passed through untouched (no per-line work), and
 * paginated content output stops rg as soon as the page is filled. Determinism: pages must not shift between calls,
 * so results are ordered by path. Small result sets are collected from a parallel rg run and sorted here; when a
 * content search produces more than PASS_A_MAX_LINES lines, rg is rerun with --sort=path and killed once the page is
 * full. Both orders are the same (path components compared byte-wise), so offsets stay valid either way.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { fsError, plural } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';
import { RG_BASE_ARGS, rgErrorLine, runRg } from './rg';
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

const params = z.object({
  pattern: z.string().describe('Regular expression to search for (ripgrep/Rust syntax; look-around and backreferences switch to PCRE2 automatically). Escape literal ( [ { . * + ? | with a backslash.'),
  path: z.string().optional().describe('File or folder to search (default: the working directory).'),
  glob: z
    .string()
    .optional()
    .describe('Only search files whose name matches this glob, e.g. "*.ts", "*.{ts,tsx}", "src/**/*.py"; prefix with ! to exclude, e.g. "!*.min.js".'),
  type: z.string().optional().describe('Only search files of this ripgrep type, e.g. ts, js, py, rust, go, java, md, json.'),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count_matches'])
    .optional()
    .describe('files_with_matches (default): paths of matching files. content: matching lines as path:line:text. count_matches: matches per file.'),
  '-A': z.number().int().min(0).max(100).optional().describe('content mode: lines of context after each match.'),
  '-B': z.number().int().min(0).max(100).optional().describe('content mode: lines of context before each match.'),
  '-C': z.number().int().min(0).max(100).optional().describe('content mode: lines of context before and after each match.'),
  '-i': z.boolean().optional().describe('Case-insensitive search (default false).'),
  '-n': z.boolean().optional().describe('content mode: show line numbers (default true).'),
  multiline: z.boolean().optional().describe('Let the pattern span lines (. also matches newlines), e.g. "struct \\w+ \\{[\\s\\S]*?field". Default false.'),
  include_ignored: z
    .boolean()
    .optional()
    .describe('Also search files ignored by .gitignore/.ignore/.rgignore (default false). Secret files (.env, keys, credentials) are never searched.'),
  offset: z.number().int().min(0).optional().describe('Skip this many result entries (lines in content mode, files otherwise) before the page starts (default 0).'),
  head_limit: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`Maximum entries to return (default ${GREP_DEFAULT_HEAD_LIMIT}; 0 = no limit).`),
});
type Args = z.infer<typeof params>;

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

/** `path\0 12:text` → `path:12:text`; context lines `path\0 13-text` → `path-13-text` (rg's usual format). */
function fromNull(line: string, numbered: boolean): string {
  const p = line.indexOf('\u0000');
  if (p === -1) return line;
  if (!numbered) return `${line.slice(0, p)}:${line.slice(p + 1)}`;
  let q = p + 1;
  while (q < line.length && line.charCodeAt(q) >= 48 && line.charCodeAt(q) <= 57) q++;
  const sep = q > p + 1 && line[q] === '-' ? '-' : ':';
  return line.slice(0, p) + sep + line.slice(p + 1);
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
    a.push('--with-filename', args['-n'] === false ? '--no-line-number' : '--line-number');
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
  /** count_matches: the sum of all counts. */
  sum?: number;
  /** Total entries when known. */
  total: number | null;
  more: boolean;
  overflow: boolean;
}

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with ripgrep (regular expressions). output_mode: files_with_matches (default, paths only), ' +
    'content (path:line:text, with -A/-B/-C context, -n line numbers on by default), count_matches (matches per ' +
    `file). Filter with glob (e.g. "*.{ts,tsx}") or type (e.g. py). Results are ordered by path and paginated: at most ` +
    `head_limit entries (default ${GREP_DEFAULT_HEAD_LIMIT}, 0 = all) after skipping offset; a notice gives the next ` +
    'offset. Respects .gitignore/.ignore/.rgignore unless include_ignored; secret files (.env, keys, credentials) are ' +
    `never searched. Lines longer than ${GREP_MAX_COLUMNS} characters are cut. To find files by name use find.`,
  params,
  risk: 'read-only',
  disclosure: 'private',
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
  const baseArgs = buildArgs(args, searchArg, mode, pcre2);
  const numbered = args['-n'] !== false;
  let sawOutput = false;
  const run = async (
    extra: string[],
    handlers: { onLines?: (l: string[]) => boolean | void; onChunk?: (c: Buffer) => boolean | void },
  ): Promise<{ stopped: boolean }> => {
    const argv = extra.length ? [...baseArgs.slice(0, RG_BASE_ARGS.length), ...extra, ...baseArgs.slice(RG_BASE_ARGS.length)] : baseArgs;
    const res = await runRg(argv, { cwd, signal: ctx.signal, ...handlers });
    if (res.code === 2 && !res.stopped && rgErrorLine(res.stderr) !== '' && !sawOutput) throw rgFailure(res.stderr, args, pcre2);
    return { stopped: res.stopped };
  };

  let page: Page;
  if (mode === 'content' && offset === 0 && limit === Number.POSITIVE_INFINITY) {
    // Everything, unsorted: pass rg's bytes straight through.
    const chunks: Buffer[] = [];
    let bytes = 0;
    let overflow = false;
    await run([], {
      onChunk: (c) => {
        sawOutput = true;
        chunks.push(c);
        bytes += c.length;
        if (bytes > MAX_OUTPUT_BYTES) {
          overflow = true;
          return false;
        }
        return true;
      },
    });
    let text = Buffer.concat(chunks, bytes).toString('utf8');
    if (overflow) text = text.slice(0, text.lastIndexOf('\n', MAX_OUTPUT_BYTES));
    if (text.endsWith('\n')) text = text.slice(0, -1);
    page = { lines: text === '' ? [] : [text], total: null, more: false, overflow };
  } else if (mode === 'content') {
    page = await pagedContent();
  } else {
    // files / counts: small outputs; collect everything, sort, slice.
    const all: string[] = [];
    let overflow = false;
    await run([], {
      onLines: (lines) => {
        sawOutput = true;
        for (const l of lines) if (l !== '') all.push(l);
        if (all.length > 5_000_000) {
          overflow = true;
          return false;
        }
        return true;
      },
    });
    const sorted = mode === 'count_matches' ? sortByPath(all, (l) => l.slice(0, l.lastIndexOf(':'))) : sortByPath(all, (l) => l);
    const end = Math.min(sorted.length, offset + limit);
    page = { lines: sorted.slice(offset, end), total: sorted.length, more: end < sorted.length, overflow };
    if (mode === 'count_matches') {
      let sum = 0;
      for (const l of sorted) sum += Number(l.slice(l.lastIndexOf(':') + 1)) || 0;
      page.sum = sum;
    }
  }

  async function pagedContent(): Promise<Page> {
    const contextOn = Boolean(args['-A'] || args['-B'] || args['-C']);
    // Pass A: parallel rg, group lines by file, stop if the result set is too large to sort here.
    const blocks = new Map<string, string[]>();
    let current: string[] | null = null;
    let currentPath = '';
    let pendingSep = false;
    let lineCount = 0;
    let byteCount = 0;
    let tooBig = false;
    await run(['--null'], {
      onLines: (lines) => {
        sawOutput = true;
        for (const line of lines) {
          const p = line.indexOf('\u0000');
          if (p === -1) {
            if (line === '--') pendingSep = true;
            continue;
          }
          const path = line.slice(0, p);
          if (path !== currentPath || current === null) {
            currentPath = path;
            current = blocks.get(path) ?? null;
            if (!current) {
              current = [];
              blocks.set(path, current);
            }
          } else if (pendingSep) current.push('--');
          pendingSep = false;
          current.push(line);
          lineCount++;
          byteCount += line.length;
        }
        if (lineCount > grepTuning.passAMaxLines || byteCount > grepTuning.passAMaxBytes) {
          tooBig = true;
          return false;
        }
        return true;
      },
    });
    if (!tooBig) {
      const paths = sortByPath([...blocks.keys()], (p) => p);
      const out: string[] = [];
      let total = 0;
      const end = offset + limit;
      for (let i = 0; i < paths.length; i++) {
        const block = blocks.get(paths[i] as string) as string[];
        const withSep = contextOn && i > 0 ? 1 : 0;
        const blockLen = block.length + withSep;
        if (total + blockLen > offset && total < end) {
          const lines = withSep ? ['--', ...block] : block;
          for (let j = 0; j < lines.length; j++) {
            const idx = total + j;
            if (idx >= offset && idx < end) out.push(fromNull(lines[j] as string, numbered));
          }
        }
        total += blockLen;
      }
      return { lines: out, total, more: total > end, overflow: false };
    }
    // Pass B: rg in path order, streamed, killed once the page (plus one line, to know if more follow) is read.
    const out: string[] = [];
    let seen = 0;
    let outBytes = 0;
    let overflow = false;
    const end = offset + limit;
    const res = await run(['--null', '--sort=path'], {
      onLines: (lines) => {
        for (const line of lines) {
          if (seen >= offset && seen < end) {
            const l = fromNull(line, numbered);
            out.push(l);
            outBytes += l.length + 1;
            if (outBytes > MAX_OUTPUT_BYTES) {
              overflow = true;
              return false;
            }
          }
          seen++;
          if (seen > end) return false;
        }
        return true;
      },
    });
    return { lines: out, total: res.stopped ? null : seen, more: seen > end, overflow };
  }

  const count = page.lines.length;
  if (count === 0 && !page.more) {
    if (offset > 0 && (page.total ?? 0) > 0) return `No results at offset ${offset}; there are only ${page.total} entries.`;
    const ign = args.include_ignored ? '' : ' (ignored files were skipped; include_ignored: true searches them)';
    return `No matches for ${JSON.stringify(args.pattern)} in ${shownTarget}${ign}.`;
  }
  const notes: string[] = [];
  const unit = mode === 'content' ? 'line' : 'file';
  if (page.more) {
    const totalText = page.total !== null ? ` of ${page.total}` : '';
    notes.push(
      `Showing ${unit}s ${offset + 1}-${offset + count}${totalText}. More results: call again with offset=${offset + count}` +
        (mode === 'content' ? ', or narrow the search with path, glob or a more specific pattern.' : '.'),
    );
  } else if (offset > 0) notes.push(`Showing ${unit}s ${offset + 1}-${offset + count}${page.total !== null ? ` of ${page.total}` : ''}.`);
  if (page.overflow) notes.push('The output was cut short because it is too large (over 32 MB or 5 million entries); narrow the search with path, glob or a more specific pattern.');
  if (mode === 'count_matches') {
    const sum = page.sum ?? 0;
    notes.unshift(`${plural(sum, 'match', 'matches')} in ${plural(page.total ?? count, 'file')}.`);
  }
  // Redact before cutting (the runtime redacts the result again; by then a cut credential would not be recognised).
  const body = page.lines
    .join('\n')
    .split('\n')
    .map((line) => cutLine(ctx.redact(line)))
    .join('\n');
  return notes.length ? `${body}\n[${notes.join(' ')}]` : body;
}
