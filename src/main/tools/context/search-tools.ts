/**
 * search_tools: find tools by name or purpose, and reveal deferred ones. A deferred tool's schema is not in the
 * model's tool list (large tool sets would flood the context); once found here, it is offered from the next step on.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../runtime/tool';

/** What search_tools needs of the registry: search every tool, deferred ones included. */
export interface ToolCatalog {
  search(query: string, limit?: number): ToolDefinition[];
}

export const createSearchTools = (catalog: ToolCatalog) =>
  defineTool({
    name: 'search_tools',
    description:
      'Search the available tools by name or purpose (e.g. "pdf", "browser click", "mcp__github"). Some tools are ' +
      'deferred: their schemas are not listed until found here. Found deferred tools become callable from your next ' +
      'step; the result lists each match with its description and whether it was just revealed.',
    params: z
      .object({
        query: z.string().trim().min(1, { error: 'query is empty; pass words naming the tool or what it does' }).max(200).describe('Words naming the tool or what it does.'),
        max_results: z.number().int().min(1).max(25).optional().describe('At most this many matches (default 10).'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'Search the tools', icon: 'search', summary: (args) => args.query },
    async execute(args, ctx) {
      const found = catalog.search(args.query, args.max_results ?? 10);
      if (found.length === 0) return { output: `No tool matches "${args.query}". Try other words, or fewer.` };
      const revealed = found.filter((t) => t.deferred && !ctx.state.revealedTools.includes(t.name)).map((t) => t.name);
      ctx.state.revealTools(revealed);
      const lines = found.map((t) => {
        const note = t.deferred ? (revealed.includes(t.name) ? ' [revealed: callable from your next step]' : ' [revealed earlier]') : '';
        return `${t.name}${note}: ${t.description.split('\n')[0]!.slice(0, 300)}`;
      });
      return { output: lines.join('\n') };
    },
  });
