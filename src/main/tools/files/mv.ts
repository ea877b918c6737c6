/** mv (approval pair `execute_mv`): move or rename. low-risk unless force replaces an existing destination. */
import { rename, rm } from 'node:fs/promises';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { errno, fsError, throwIfAborted } from './fs-errors';
import { protectedReason } from './protected-paths';
import {
  assertReplaceable,
  assertSensitivityKept,
  classifyTransfer,
  copyTree,
  ensureParent,
  installStaged,
  planTransfer,
  siblingTemp,
  transferParams,
  type TransferArgs,
  type TransferPlan,
} from './transfer';

async function plan(args: TransferArgs, ctx: ToolContext, dataDir: string): Promise<TransferPlan> {
  const p = await planTransfer(args, ctx.state.cwd, 'move');
  if (!p.srcStat.isSymbolicLink()) {
    const reason = await protectedReason(p.src, { cwd: ctx.state.cwd, workspaceRoots: ctx.state.workspaceRoots, dataDir });
    if (reason) throw new ToolError(`Refusing to move ${p.srcShown}: ${reason}. Move what is inside it instead, or ask the person to do it.`);
  }
  assertReplaceable(p, args.force);
  assertSensitivityKept(p, { dataDir, workspaceRoots: ctx.state.workspaceRoots }, 'move');
  return p;
}

export const createMvTool = (dataDir: string) =>
  defineTool({
    name: 'mv',
    facts: { writes: true, loadsWith: 'fileops' },
    description:
      'Move or rename a file or folder. If destination is an existing folder, the source moves inside it. An existing ' +
      'destination is only replaced with force: true (a file replaces a file, a folder a folder). Works across disks ' +
      '(copies, then removes the original). Missing parent folders are created. Refuses to move the home folder, a ' +
      'workspace root or the working directory.',
    params: transferParams,
    risk: 'high-risk',
    disclosure: 'public',
    presentation: { title: 'Move or rename', icon: 'edit', summary: (args) => `${args.source} → ${args.destination}` },
    // Moving removes the source: both ends are writes.
    effects: async (args, ectx) => ({ paths: { write: [args.source, args.destination] }, assessment: await classifyTransfer(args, ectx, 'move') }),
    pair: {
      executeName: 'execute_mv',
      async propose(args, ctx) {
        const p = await plan(args, ctx, dataDir);
        return {
          description: `Move ${p.srcShown} to ${p.targetShown}${p.existing ? ` (replacing the existing ${p.existing.isDirectory() ? 'folder' : 'file'})` : ''}`,
          preview: null,
        };
      },
    },
    async execute(args, ctx) {
      const p = await plan(args, ctx, dataDir);
      throwIfAborted(ctx.signal);
      await ensureParent(p.target, p.targetShown);
      const replacingDir = Boolean(p.existing?.isDirectory());
      try {
        if (replacingDir) await installStaged(p.src, p.target, true);
        else await rename(p.src, p.target);
      } catch (err) {
        if (errno(err) !== 'EXDEV') throw fsError(err, p.srcShown);
        // Another device: copy next to the target, put it in place, then remove the original.
        const staged = siblingTemp(p.target);
        try {
          await copyTree(p.src, p.srcStat, staged, ctx.signal, { keepLink: true });
          await installStaged(staged, p.target, replacingDir);
        } catch (copyErr) {
          await rm(staged, { recursive: true, force: true }).catch(() => undefined);
          throw fsError(copyErr, p.srcShown);
        }
        await rm(p.src, { recursive: true, force: true });
        return { output: `Moved ${p.srcShown} to ${p.targetShown} (copied across devices, then removed the original).` };
      }
      return { output: `Moved ${p.srcShown} to ${p.targetShown}${p.existing ? ', replacing what was there' : ''}.` };
    },
  });
