/**
 * find (also offered as `glob`): files or folders whose path matches a glob or a regular expression, newest first, at
 * most 100. The file list comes from `rg --files` (which honours .gitignore/.ignore/.rgignore and sorts by mtime
 * natively); the pattern is matched here, because rg's own --glob would override ignore rules and re-include ignored
 * files. Folders are walked themselves (folder-walk.ts), so empty ones count too. Secret-bearing files never show.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { fsError, plural, throwIfAborted } from './fs-errors';
import { walkFolders } from './folder-walk';
import { makePathMatcher } from './glob';
import { displayPath, expandHome, resolveToolPath } from './paths';
import { RG_BASE_ARGS, rgErrorLine, runRg } from './rg';
import { isSensitivePath } from './sensitive';

export const FIND_MAX_RESULTS = 100;
/** Hard stop for enormous trees (the listing is kept in memory). */
const MAX_LISTED = 2_000_000;

const params = () => z.object({
  pattern: z
    .string()
    .describe(
      'Glob, e.g. "*.md" (a name at any depth) or "src/**/*.{ts,tsx}" (a path under the folder).',
    ),
  regex: z
    .boolean()
    .optional()
    .describe('pattern is a JavaScript regular expression on the relative path.'),
  path: z.string().optional().describe('Folder (default: the working directory).'),
  type: z.enum(['file', 'directory']).optional().describe('file (default) or directory.'),
  include_ignored: z
    .boolean()
    .optional()
    .describe('Include .gitignored files (build output, node_modules).'),
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
function findRoot(pattern: string, path: string | undefined, regex: boolean | undefined): string {
  if (regex) return path ?? '.';
  const expanded = expandHome(pattern.trim());
  return isAbsolute(expanded) ? splitAbsolutePattern(expanded.replace(/\\/g, '/')).base : (path ?? '.');
}

export const findTool = defineTool({
  name: 'find',
  claudeCodeName: 'Glob',
  aliases: ['glob'],
  description:
    `Find files or folders by name or path (not contents: grep). At most ${FIND_MAX_RESULTS} paths, newest first.`,
  details:
    'Globs take braces, *, **, ? and [abc]; a pattern without "/" matches names at any depth. type: directory finds ' +
    'folders, empty ones included. Says when more matched (then narrow the pattern or path). Hidden files are ' +
    'included; .git is not. Secret files are never listed, even when named (read one you know with read_file).',
  params,
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Find files', icon: 'search', result: 'list', summary: (args) => (args.path ? `${args.pattern} in ${args.path}` : args.pattern) },
  effects: (args) => ({ paths: { read: [findRoot(args.pattern, args.path, args.regex)] } }),
  async execute(args, ctx) {
    let pattern = args.pattern.trim();
    if (pattern === '') throw new ToolError('pattern is empty. Pass a glob such as "**/*.ts".');
    let root = resolveToolPath(args.path ?? '.', ctx);
    const expanded = expandHome(pattern);
    if (!args.regex && isAbsolute(expanded)) {
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
    let match: (rel: string) => boolean;
    if (args.regex) {
      let re: RegExp;
      try {
        re = new RegExp(pattern);
      } catch (err) {
        throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}. Escape literal . ( ) [ ] { } * + ? | with a backslash.`, 'invalid_args');
      }
      match = (rel) => re.test(rel);
    } else match = makePathMatcher(pattern);
    // Spec II: secret-bearing files stay filtered whatever the pattern names.
    const keep = (rel: string): boolean => match(rel) && !isSensitivePath(rel);
    if (wantDirs) return { output: await findFolders(root, shownRoot, pattern, keep, args.include_ignored ?? false, ctx) };
    const prefix = args.regex ? '' : literalPrefix(pattern);

    const rgArgs = [...RG_BASE_ARGS, '--files', '--hidden', '--no-require-git', '--glob=!.git/', '--sortr=modified'];
    if (args.include_ignored) rgArgs.push('--no-ignore');
    if (prefix) rgArgs.push('--', prefix);

    const matches: string[] = [];
    let listed = 0;
    let capped = false;
    const res = await runRg(rgArgs, {
      cwd: root,
      signal: ctx.signal,
      onLines: (lines) => {
        for (const raw of lines) {
          if (raw === '') continue;
          const rel = raw.startsWith('./') ? raw.slice(2) : raw.replace(/\\/g, '/');
          if (keep(rel)) matches.push(rel);
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

    return { output: report(matches, 'file', capped, { root, shownRoot, pattern, includeIgnored: args.include_ignored ?? false, cwd: ctx.state.cwd }) };
  },
});

interface Where {
  root: string;
  shownRoot: string;
  pattern: string;
  includeIgnored: boolean;
  cwd: string;
}

/** The answer: at most FIND_MAX_RESULTS paths (already newest first), with notes on what was left out. */
function report(results: string[], kind: 'file' | 'folder', capped: boolean, w: Where): string {
  const total = results.length;
  if (total === 0) {
    const hint = w.includeIgnored ? '' : ` Ignored ${kind}s were skipped; set include_ignored: true to include them.`;
    return `No ${kind}s match ${w.pattern} in ${w.shownRoot === '.' ? 'the working directory' : w.shownRoot}.${hint}`;
  }
  const shown = results.slice(0, FIND_MAX_RESULTS).map((rel) => displayPath(join(w.root, rel), w.cwd) + (kind === 'folder' ? '/' : ''));
  const notes: string[] = [];
  if (total > FIND_MAX_RESULTS) {
    notes.push(`${plural(total, kind)} matched; showing the ${FIND_MAX_RESULTS} most recently modified. Narrow the pattern or path to see others.`);
  }
  if (capped) notes.push(`The folder is very large; only the first ${MAX_LISTED} ${kind}s were considered.`);
  return `${shown.join('\n')}${notes.length ? `\n[${notes.join(' ')}]` : ''}`;
}

async function findFolders(root: string, shownRoot: string, pattern: string, keep: (rel: string) => boolean, includeIgnored: boolean, ctx: ToolContext): Promise<string> {
  const walk = await walkFolders(root, { includeIgnored, max: MAX_LISTED, signal: ctx.signal });
  throwIfAborted(ctx.signal);
  const found = walk.folders.filter((f) => keep(f.rel));
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : 1));
  return report(
    found.map((f) => f.rel),
    'folder',
    walk.capped,
    { root, shownRoot, pattern, includeIgnored, cwd: ctx.state.cwd },
  );
}
