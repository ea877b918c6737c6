/**
 * edit_file (approval pair `execute_edit_file`): exact string replacement in a file read earlier in the
 * conversation. One unique match unless replace_all; refuses stale files; writes atomically.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { assertFresh, atomicWriteFile, editorSnapshot, editorText, inspectWriteTarget, snapshotOf, snapshotToken } from './atomic-write';
import { unifiedDiff } from './diff-preview';
import { fsError, plural, throwIfAborted } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

const params = () => z.object({
  path: z.string().describe('The file, read with read_file first.'),
  old_string: z
    .string()
    .describe('Exact text to replace (indentation included, no line-number prefix); must occur once unless replace_all.'),
  new_string: z.string().describe('Replacement text (empty deletes).'),
  replace_all: z.boolean().optional().describe('Replace every occurrence.'),
  snapshot: z
    .string()
    .optional()
    .describe('The snapshot read_file returned, unchanged; a file changed since is refused.'),
});
type Args = z.infer<ReturnType<typeof params>>;

/** Non-overlapping occurrences of `needle`, as start indexes (stops counting at `limit`). */
function occurrences(text: string, needle: string, limit = Number.POSITIVE_INFINITY): number[] {
  const found: number[] = [];
  let i = text.indexOf(needle);
  while (i !== -1 && found.length < limit) {
    found.push(i);
    i = text.indexOf(needle, i + needle.length);
  }
  return found;
}

function lineOf(text: string, index: number): number {
  let n = 1;
  let i = -1;
  while ((i = text.indexOf('\n', i + 1)) !== -1 && i < index) n++;
  return n;
}

/** A hint for a failed match: where the first line of old_string appears when whitespace is ignored. */
function noMatchHint(content: string, oldString: string): string {
  const firstLine = oldString.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (!firstLine) return 'old_string is only whitespace; include some visible text.';
  const lines = content.split('\n');
  const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
  const target = squash(firstLine);
  const near: number[] = [];
  for (let i = 0; i < lines.length && near.length < 5; i++) {
    if (squash(lines[i] as string).includes(target)) near.push(i + 1);
  }
  if (near.length > 0) {
    return `Its first line appears (ignoring whitespace) at line ${near.join(', ')}: the indentation, line breaks or surrounding text differ. Read those lines with read_file and copy the text exactly.`;
  }
  return 'Read the file again with read_file and copy the exact text (without the line-number prefix), including indentation.';
}

interface EditPlan {
  abs: string;
  shown: string;
  before: string;
  after: string;
  count: number;
  firstLine: number;
  mode: number;
  uid: number;
  gid: number;
}

async function plan(args: Args, ctx: ToolContext): Promise<EditPlan> {
  const abs = resolveToolPath(args.path, ctx);
  const shown = displayPath(abs, ctx.state.cwd);
  if (args.old_string === '') {
    throw new ToolError('old_string is empty. Give the exact text to replace; to write a whole new file use write_file.');
  }
  if (args.old_string === args.new_string) {
    throw new ToolError('old_string and new_string are identical, so the edit would change nothing. Pass the new text in new_string.');
  }
  const target = await inspectWriteTarget(abs, shown);
  if (!target.exists) {
    throw new ToolError(`File not found: ${shown}. Use find or ls to locate it; to create a new file use write_file.`, 'not_found');
  }
  // The editor's buffer, when an editor serves this conversation's files, is what is edited (unsaved changes included).
  const inEditor = await editorText(ctx, abs);
  await assertFresh(ctx.state, abs, shown, target.stat, inEditor);
  let raw: Buffer;
  try {
    raw = inEditor !== null ? Buffer.from(inEditor, 'utf8') : await readFile(abs);
  } catch (err) {
    throw fsError(err, shown, 'file');
  }
  const tokens = inEditor !== null ? [snapshotToken(snapshotOf(abs, target.stat, raw)), snapshotToken(editorSnapshot(abs, raw))] : [snapshotToken(snapshotOf(abs, target.stat, raw))];
  if (args.snapshot !== undefined && !tokens.includes(args.snapshot.trim())) {
    throw new ToolError(
      `${shown} changed on disk since the read that returned snapshot ${args.snapshot.trim()} (or the snapshot belongs to another file). ` +
        'Nothing was written. Read it again with read_file and retry with the new snapshot.',
      'stale_file',
      { path: abs, reason: 'snapshot' },
    );
  }
  const before = raw.toString('utf8');
  if (before.slice(0, 8192).includes('\0')) throw new ToolError(`${shown} is a binary file; edit_file only edits text.`);

  let oldString = args.old_string;
  let newString = args.new_string;
  let found = occurrences(before, oldString, args.replace_all ? Number.POSITIVE_INFINITY : 50);
  // Files with CRLF line endings: accept old/new strings written with plain \n.
  if (found.length === 0 && before.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
    const crlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');
    const retry = occurrences(before, crlf(oldString), args.replace_all ? Number.POSITIVE_INFINITY : 50);
    if (retry.length > 0) {
      oldString = crlf(oldString);
      newString = crlf(newString);
      found = retry;
    }
  }
  if (found.length === 0) {
    throw new ToolError(`old_string was not found in ${shown}. ${noMatchHint(before, args.old_string)}`);
  }
  if (found.length > 1 && !args.replace_all) {
    const where = found.slice(0, 10).map((i) => lineOf(before, i));
    throw new ToolError(
      `old_string matches ${found.length >= 50 ? '50 or more' : found.length} places in ${shown} (lines ${where.join(', ')}${found.length > 10 ? ', …' : ''}). ` +
        'Include more surrounding lines in old_string so it matches exactly one place, or set replace_all: true to change every occurrence.',
    );
  }
  let after: string;
  if (args.replace_all) {
    after = before.split(oldString).join(newString);
  } else {
    const at = found[0] as number;
    after = before.slice(0, at) + newString + before.slice(at + oldString.length);
  }
  return {
    abs,
    shown,
    before,
    after,
    count: found.length,
    firstLine: lineOf(before, found[0] as number),
    mode: target.stat.mode,
    uid: target.stat.uid,
    gid: target.stat.gid,
  };
}

/** A few numbered lines of the new content around the first edit, so the model sees the result. */
function snippet(after: string, firstLine: number, newString: string): string {
  const lines = after.split('\n');
  if (after.endsWith('\n')) lines.pop();
  const span = Math.min(newString.split('\n').length, 12);
  const from = Math.max(1, firstLine - 2);
  const to = Math.min(lines.length, firstLine + span + 1);
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    let text = (lines[n - 1] ?? '').replace(/\r$/, '');
    if (text.length > 300) text = `${text.slice(0, 300)} …`;
    out.push(`${String(n).padStart(6)}\t${text}`);
  }
  return out.join('\n');
}

export const editFileTool = defineTool({
  name: 'edit_file',
  claudeCodeName: 'Edit',
  description:
    'Replace exact text in a file read with read_file (if it changed on disk since, read it again). Consecutive ' +
    'edits need no re-read. To create a file use write_file.',
  details:
    'When old_string is not found or matches several places, the error says where to look. The snapshot is checked ' +
    'against the very read it came from, even after reading only some lines. The write is atomic and keeps ' +
    'permissions; the person approves it from a diff.',
  params,
  risk: 'high-risk',
  disclosure: 'private',
  facts: { writes: true, editsFile: true },
  presentation: { title: 'Edit a file', icon: 'edit', result: 'diff', summary: (args) => args.path },
  effects: (args) => ({ paths: { write: [args.path] } }),
  pair: {
    executeName: 'execute_edit_file',
    async propose(args, ctx) {
      const p = await plan(args, ctx);
      const what = args.replace_all ? `replace ${plural(p.count, 'occurrence')}` : `replace text at line ${p.firstLine}`;
      return { description: `Edit ${p.shown}: ${what}`, preview: unifiedDiff(p.shown, p.before, p.after) };
    },
  },
  async execute(args, ctx) {
    const p = await plan(args, ctx);
    throwIfAborted(ctx.signal);
    let token: string;
    try {
      let snap;
      if (ctx.editor?.writeText) {
        // Through the editor: its buffer takes the change (and the editor saves it as it saves any edit).
        await ctx.editor.writeText(p.abs, p.after, ctx.signal);
        snap = editorSnapshot(p.abs, p.after);
      } else {
        const st = await atomicWriteFile(p.abs, p.after, { mode: p.mode, uid: p.uid, gid: p.gid });
        snap = snapshotOf(p.abs, st, p.after);
      }
      ctx.state.recordFileSnapshot(snap);
      token = snapshotToken(snap);
    } catch (err) {
      throw fsError(err, p.shown, 'file');
    }
    const head = `Edited ${p.shown}: replaced ${plural(p.count, 'occurrence')}${p.count > 1 ? ` (first at line ${p.firstLine})` : ` at line ${p.firstLine}`}.`;
    return { output: `${head}\n${snippet(p.after, p.firstLine, args.new_string)}\n[snapshot: ${token}]` };
  },
});
