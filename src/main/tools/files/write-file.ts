/**
 * write_file (approval pair `execute_write_file`): create, overwrite or append to a file, atomically. Replacing an
 * existing file needs a read_file of it in this conversation and refuses when it changed on disk since, and an
 * overwrite may not drop a line that holds a secret (Spec I): the model only ever saw such lines as placeholders.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { SecretRedactor, type RedactionMatch } from '../../runtime/context/redaction';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { assertFresh, atomicAppendFile, atomicWriteFile, editorSnapshot, editorText, hashFileIfSmall, inspectWriteTarget, snapshotOf, type WriteTarget } from './atomic-write';
import { unifiedDiff } from './diff-preview';
import { countLines, formatBytes, fsError, plural, throwIfAborted } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

/** Existing content up to this size is loaded for the diff preview; bigger files get a summary. */
const PREVIEW_READ_LIMIT = 8 * 1024 * 1024;

const params = () => z.object({
  path: z.string().describe('The file (missing folders are created).'),
  content: z.string().describe('The whole new content (append: added as is).'),
  mode: z
    .enum(['overwrite', 'append'])
    .optional()
    .describe('overwrite (default) or append.'),
});
type Args = z.infer<ReturnType<typeof params>>;

interface Plan {
  abs: string;
  shown: string;
  target: WriteTarget;
  mode: 'overwrite' | 'append';
  /** The editor's buffer of the file, when an editor serves this conversation's files and has it. */
  inEditor: string | null;
}

/** What finds secrets in text: the runtime's redactor (exact secrets it holds, and credential shapes). */
export type SecretFinder = { matches(text: string): RedactionMatch[] };

/** Existing files up to this size are checked for secret lines an overwrite would drop. */
const SECRET_CHECK_LIMIT = 8 * 1024 * 1024;

/**
 * The lines of `before` that hold a secret and are missing from `after`, as line numbers with the name of the secret.
 * Compared line by line (not by position), so reordering or editing around such a line is fine; dropping it is not.
 */
export function droppedSecretLines(before: string, after: string, finder: SecretFinder): { line: number; name: string }[] {
  const matches = finder.matches(before);
  if (matches.length === 0) return [];
  const starts = [0];
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineAt = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const text = (i: number): string => before.slice(starts[i], (starts[i + 1] ?? before.length + 1) - 1).replace(/\r$/, '');
  const kept = new Set(after.split('\n').map((l) => l.replace(/\r$/, '')));
  const out = new Map<number, string>();
  for (const m of matches) {
    for (let i = lineAt(m.start); i <= lineAt(Math.max(m.start, m.end - 1)); i++) {
      if (!out.has(i + 1) && !kept.has(text(i))) out.set(i + 1, m.name);
    }
  }
  return [...out].sort((a, b) => a[0] - b[0]).map(([line, name]) => ({ line, name }));
}

async function plan(args: Args, ctx: ToolContext, finder: SecretFinder): Promise<Plan> {
  const abs = resolveToolPath(args.path, ctx);
  const shown = displayPath(abs, ctx.state.cwd);
  const target = await inspectWriteTarget(abs, shown);
  const mode = args.mode ?? 'overwrite';
  const inEditor = target.exists ? await editorText(ctx, abs) : null;
  if (target.exists) {
    await assertFresh(ctx.state, abs, shown, target.stat, inEditor);
    if (mode === 'overwrite' && (inEditor !== null || target.stat.size <= SECRET_CHECK_LIMIT)) {
      const old = inEditor ?? (await readExisting(abs, shown, target.stat.size));
      const dropped = old === null ? [] : droppedSecretLines(old, args.content, finder);
      if (dropped.length > 0) {
        const list = dropped.slice(0, 10).map((d) => `line ${d.line} (${d.name})`).join(', ') + (dropped.length > 10 ? ', …' : '');
        throw new ToolError(
          `Overwriting ${shown} would drop ${plural(dropped.length, 'line')} holding a secret: ${list}. Nothing was written. ` +
            'You only see those lines as [redacted:…] placeholders, so write_file cannot keep them; change the file with ' +
            'edit_file around those lines instead.',
          'invalid_args',
        );
      }
    }
  }
  return { abs, shown, target, mode, inEditor };
}

async function readExisting(abs: string, shown: string, size: number): Promise<string | null> {
  if (size > PREVIEW_READ_LIMIT) return null;
  try {
    return await readFile(abs, 'utf8');
  } catch (err) {
    throw fsError(err, shown, 'file');
  }
}

export const createWriteFile = (secrets: SecretFinder) =>
  defineTool({
    name: 'write_file',
    claudeCodeName: 'Write',
    description:
      'Create a file, or replace or append to one read with read_file (refused if it changed since). For part of a ' +
      'file prefer edit_file.',
    details:
      'New files need no read. An overwrite that would drop a line holding a secret is refused (edit around such ' +
      'lines). The write is atomic and keeps permissions; symbolic links and files with several hard links are ' +
      'refused (write the real path). The person approves it from a diff.',
    params,
    risk: 'high-risk',
    disclosure: 'public',
    facts: { writes: true, editsFile: true },
    presentation: { title: 'Write a file', icon: 'edit', result: 'diff', summary: (args) => args.path },
    effects: (args) => ({ paths: { write: [args.path] } }),
    pair: {
      executeName: 'execute_write_file',
      async propose(args, ctx) {
        const p = await plan(args, ctx, secrets);
        const addLines = countLines(args.content);
        if (!p.target.exists) {
          return {
            description: `Create ${p.shown} (${plural(addLines, 'line')}, ${formatBytes(Buffer.byteLength(args.content))})`,
            preview: unifiedDiff(p.shown, null, args.content),
          };
        }
        const old = p.inEditor ?? (await readExisting(p.abs, p.shown, p.target.stat.size));
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
      const p = await plan(args, ctx, secrets);
      throwIfAborted(ctx.signal);
      try {
        if (ctx.editor?.writeText) {
          // Through the editor (its buffer takes the content; it saves as it saves any edit): what is written is
          // the whole new text, an append included.
          if (!p.target.exists) await mkdir(dirname(p.abs), { recursive: true });
          const before = p.mode === 'append' && p.target.exists ? (p.inEditor ?? (await readFile(p.abs, 'utf8'))) : '';
          const text = before + args.content;
          await ctx.editor.writeText(p.abs, text, ctx.signal);
          ctx.state.recordFileSnapshot(editorSnapshot(p.abs, text));
          const verb = !p.target.exists ? 'Created' : p.mode === 'append' ? 'Appended to' : 'Overwrote';
          return { output: `${verb} ${p.shown} through ${ctx.editor.name}: ${plural(countLines(args.content), 'line')} (${formatBytes(Buffer.byteLength(args.content))}) written. File size is now ${formatBytes(Buffer.byteLength(text))}.` };
        }
        let st;
        if (!p.target.exists) {
          await mkdir(dirname(p.abs), { recursive: true });
          st = await atomicWriteFile(p.abs, args.content);
        } else {
          const keep = { mode: p.target.stat.mode, uid: p.target.stat.uid, gid: p.target.stat.gid };
          st = p.mode === 'append' ? await atomicAppendFile(p.abs, args.content, keep) : await atomicWriteFile(p.abs, args.content, keep);
        }
        const snap = snapshotOf(p.abs, st, p.mode === 'overwrite' || !p.target.exists ? args.content : undefined);
        if (p.mode === 'append' && p.target.exists) {
          const sha256 = await hashFileIfSmall(p.abs, st.size);
          if (sha256) snap.sha256 = sha256;
        }
        ctx.state.recordFileSnapshot(snap);
        const bytes = formatBytes(Buffer.byteLength(args.content));
        const verb = !p.target.exists ? 'Created' : p.mode === 'append' ? 'Appended to' : 'Overwrote';
        return { output: `${verb} ${p.shown}: ${plural(countLines(args.content), 'line')} (${bytes}) written. File size is now ${formatBytes(st.size)}.` };
      } catch (err) {
        if (err instanceof ToolError) throw err;
        throw fsError(err, p.shown, 'file');
      }
    },
  });

/** write_file with the credential shapes and this process's credential variables as the secrets it keeps. */
export const writeFileTool = createWriteFile(new SecretRedactor());
