import { z } from 'zod';
import { defineTool } from '../../runtime/tool';

export const contextInfo = defineTool({
  name: 'context_info',
  description:
    'Report how much of the context window this conversation uses (tokens of the last request and the window size) and how many messages it holds. Use it to decide whether to summarize or narrow what you read.',
  params: z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Check the context window', icon: 'info' },
  async execute(_args, ctx) {
    const { inputTokens, outputTokens, contextWindow, messages } = ctx.usage;
    const used = contextWindow > 0 ? Math.round((inputTokens / contextWindow) * 1000) / 10 : 0;
    return {
      output: JSON.stringify({ runInputTokens: inputTokens, runOutputTokens: outputTokens, contextWindow, percentUsed: used, messages, cwd: ctx.state.cwd }),
    };
  },
});
