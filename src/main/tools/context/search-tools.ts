/**
 * search_tools: find tools by name or purpose, and load the ones not loaded yet. Only the default families' schemas
 * are in a new conversation's requests; the others are listed in the system prompt by family and tool name. Found
 * here, a tool's family (or, for an MCP tool deferred by count, the tool alone) is offered from the next step on,
 * for the rest of the conversation. A query naming a family (`browser`, `pdf`, `mcp`) loads the whole family.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../runtime/tool';
import type { LoadState } from '../../runtime/prompt/tool-families';
import { enabledFamiliesOf } from '../../runtime/prompt/tool-families';

/** What search_tools needs of the registry: search every tool, loaded or not, and know what a turn loads. */
export interface ToolCatalog {
  search(query: string, limit?: number): ToolDefinition[];
  familyOf(name: string): string | undefined;
  familyTools(family: string): string[];
  families(): string[];
  lookup(name: string): ToolDefinition | undefined;
  loadState(name: string, turn: { conversationId: string; policy: 'none'; revealed: readonly string[]; slots?: Readonly<Record<string, unknown>>; enabled?: readonly string[] }): LoadState;
}

/** `browser`, `browser tools`, `the pdf family` → the family named, when there is one. */
function familyQuery(catalog: ToolCatalog, query: string): string | null {
  const words = query.toLowerCase().split(/[\s,]+/).filter((w) => w && !['the', 'tools', 'tool', 'family', 'load'].includes(w));
  if (words.length !== 1) return null;
  const alias: Record<string, string> = { tower: 'coordinator', 'computer-use': 'computer', pdfs: 'pdf', scheduling: 'schedule', reminders: 'schedule' };
  const name = alias[words[0]!] ?? words[0]!;
  return catalog.families().includes(name) ? name : null;
}

export const createSearchTools = (catalog: ToolCatalog) =>
  defineTool({
    name: 'search_tools',
    description:
      'Find tools by name, family or purpose (e.g. "pdf", "click") and load them from your next step on; also shows ' +
      'what a tool\'s description leaves out.',
    params: () => z
      .object({
        query: z.string().trim().min(1, { error: 'query is empty; pass words naming the tool or what it does' }).max(200).describe('A tool or family name, or what it does.'),
        max_results: z.number().int().min(1).max(25).optional().describe('Default 10.'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'Search the tools', icon: 'search', summary: (args) => args.query },
    async execute(args, ctx) {
      const family = familyQuery(catalog, args.query);
      const found = family
        ? catalog.familyTools(family).map((n) => catalog.lookup(n)!).filter(Boolean)
        : catalog.search(args.query, args.max_results ?? 10);
      if (found.length === 0) {
        return { output: `No tool matches "${args.query}". Try other words, fewer words, or a family name: ${catalog.families().join(', ')}.` };
      }
      const turn = { conversationId: ctx.conversationId, policy: 'none' as const, revealed: ctx.state.revealedTools, slots: ctx.state.slots, enabled: enabledFamiliesOf(ctx.state.slots) };
      const unloaded = (name: string) => catalog.loadState(name, turn) !== 'loaded';
      // A found tool loads its family, except an MCP tool deferred by count (a server may bring hundreds): alone.
      const toLoad = new Set<string>();
      for (const t of found) {
        if (!unloaded(t.name)) continue;
        if (t.deferred || family) toLoad.add(t.name);
        else for (const n of catalog.familyTools(catalog.familyOf(t.name) ?? '')) if (unloaded(n)) toLoad.add(n);
      }
      ctx.state.revealTools([...toLoad]);
      const lines = found.map((t) => {
        const note = toLoad.has(t.name) ? ' [revealed: callable from your next step]' : '';
        const more = t.details ? `\n  ${t.details}` : '';
        return `${t.name}${note}: ${t.description.split('\n')[0]!.slice(0, 300)}${more}`;
      });
      const extra = [...toLoad].filter((n) => !found.some((t) => t.name === n));
      if (extra.length) lines.push(`Also loaded with their families: ${extra.join(', ')}.`);
      return { output: lines.join('\n') };
    },
  });
