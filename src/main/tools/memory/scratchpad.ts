/**
 * The workspace's scratchpad: drafts and notes kept in the store per workspace (the conversation's folder), outside
 * any conversation's messages, so compaction never loses them and a later conversation in the same folder finds them.
 * Text a run wrote after reading untrusted content keeps that mark: a run that reads it back is tainted too.
 */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import type { MemoryService, ScratchpadRow } from '../../services/memory';

/** The slot the per-conversation scratchpad used (before it moved to the store; old states still hold it). */
export const SCRATCHPAD_SLOT = 'scratchpad';
export const SCRATCHPAD_MAX_BYTES = 65_536;

/** What a run reading a tainted scratchpad names as the untrusted source. */
export const TAINTED_SCRATCHPAD = 'the workspace scratchpad (written by a run that had read untrusted content)';

export const createViewScratchpad = (memory: MemoryService, folderOf: (conversationId: string) => string) =>
  defineTool({
    name: 'view_scratchpad',
    description:
      "Read this workspace's scratchpad: drafts, research notes and intermediate results saved with manage_scratchpad, by this conversation or an earlier one in the same folder. It survives summarization and new conversations.",
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: ['memory'] },
    presentation: { title: 'Read the scratchpad', icon: 'memory' },
    async execute(_args, ctx) {
      const row = memory.scratchpad(folderOf(ctx.conversationId));
      if (!row) return { output: 'The scratchpad is empty.' };
      const output = `Scratchpad (${Buffer.byteLength(row.text)} bytes, updated ${new Date(row.updated_at).toISOString()}):\n${row.text}`;
      return row.tainted ? { output, untrustedSource: TAINTED_SCRATCHPAD } : { output };
    },
  });

export const createManageScratchpad = (memory: MemoryService, folderOf: (conversationId: string) => string) =>
  defineTool({
    name: 'manage_scratchpad',
    description:
      `Save durable working drafts, research dumps and intermediate results for this workspace: \`write\` replaces the scratchpad, \`append\` adds to its end, \`clear\` empties it. At most ${SCRATCHPAD_MAX_BYTES} bytes. ` +
      'It is kept outside the messages, per workspace (the conversation\'s folder): it survives summarization, and later conversations in the same folder see it. It is not memory (nothing is recalled from it into other folders).',
    params: () => z
      .object({
        action: z.enum(['write', 'append', 'clear']).describe('write (replace), append, or clear.'),
        text: z.string().optional().describe('The text to write or append.'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { bookkeeping: true },
    presentation: { title: 'Update the scratchpad', icon: 'memory', summary: (a) => a.action },
    async execute(args, ctx) {
      if (args.action !== 'clear' && args.text === undefined) throw new ToolError(`${args.action} needs \`text\`.`, 'invalid_args');
      const row: ScratchpadRow | null = memory.updateScratchpad(
        folderOf(ctx.conversationId),
        (current) => {
          if (args.action === 'clear') return '';
          const next = args.action === 'write' ? args.text! : current ? `${current}\n${args.text!}` : args.text!;
          const bytes = Buffer.byteLength(next);
          if (bytes > SCRATCHPAD_MAX_BYTES) throw new ToolError(`The scratchpad would be ${bytes} bytes; the limit is ${SCRATCHPAD_MAX_BYTES}. Write a shorter version (or clear it first).`);
          return next;
        },
        { tainted: ctx.tainted === true, replaces: args.action !== 'append' },
      );
      return { output: `Scratchpad ${args.action === 'clear' || !row ? 'cleared' : `saved (${Buffer.byteLength(row.text)} bytes)`}.` };
    },
  });
