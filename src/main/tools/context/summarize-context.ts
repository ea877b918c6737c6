import { z } from 'zod';
import { defineTool } from '../../runtime/tool';

/** What summarize_context needs of the runtime: compact this conversation now, with the run's model. */
export interface Compactor {
  compact(conversationId: string, runId: string, focus: string | undefined, signal: AbortSignal): Promise<{ compacted: boolean; message: string }>;
  /** A message a compaction dropped from this conversation's context, whole (retrieve_tool_result's `msg_N`), or null. */
  dropped?(conversationId: string, messageId: number): { text: string; untrusted: boolean } | null;
}

export const createSummarizeContext = (compactor: Compactor) =>
  defineTool({
    name: 'summarize_context',
    facts: { loadsWith: 'results' },
    description:
      'Compact this conversation now: older messages are summarized by the model and replaced by the summary in your later requests (the plan, todos, work state, open tasks and the last turns are kept verbatim; the full transcript stays stored). focus names what the summary must keep. Deskhand also does this automatically at compactAtTokens (context_info).',
    params: () => z.object({ focus: z.string().trim().max(2000).optional().describe('What the summary must keep in particular.') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Summarize the context', icon: 'info' },
    async execute(args, ctx) {
      const result = await compactor.compact(ctx.conversationId, ctx.runId, args.focus, ctx.signal);
      return { output: result.message };
    },
  });
