/** cp (approval pair `execute_cp`): copy a file or folder tree. low-risk unless force replaces an existing destination. */
import { rm } from 'node:fs/promises';
import { defineTool } from '../../runtime/tool';
import { fsError, plural, throwIfAborted } from './fs-errors';
import { assertReplaceable, assertSensitivityKept, classifyTransfer, copyTree, ensureParent, installStaged, planTransfer, siblingTemp, transferParams } from './transfer';

export const createCpTool = (dataDir: string) =>
  defineTool({
    name: 'cp',
    facts: { writes: true, loadsWith: 'fileops' },
    description:
      'Copy a file or a folder (recursively, keeping symbolic links inside it as links) to a new path. If destination ' +
      'is an existing folder, the copy goes inside it. An existing destination is only replaced with force: true (a ' +
      'file replaces a file, a folder a folder), and the replacement happens in one step. Missing parent folders are created.',
    params: transferParams,
    risk: 'high-risk',
    disclosure: 'public',
    presentation: { title: 'Copy', icon: 'edit', summary: (args) => `${args.source} → ${args.destination}` },
    effects: async (args, ectx) => ({ paths: { read: [args.source], write: [args.destination] }, assessment: await classifyTransfer(args, ectx, 'copy') }),
    pair: {
      executeName: 'execute_cp',
      async propose(args, ctx) {
        const p = await planTransfer(args, ctx.state.cwd, 'copy');
        assertReplaceable(p, args.force);
        const what = p.srcStat.isDirectory() ? 'folder' : 'file';
        return {
          description: `Copy ${what} ${p.srcShown} to ${p.targetShown}${p.existing ? ` (replacing the existing ${p.existing.isDirectory() ? 'folder' : 'file'})` : ''}`,
          preview: null,
        };
      },
    },
    async execute(args, ctx) {
      const p = await planTransfer(args, ctx.state.cwd, 'copy');
      assertReplaceable(p, args.force);
      assertSensitivityKept(p, { dataDir, workspaceRoots: ctx.state.workspaceRoots }, 'copy');
      throwIfAborted(ctx.signal);
      await ensureParent(p.target, p.targetShown);
      const staged = siblingTemp(p.target);
      let count: number;
      try {
        count = await copyTree(p.src, p.srcStat, staged, ctx.signal);
        await installStaged(staged, p.target, Boolean(p.existing?.isDirectory()));
      } catch (err) {
        await rm(staged, { recursive: true, force: true }).catch(() => undefined);
        throw fsError(err, p.srcShown);
      }
      const size = p.srcStat.isDirectory() ? ` (${plural(count, 'entry', 'entries')})` : '';
      return { output: `Copied ${p.srcShown} to ${p.targetShown}${size}${p.existing ? ', replacing what was there' : ''}.` };
    },
  });
