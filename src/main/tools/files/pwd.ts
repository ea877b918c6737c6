/** pwd: the conversation's working directory. */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';

export const pwdTool = defineTool({
  name: 'pwd',
  facts: { loadsWith: 'fileops' },
  description: 'Print the current working directory that relative paths in every file tool resolve against. Change it with cd.',
  params: () => z.object({}),
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Current folder', icon: 'folder' },
  async execute(_args, ctx) {
    return { output: ctx.state.cwd };
  },
});
