import { z } from 'zod';
import { defineTool } from '../../runtime/tool';

/**
 * Spec I: context_info reports the window's use and "the usage at which history is compacted". The figures are
 * estimates of what the next request carries (history after compaction, about 4 characters a token), since a request
 * is judged before it is sent; the run's provider-reported token totals are given beside them.
 */
export const contextInfo = defineTool({
  name: 'context_info',
  facts: { loadsWith: 'session' },
  description:
    'Report how much of the context window this conversation uses (estimated tokens of the next request, the window size, percent used) and compactAtTokens: the use at which older history is summarized automatically (the plan, todos, work state, open tasks and last turns are kept). Also the run\'s token totals, how many compactions ran, and the project instruction files (AGENTS.md/CLAUDE.md) in the system prompt: paths, sizes, cut, untrusted, refused.',
  params: () => z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Check the context window', icon: 'info' },
  async execute(_args, ctx) {
    const { inputTokens, outputTokens, contextWindow, messages } = ctx.usage;
    const figures = ctx.usage.figures?.() ?? { contextTokens: inputTokens, contextWindow, compactAtTokens: Math.floor(contextWindow * 0.8), compactions: 0 };
    const used = figures.contextWindow > 0 ? Math.round((figures.contextTokens / figures.contextWindow) * 1000) / 10 : 0;
    return {
      output: JSON.stringify({
        contextTokens: figures.contextTokens,
        contextWindow: figures.contextWindow,
        percentUsed: used,
        compactAtTokens: figures.compactAtTokens,
        compactions: figures.compactions,
        runInputTokens: inputTokens,
        runOutputTokens: outputTokens,
        messages,
        cwd: ctx.state.cwd,
        instructions: ctx.usage.instructions?.() ?? null,
      }),
    };
  },
});
