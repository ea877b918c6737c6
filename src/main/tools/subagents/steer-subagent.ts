import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { Subagents } from '../../services/subagents/index';

export const createSteerSubagent = (subagents: Subagents) =>
  defineTool({
    name: 'steer_subagent',
    description:
      'Send a running subagent a message (it reads it before its next model call), pause it (it finishes what is in flight, then makes no model call until resumed; its time limit keeps counting), resume it, or cancel it. A finished child is continued with spawn_subagent {resume}.',
    params: () => z
      .object({
        id: z.string().regex(/^sub_[0-9a-f]{8}$/, { error: 'id is a subagent id such as sub_0123abcd' }).describe('The child (list_subagents shows the ids).'),
        message: z.string().trim().max(20_000).optional().describe('What the child should know or do differently.'),
        action: z.enum(['message', 'pause', 'resume', 'cancel']).optional().describe('message (default), pause, resume or cancel. A message may go with pause or resume.'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { parentOnly: true, reaches: ['conversations'] },
    presentation: { title: 'Steer a subagent', icon: 'tool', summary: (a) => `${a.id} ${a.action ?? 'message'}` },
    async execute(args, ctx) {
      if (args.action === 'cancel') {
        const row = await subagents.cancel(args.id, args.message ? `cancelled by its parent: ${args.message}` : 'cancelled by its parent', ctx.conversationId);
        return { output: `Subagent ${row.id} is ${row.status}.` };
      }
      if (args.action === 'pause' || args.action === 'resume') {
        // A message sent with either is read at the child's next model call (after it is resumed).
        if (args.message) subagents.steer(ctx.conversationId, args.id, args.message);
        if (args.action === 'pause') {
          subagents.pause(ctx.conversationId, args.id);
          return { output: `Subagent ${args.id} is paused: it makes no further model calls until steer_subagent {"id":"${args.id}","action":"resume"}.` };
        }
        subagents.resume(ctx.conversationId, args.id);
        return { output: `Subagent ${args.id} resumed.${args.message ? ' It reads your message first.' : ''}` };
      }
      if (!args.message) return { output: 'Nothing sent: give a message (or action: pause, resume or cancel).' };
      subagents.steer(ctx.conversationId, args.id, args.message);
      return { output: `Message queued for ${args.id}: it reads it before its next model call.` };
    },
  });
