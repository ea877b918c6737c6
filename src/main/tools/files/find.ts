/**
 * find (also offered as `glob`): files or folders whose path matches a glob, newest first, at most 100. The file list
 * comes from `rg --files` (which honours .gitignore/.ignore/.rgignore and sorts by mtime natively); the glob is
 * matched here, because rg's own --glob would override ignore rules and re-include ignored files.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { fsError, plural, throwIfAborted } from './fs-errors';
import { makePathMatcher } from './glob';
import { displayPath, expandHome, resolveToolPath } from './paths';
import { RG_BASE_ARGS, rgErrorLine, runRg } from './rg';
import { sensitiveFilterFor } from './sensitive';

export const FIND_MAX_RESULTS = 100;
/** Hard stop for enormous trees (the listing is kept in memory). */
const MAX_LISTED = 2_000_000;

const params = z.object({
  pattern: z
    .string()
    .describe(
      'Glob to match, e.g. "**/*.{ts,tsx}", "src/**/test_*.py", "*.md". A pattern without "/" matches names at any depth; with "/" it matches the path relative to the search folder. Braces, *, **, ? and [abc] work.',
    ),
  path: z.string().optional().describe('Folder to search in (default: the working directory).'),
  type: z.enum(['file', 'directory']).optional().describe('What to find: file (default) or directory.'),
  include_ignored: z
    .boolean()
    .optional()
    .describe('Also search files ignored by .gitignore/.ignore/.rgignore, such as build output and node_modules (default false). Secret files stay hidden.'),
});

/** Leading literal segments of a glob (`src/app/**\/*.ts` → `src/app`), to narrow the listing. */
function literalPrefix(pattern: string): string {
  const segs = pattern.replace(/\\/g, '/').replace(/^\.\//, '').split('/');
  const out: string[] = [];
  for (const seg of segs.slice(0, -1)) {
    if (seg === '' || seg === '.' || seg === '..' || /[*?[\]{}]/.test(seg)) break;
    out.push(seg);
  }
  return out.join('/');
}

function splitAbsolutePattern(p: string): { base: string; glob: string } {
  const segs = p.split('/');
  const i = segs.findIndex((seg) => /[*?[\]{}]/.test(seg));
  if (i === -1) return { base: segs.slice(0, -1).join('/') || '/', glob: segs.at(-1) ?? '*' };
  return { base: segs.slice(0, i).join('/') || '/', glob: segs.slice(i).join('/') };
}

/** The folder a search reads: the literal folder part of an absolute pattern, else `path` (default the cwd). */
function findRoot(pattern: string, path: string | undefined): string {
  const expanded = expandHome(pattern.trim());
  return isAbsolute(expanded) ? splitAbsolutePattern(expanded.replace(/\\/g, '/')).base : (path ?? '.');
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export const findTool = defineTool({
  name: 'find',
  aliases: ['glob'],
  description:
    `Find files (or folders with type: "directory") whose path matches a glob such as "**/*.{ts,tsx}". Searches names ` +
    `and paths, not contents (use grep for that). Returns at most ${FIND_MAX_RESULTS} paths, most recently modified ` +
    'first, and says when more matched (then narrow the pattern or path). Respects .gitignore, .ignore and .rgignore ' +
    'unless include_ignored is true. Secret-bearing files (.env, keys, credentials) are left out unless the pattern ' +
    'names them (e.g. "**/.env*"). Hidden files are included; .git is not.',
  params,
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Find files', icon: 'search', result: 'list', summary: (args) => (args.path ? `${args.pattern} in ${args.path}` : args.pattern) },
  effects: (args) => ({ paths: { read: [findRoot(args.pattern, args.path)] } }),
  async execute(args, ctx) {
    let pattern = args.pattern.trim();
    if (pattern === '') throw new ToolError('pattern is empty. Pass a glob such as "**/*.ts".');
    let root = resolveToolPath(args.path ?? '.', ctx);
    const expanded = expandHome(pattern);
    if (isAbsolute(expanded)) {
      // An absolute pattern: its literal folder part becomes the search folder, the rest the glob.
      const split = splitAbsolutePattern(expanded.replace(/\\/g, '/'));
      root = resolveToolPath(split.base, ctx);
      pattern = split.glob;
    }
    const shownRoot = displayPath(root, ctx.state.cwd);
    try {
      const st = await stat(root);
      if (!st.isDirectory()) throw new ToolError(`${shownRoot} is a file, not a folder. Pass the folder to search in as path.`);
    } catch (err) {
      throw fsError(err, shownRoot, 'folder');
    }
    const wantDirs = args.type === 'directory';
    const match = makePathMatcher(pattern);
    const keepSensitive = sensitiveFilterFor(pattern);
    const prefix = wantDirs ? '' : literalPrefix(pattern);

    const rgArgs = [...RG_BASE_ARGS, '--files', '--hidden', '--no-require-git', '--glob=!.git/', '--sortr=modified'];
    if (args.include_ignored) rgArgs.push('--no-ignore');
    if (prefix) rgArgs.push('--', prefix);

    const matches: string[] = [];
    const dirs = new Set<string>();
    let listed = 0;
    let capped = false;
    const res = await runRg(rgArgs, {
      cwd: root,
      signal: ctx.signal,
      onLines: (lines) => {
        for (const raw of lines) {
          if (raw === '') continue;
          const rel = raw.startsWith('./') ? raw.slice(2) : raw.replace(/\\/g, '/');
          if (wantDirs) {
            // Folders are known through the files they hold: add every ancestor of this file.
            let i = rel.lastIndexOf('/');
            while (i > 0) {
              const d = rel.slice(0, i);
              if (dirs.has(d)) break;
              dirs.add(d);
              i = rel.lastIndexOf('/', i - 1);
            }
          } else if (match(rel) && (!keepSensitive || keepSensitive(rel))) {
            matches.push(rel);
          }
          if (++listed >= MAX_LISTED) {
            capped = true;
            return false;
          }
        }
        return true;
      },
    });
    if (res.code === 2 && listed === 0 && !res.stopped) {
      const msg = rgErrorLine(res.stderr);
      if (msg) throw new ToolError(`find failed: ${msg}`, 'internal');
    }

    let results = matches;
    if (wantDirs) {
      const found = [...dirs].filter((d) => match(d));
      throwIfAborted(ctx.signal);
      const withTimes = await mapLimit(found, 32, async (d) => ({ d, t: await stat(join(root, d)).then((s) => s.mtimeMs, () => 0) }));
      withTimes.sort((a, b) => b.t - a.t || (a.d < b.d ? -1 : 1));
      results = withTimes.map((x) => x.d);
    }
    const total = results.length;
    const kind = wantDirs ? 'folder' : 'file';
    if (total === 0) {
      const hint = args.include_ignored ? '' : ' Ignored files were skipped; set include_ignored: true to include them.';
      return { output: `No ${kind}s match ${pattern} in ${shownRoot === '.' ? 'the working directory' : shownRoot}.${hint}` };
    }
    const shown = results.slice(0, FIND_MAX_RESULTS).map((rel) => displayPath(join(root, rel), ctx.state.cwd) + (wantDirs ? '/' : ''));
    const notes: string[] = [];
    if (total > FIND_MAX_RESULTS) {
      notes.push(`${plural(total, kind)} matched; showing the ${FIND_MAX_RESULTS} most recently modified. Narrow the pattern or path to see others.`);
    }
    if (capped) notes.push(`The folder is very large; only the first ${MAX_LISTED} files were considered.`);
    if (wantDirs) notes.push('Folders are found through the files they contain; empty folders are not listed (use ls).');
    return { output: `${shown.join('\n')}${notes.length ? `\n[${notes.join(' ')}]` : ''}` };
  },
});
