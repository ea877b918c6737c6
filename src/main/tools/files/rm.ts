/** rm (approval pair `execute_rm`): remove a file, link or (with recursive) a folder. Refuses /, home, workspace roots. */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { formatBytes, fsError, plural, throwIfAborted } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';
import { protectedReason } from './protected-paths';

const params = () => z.object({
  path: z.string().describe('File, link or folder to remove: absolute, relative to the working directory, or starting with ~.'),
  recursive: z.boolean().optional().describe('Required to remove a folder: removes it and everything inside (default false).'),
});
type Args = z.infer<ReturnType<typeof params>>;

interface RmPlan {
  abs: string;
  shown: string;
  st: Stats;
}

async function plan(args: Args, ctx: ToolContext, dataDir: string): Promise<RmPlan> {
  const abs = resolveToolPath(args.path, ctx);
  const shown = displayPath(abs, ctx.state.cwd);
  let st: Stats;
  try {
    st = await lstat(abs);
  } catch (err) {
    throw fsError(err, shown);
  }
  // Removing a link only removes the link, wherever it points; everything else is checked against protected folders.
  if (!st.isSymbolicLink()) {
    const reason = await protectedReason(abs, { cwd: ctx.state.cwd, workspaceRoots: ctx.state.workspaceRoots, dataDir });
    if (reason) throw new ToolError(`Refusing to remove ${shown}: ${reason}. Remove specific files or folders inside it instead.`);
  }
  if (st.isDirectory() && !args.recursive) {
    throw new ToolError(`${shown} is a folder. Set recursive: true to remove it and everything inside it (check its contents with ls first).`);
  }
  return { abs, shown, st };
}

/** Counts what a recursive removal would delete (bounded), plus the first few paths for the preview. */
async function survey(root: string, signal: AbortSignal): Promise<{ files: number; dirs: number; bytes: number; sample: string[]; partial: boolean }> {
  const res = { files: 0, dirs: 0, bytes: 0, sample: [] as string[], partial: false };
  const LIMIT = 20_000;
  const stack: { dir: string; rel: string }[] = [{ dir: root, rel: '' }];
  while (stack.length) {
    throwIfAborted(signal);
    const { dir, rel } = stack.pop() as { dir: string; rel: string };
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (res.files + res.dirs >= LIMIT) {
        res.partial = true;
        return res;
      }
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (res.sample.length < 20) res.sample.push(e.isDirectory() ? `${relPath}/` : relPath);
      if (e.isDirectory()) {
        res.dirs++;
        stack.push({ dir: join(dir, e.name), rel: relPath });
      } else {
        res.files++;
        if (e.isFile()) res.bytes += await lstat(join(dir, e.name)).then((s) => s.size, () => 0);
      }
    }
  }
  return res;
}

export const createRmTool = (dataDir: string) =>
  defineTool({
    name: 'rm',
    facts: { writes: true, loadsWith: 'fileops' },
    description:
      'Remove a file, a symbolic link (only the link; its target stays) or a folder. Folders need recursive: true and ' +
      'are removed with everything inside. This may be irreversible. Refuses the file-system root, the home folder, ' +
      'workspace roots, the working directory, and folders containing any of them. The person approves first.',
    params,
    risk: 'high-risk',
    disclosure: 'public',
    presentation: { title: 'Remove', icon: 'edit', summary: (args) => args.path },
    effects: (args) => ({ paths: { write: [args.path] } }),
    pair: {
      executeName: 'execute_rm',
      async propose(args, ctx) {
        const p = await plan(args, ctx, dataDir);
        if (p.st.isDirectory()) {
          const s = await survey(p.abs, ctx.signal);
          const more = s.partial ? 'at least ' : '';
          return {
            description: `Remove folder ${p.shown} and everything inside (${more}${plural(s.files, 'file')}, ${plural(s.dirs, 'subfolder')}, ${formatBytes(s.bytes)})`,
            preview: s.sample.length ? `${s.sample.join('\n')}${s.files + s.dirs > s.sample.length ? '\n…' : ''}` : '(empty folder)',
          };
        }
        const what = p.st.isSymbolicLink() ? 'symbolic link' : 'file';
        return { description: `Remove ${what} ${p.shown}${p.st.isFile() ? ` (${formatBytes(p.st.size)})` : ''}`, preview: null };
      },
    },
    async execute(args, ctx) {
      const p = await plan(args, ctx, dataDir);
      throwIfAborted(ctx.signal);
      try {
        if (p.st.isDirectory()) await rm(p.abs, { recursive: true, force: false, maxRetries: 2 });
        else await unlink(p.abs);
      } catch (err) {
        throw fsError(err, p.shown);
      }
      return { output: `Removed ${p.st.isDirectory() ? 'folder' : p.st.isSymbolicLink() ? 'link' : 'file'} ${p.shown}.` };
    },
  });
