import { z } from 'zod';
import { defineTool } from '../../runtime/tool';

/**
 * Spec I: context_info reports "the usage at which history is compacted". Deskhand does not compact history yet, so
 * there is no such threshold: the answer says so (compactAtTokens null) and the context window is the hard limit.
 */
const NO_COMPACTION = 'History is not compacted yet: the context window is the hard limit. Summarize your findings with update_work_state and read narrowly as it fills.';

export const contextInfo = defineTool({
  name: 'context_info',
  description:
    'Report how much of the context window this conversation uses (tokens of the last request and the window size) and how many messages it holds, and the usage at which history would be compacted (compactAtTokens; null while Deskhand does not compact). Use it to decide whether to summarize or narrow what you read.',
  params: z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Check the context window', icon: 'info' },
  async execute(_args, ctx) {
    const { inputTokens, outputTokens, contextWindow, messages } = ctx.usage;
    const used = contextWindow > 0 ? Math.round((inputTokens / contextWindow) * 1000) / 10 : 0;
    return {
      output: JSON.stringify({
        runInputTokens: inputTokens,
        runOutputTokens: outputTokens,
        contextWindow,
        percentUsed: used,
        compactAtTokens: null,
        compaction: NO_COMPACTION,
        messages,
        cwd: ctx.state.cwd,
      }),
    };
  },
});
