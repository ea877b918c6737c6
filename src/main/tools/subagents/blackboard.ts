import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { Subagents } from '../../services/subagents/index';

export const createPostToBlackboard = (subagents: Subagents) =>
  defineTool({
    name: 'post_to_blackboard',
    description:
      'Post a finding (topic + up to 4000 characters) to the board a parent and its subagents share. A post from a run that read untrusted content is marked untrusted.',
    params: () => z
      .object({
        topic: z.string().trim().min(1).max(100).describe('A short label readers filter by.'),
        body: z.string().min(1).max(4000, { error: 'a post holds at most 4000 characters; summarize' }).describe('The finding, at most 4000 characters.'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: ['conversations'] },
    presentation: { title: 'Post to the blackboard', icon: 'tool', summary: (a) => a.topic },
    async execute(args, ctx) {
      const post = subagents.post({ runId: ctx.runId, conversationId: ctx.conversationId }, args.topic, args.body);
      return { output: `Posted #${post.id} under "${args.topic}"${post.untrusted ? ' (marked untrusted: this run read untrusted content)' : ''}.` };
    },
  });

export const createReadBlackboard = (subagents: Subagents) =>
  defineTool({
    name: 'read_blackboard',
    description: 'Read the board a parent and its subagents share, oldest first; topic filters, after_id returns only newer posts.',
    params: () => z
      .object({
        topic: z.string().trim().min(1).max(100).optional().describe('Only posts with this topic.'),
        after_id: z.number().int().min(0).optional().describe('Only posts newer than this post id.'),
        limit: z.number().int().min(1).max(200).optional().describe('At most this many posts (default 50).'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: ['conversations'] },
    presentation: { title: 'Read the blackboard', icon: 'tool' },
    async execute(args, ctx) {
      const posts = subagents.read(ctx.conversationId, { ...(args.topic ? { topic: args.topic } : {}), ...(args.after_id !== undefined ? { afterId: args.after_id } : {}), limit: args.limit ?? 50 });
      if (posts.length === 0) return { output: 'The blackboard has no posts' + (args.topic ? ` under "${args.topic}".` : '.') };
      const text = posts.map((p) => `#${p.id} [${p.topic}] by ${p.author}${p.untrusted ? ' (untrusted)' : ''}:\n${p.body}`).join('\n\n');
      return posts.some((p) => p.untrusted) ? { output: text, untrustedSource: 'blackboard posts from runs that read untrusted content' } : { output: text };
    },
  });
