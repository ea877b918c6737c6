/** The conversation's scratchpad: drafts and notes kept in the conversation's state (outside the messages), so compaction never loses them. */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ConversationState } from '../../runtime/tool';

export const SCRATCHPAD_SLOT = 'scratchpad';
export const SCRATCHPAD_MAX_BYTES = 65_536;

export function scratchpadOf(slots: Readonly<Record<string, unknown>>): string {
  const v = slots[SCRATCHPAD_SLOT];
  return typeof v === 'string' ? v : '';
}

export const viewScratchpad = defineTool({
  name: 'view_scratchpad',
  description: 'Read this conversation\'s scratchpad: drafts, research notes and intermediate results you saved with manage_scratchpad. It survives summarization.',
  params: z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'private',
  presentation: { title: 'Read the scratchpad', icon: 'memory' },
  async execute(_args, ctx) {
    const text = scratchpadOf(ctx.state.slots);
    return { output: text ? `Scratchpad (${Buffer.byteLength(text)} bytes):\n${text}` : 'The scratchpad is empty.' };
  },
});

export const manageScratchpad = defineTool({
  name: 'manage_scratchpad',
  description:
    `Save working drafts and notes for this conversation: \`write\` replaces the scratchpad, \`append\` adds to its end, \`clear\` empties it. At most ${SCRATCHPAD_MAX_BYTES} bytes. ` +
    'It is kept outside the messages, so it survives summarization; it is not memory (other conversations do not see it).',
  params: z
    .object({
      action: z.enum(['write', 'append', 'clear']).describe('write (replace), append, or clear.'),
      text: z.string().optional().describe('The text to write or append.'),
    })
    .strict(),
  risk: 'read-only',
  disclosure: 'private',
  presentation: { title: 'Update the scratchpad', icon: 'memory', summary: (a) => a.action },
  async execute(args, ctx) {
    const next = nextScratchpad(ctx.state, args.action, args.text);
    ctx.state.slots[SCRATCHPAD_SLOT] = next;
    return { output: `Scratchpad ${args.action === 'clear' ? 'cleared' : `saved (${Buffer.byteLength(next)} bytes)`}.` };
  },
});

function nextScratchpad(state: ConversationState, action: 'write' | 'append' | 'clear', text?: string): string {
  if (action === 'clear') return '';
  if (text === undefined) throw new ToolError(`${action} needs \`text\`.`, 'invalid_args');
  const current = scratchpadOf(state.slots);
  const next = action === 'write' ? text : current ? `${current}\n${text}` : text;
  const bytes = Buffer.byteLength(next);
  if (bytes > SCRATCHPAD_MAX_BYTES) throw new ToolError(`The scratchpad would be ${bytes} bytes; the limit is ${SCRATCHPAD_MAX_BYTES}. Write a shorter version.`);
  return next;
}
