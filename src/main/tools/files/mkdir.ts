/** mkdir (approval pair `execute_mkdir`): create a folder, parents included by default. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { errno, fsError } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

const params = () => z.object({
  path: z.string().describe('Folder to create: absolute, relative to the working directory, or starting with ~.'),
  parents: z.boolean().optional().describe('Create missing parent folders too (default true). With false, the parent must already exist.'),
});
type Args = z.infer<ReturnType<typeof params>>;

async function existing(abs: string): Promise<'dir' | 'other' | null> {
  try {
    return (await stat(abs)).isDirectory() ? 'dir' : 'other';
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

async function plan(args: Args, ctx: ToolContext): Promise<{ abs: string; shown: string; already: boolean }> {
  const abs = resolveToolPath(args.path, ctx);
  const shown = displayPath(abs, ctx.state.cwd);
  let state: 'dir' | 'other' | null;
  try {
    state = await existing(abs);
  } catch (err) {
    throw fsError(err, shown, 'folder');
  }
  if (state === 'other') throw new ToolError(`${shown} already exists and is not a folder. Pick another name, or remove it first with rm.`, 'conflict');
  if (state === null && args.parents === false) {
    const parent = dirname(abs);
    if ((await existing(parent).catch(() => null)) !== 'dir') {
      throw new ToolError(`The parent folder ${displayPath(parent, ctx.state.cwd)} does not exist. Set parents: true to create it as well.`, 'not_found');
    }
  }
  return { abs, shown, already: state === 'dir' };
}

export const mkdirTool = defineTool({
  name: 'mkdir',
  facts: { writes: true, loadsWith: 'fileops' },
  description:
    'Create a folder. Missing parent folders are created too unless parents is false. An existing folder is not an ' +
    'error (nothing changes). Fails when a file already has that name.',
  params,
  risk: 'low-risk',
  disclosure: 'public',
  presentation: { title: 'Create a folder', icon: 'folder', summary: (args) => args.path },
  effects: (args) => ({ paths: { write: [args.path] } }),
  pair: {
    executeName: 'execute_mkdir',
    async propose(args, ctx) {
      const p = await plan(args, ctx);
      return {
        description: p.already ? `Folder ${p.shown} already exists (nothing to do)` : `Create folder ${p.shown}${args.parents === false ? '' : ' (and missing parents)'}`,
        preview: null,
      };
    },
  },
  async execute(args, ctx) {
    const p = await plan(args, ctx);
    if (p.already) return { output: `Folder ${p.shown} already exists; nothing changed.` };
    try {
      await mkdir(p.abs, { recursive: args.parents !== false });
    } catch (err) {
      if (errno(err) === 'EEXIST' && (await existing(p.abs).catch(() => null)) === 'dir') return { output: `Folder ${p.shown} already exists; nothing changed.` };
      throw fsError(err, p.shown, 'folder');
    }
    return { output: `Created folder ${p.shown}.` };
  },
});
