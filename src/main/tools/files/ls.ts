/** ls: list a folder (optionally recursively), folders marked with `/`, files with sizes. */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { errno, formatBytes, fsError, throwIfAborted } from './fs-errors';
import { makePathMatcher } from './glob';
import { displayPath, resolveToolPath } from './paths';

export const LS_DEFAULT_LIMIT = 200;
const LS_MAX_LIMIT = 5000;

const params = () => z.object({
  path: z.string().optional().describe('Folder (default: the working directory).'),
  recursive: z.boolean().optional().describe('List everything below too.'),
  all: z.boolean().optional().describe('Include hidden (dot) entries.'),
  pattern: z.string().optional().describe('Only names matching this glob, e.g. "*.ts".'),
  limit: z
    .number()
    .int()
    .positive()
    .max(LS_MAX_LIMIT)
    .optional()
    .describe(`Most entries (default ${LS_DEFAULT_LIMIT}, max ${LS_MAX_LIMIT}).`),
});

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export const lsTool = defineTool({
  name: 'ls',
  claudeCodeName: 'LS',
  description:
    'List a folder: one entry per line, folders end with "/", files show their size.',
  details:
    `Links show their target. recursive lists depth first with relative paths, not following links to folders. At ` +
    `most ${LS_DEFAULT_LIMIT} entries unless limit; a notice says when some were left out (narrow with pattern or a ` +
    'subfolder). To find files across a tree prefer find.',
  params,
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'List a folder', icon: 'folder', result: 'list', summary: (args) => args.path ?? '.' },
  effects: (args) => ({ paths: { read: [args.path ?? '.'] } }),
  async execute(args, ctx) {
    const root = resolveToolPath(args.path ?? '.', ctx);
    const shown = displayPath(root, ctx.state.cwd);
    let rootStat: Stats;
    try {
      rootStat = await stat(root);
    } catch (err) {
      throw fsError(err, shown, 'folder');
    }
    if (!rootStat.isDirectory()) {
      throw new ToolError(`${shown} is a file, not a folder. Use stat for its details or read_file to read it.`);
    }
    const limit = args.limit ?? LS_DEFAULT_LIMIT;
    const match = args.pattern ? makePathMatcher(args.pattern) : null;
    const out: string[] = [];
    let truncated = false;
    let unreadable = 0;

    // Depth-first, entries sorted by name in each folder; stops as soon as the limit is reached.
    const walk = async (dir: string, rel: string): Promise<void> => {
      throwIfAborted(ctx.signal);
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (dir === root) throw fsError(err, shown, 'folder');
        unreadable++;
        return;
      }
      entries.sort(byName);
      for (const e of entries) {
        if (truncated) return;
        if (!args.all && e.name.startsWith('.')) continue;
        const relPath = rel ? `${rel}/${e.name}` : e.name;
        const full = join(dir, e.name);
        if (!match || match(e.name)) {
          if (out.length >= limit) {
            truncated = true;
            return;
          }
          out.push(await describeEntry(e, full, relPath));
        }
        if (args.recursive && e.isDirectory()) await walk(full, relPath);
      }
    };
    await walk(root, '');

    const lines = out.length ? out : [args.pattern ? `(no entries match ${args.pattern})` : '(empty folder)'];
    const notes: string[] = [];
    if (truncated) notes.push(`Listing stopped at ${limit} entries; more exist. Narrow it with pattern or a subfolder path, or raise limit.`);
    if (unreadable) notes.push(`${unreadable} subfolder(s) could not be read (permission denied).`);
    const header = `${shown === '.' ? ctx.state.cwd : root}:`;
    return { output: `${header}\n${lines.join('\n')}${notes.length ? `\n[${notes.join(' ')}]` : ''}` };
  },
});

async function describeEntry(e: Dirent, full: string, relPath: string): Promise<string> {
  if (e.isDirectory()) return `${relPath}/`;
  if (e.isSymbolicLink()) {
    const target = await readlink(full).catch(() => '?');
    return `${relPath} -> ${target}`;
  }
  if (e.isFile()) {
    try {
      const st = await lstat(full);
      return `${relPath}  ${formatBytes(st.size)}`;
    } catch (err) {
      if (errno(err) === 'ENOENT') return `${relPath}  (vanished)`;
      return relPath;
    }
  }
  const kind = e.isFIFO() ? 'pipe' : e.isSocket() ? 'socket' : e.isCharacterDevice() || e.isBlockDevice() ? 'device' : 'special';
  return `${relPath}  (${kind})`;
}
