/**
 * write_file (approval pair `execute_write_file`): create, overwrite or append to a file, atomically. Replacing an
 * existing file needs a read_file of it in this conversation and refuses when it changed on disk since.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { assertFresh, atomicAppendFile, atomicWriteFile, inspectWriteTarget, snapshotOf, type WriteTarget } from './atomic-write';
import { unifiedDiff } from './diff-preview';
import { countLines, formatBytes, fsError, plural, throwIfAborted } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

/** Existing content up to this size is loaded for the diff preview; bigger files get a summary. */
const PREVIEW_READ_LIMIT = 8 * 1024 * 1024;

const params = z.object({
  path: z.string().describe('File to write: absolute, relative to the working directory, or starting with ~. Missing parent folders are created.'),
  content: z.string().describe('The text to write. In overwrite mode this becomes the whole file; in append mode it is added at the end as is (no newline is added for you).'),
  mode: z
    .enum(['overwrite', 'append'])
    .optional()
    .describe('overwrite (default) replaces the whole file; append adds content to the end of the file.'),
});
type Args = z.infer<typeof params>;

interface Plan {
  abs: string;
  shown: string;
  target: WriteTarget;
  mode: 'overwrite' | 'append';
}

async function plan(args: Args, ctx: ToolContext): Promise<Plan> {
  const abs = resolveToolPath(args.path, ctx);
  const shown = displayPath(abs, ctx.state.cwd);
  const target = await inspectWriteTarget(abs, shown);
  if (target.exists) assertFresh(ctx.state, abs, shown, target.stat);
  return { abs, shown, target, mode: args.mode ?? 'overwrite' };
}

async function readExisting(abs: string, shown: string, size: number): Promise<string | null> {
  if (size > PREVIEW_READ_LIMIT) return null;
  try {
    return await readFile(abs, 'utf8');
  } catch (err) {
    throw fsError(err, shown, 'file');
  }
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create a file, replace its whole content, or append to it (mode: append). Parent folders are created. To change ' +
    'part of an existing file prefer edit_file. An existing file must have been read with read_file in this ' +
    'conversation, and the write is refused if it changed on disk since that read (read it again, then retry); new ' +
    'files need no read. The write is atomic (the old version or the new one, never half a file) and keeps the ' +
    "file's permissions. Symbolic links and files with several hard links are refused: write the real target path. " +
    'The person approves the change from a diff before it happens.',
  params,
  risk: 'high-risk',
  disclosure: 'public',
  presentation: { title: 'Write a file', icon: 'edit', result: 'diff', summary: (args) => args.path },
  effects: (args) => ({ paths: { write: [args.path] } }),
  pair: {
    executeName: 'execute_write_file',
    async propose(args, ctx) {
      const p = await plan(args, ctx);
      const addLines = countLines(args.content);
      if (!p.target.exists) {
        return {
          description: `Create ${p.shown} (${plural(addLines, 'line')}, ${formatBytes(Buffer.byteLength(args.content))})`,
          preview: unifiedDiff(p.shown, null, args.content),
        };
      }
      const old = await readExisting(p.abs, p.shown, p.target.stat.size);
      if (p.mode === 'append') {
        const description = `Append ${plural(addLines, 'line')} (${formatBytes(Buffer.byteLength(args.content))}) to ${p.shown}`;
        if (old === null) {
          return { description, preview: `--- a/${p.shown}\n+++ b/${p.shown}\n(the ${formatBytes(p.target.stat.size)} file is too large to diff; the content is added at its end)\n` };
        }
        return { description, preview: unifiedDiff(p.shown, old, old + args.content) };
      }
      const description = `Overwrite ${p.shown} with ${plural(addLines, 'line')} (${formatBytes(Buffer.byteLength(args.content))}; was ${formatBytes(p.target.stat.size)})`;
      if (old === null) return { description, preview: `--- a/${p.shown}\n+++ b/${p.shown}\n(the ${formatBytes(p.target.stat.size)} file is too large to diff; its whole content is replaced)\n` };
      return { description, preview: unifiedDiff(p.shown, old, args.content) };
    },
  },
  async execute(args, ctx) {
    const p = await plan(args, ctx);
    throwIfAborted(ctx.signal);
    try {
      let st;
      if (!p.target.exists) {
        await mkdir(dirname(p.abs), { recursive: true });
        st = await atomicWriteFile(p.abs, args.content);
      } else {
        const keep = { mode: p.target.stat.mode, uid: p.target.stat.uid, gid: p.target.stat.gid };
        st = p.mode === 'append' ? await atomicAppendFile(p.abs, args.content, keep) : await atomicWriteFile(p.abs, args.content, keep);
      }
      ctx.state.recordFileSnapshot(snapshotOf(p.abs, st));
      const bytes = formatBytes(Buffer.byteLength(args.content));
      const verb = !p.target.exists ? 'Created' : p.mode === 'append' ? 'Appended to' : 'Overwrote';
      return { output: `${verb} ${p.shown}: ${plural(countLines(args.content), 'line')} (${bytes}) written. File size is now ${formatBytes(st.size)}.` };
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw fsError(err, p.shown, 'file');
    }
  },
});
