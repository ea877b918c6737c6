/** cd: change the conversation's working directory (kept across calls). */
import { realpath, stat } from 'node:fs/promises';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { fsError } from './fs-errors';
import { resolveToolPath } from './paths';

const params = () => z.object({
  path: z.string().describe('Folder to change to: absolute, relative to the current working directory, "..", or starting with ~.'),
});

export const cdTool = defineTool({
  name: 'cd',
  facts: { loadsWith: 'fileops' },
  description:
    'Change the working directory for this conversation. Relative paths in later file tool calls resolve against it, ' +
    'and it persists across calls. The folder must exist. Use pwd to see the current one.',
  params,
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Change folder', icon: 'folder', summary: (args) => args.path },
  effects: (args) => ({ paths: { read: [args.path] } }),
  async execute(args, ctx) {
    const abs = resolveToolPath(args.path, ctx);
    try {
      const st = await stat(abs);
      if (!st.isDirectory()) throw new ToolError(`${abs} is a file, not a folder. cd needs a folder; use its parent folder instead.`);
      const real = await realpath(abs);
      ctx.state.cwd = real;
      return { output: `Working directory is now ${real}` };
    } catch (err) {
      throw fsError(err, abs, 'folder');
    }
  },
});
