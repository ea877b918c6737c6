import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { describeChild, type Subagents } from '../../services/subagents/index';
import { childResult, statusLine } from './shared';

export const createWaitSubagents = (subagents: Subagents) =>
  defineTool({
    name: 'wait_subagents',
    // Asked again while waiting for something to change: the repeat guard leaves it alone.
    repeats: 'expected',
    description:
      'Wait for subagents to end (until any, or all) and return each ended child\'s answer once. Without ids: the children whose answers you have not received yet. Returns early at timeout_seconds with the ones still running.',
    params: () => z
      .object({
        ids: z.array(z.string().regex(/^sub_[0-9a-f]{8}$/, { error: 'ids are subagent ids such as sub_0123abcd' })).max(100).optional().describe('The children to wait for (default: every child whose answer you have not received).'),
        until: z.enum(['any', 'all']).optional().describe('any (default): return when one ends; all: when every one has.'),
        timeout_seconds: z.number().int().min(0).max(3600).optional().describe('Give up waiting after this long (default 600).'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { parentOnly: true, reaches: ['conversations'] },
    presentation: { title: 'Wait for subagents', icon: 'clock' },
    timeoutMs: 3700_000,
    async execute(args, ctx) {
      const result = await subagents.wait(ctx.conversationId, args.ids ?? null, args.until ?? 'any', (args.timeout_seconds ?? 600) * 1000, ctx.signal, { parks: true, runId: ctx.runId });
      if (result.finished.length === 0 && result.running.length === 0) return { output: 'No subagent answers are waiting: every child has been reported (list_subagents shows them).' };
      const parts = result.finished.map(describeChild);
      if (result.running.length) parts.push(`Still running${result.timedOut ? ' (the wait timed out)' : ''}:\n${result.running.map(statusLine).join('\n')}`);
      return childResult(parts.join('\n\n'), result.finished);
    },
  });
