import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { Subagents } from '../../services/subagents/index';
import { callContext, childResult, limitParams, limitsOf, resultSchemaParam, typeParam } from './shared';

const PREVIEW = 2000;

export const createMapSubagents = (subagents: Subagents) =>
  defineTool({
    name: 'map_subagents',
    description:
      'Run one brief over a list of inputs (up to 100): one subagent per item, {{input}} in prompt_template marks where each item goes. ' +
      'At most max_concurrency run at once (the rest queue); the call waits for all and returns each child\'s status and answer in item order. ' +
      'Children share type, limits and result_schema.',
    params: z
      .object({
        prompt_template: z.string().trim().min(1).max(50_000).describe('The brief, with {{input}} where each item goes.'),
        items: z.array(z.string().max(20_000)).min(1, { error: 'items is empty' }).max(100, { error: 'at most 100 items; split the list' }).describe('One child per item.'),
        description: z.string().trim().min(1).max(100).describe('3–5 words naming the batch.'),
        type: typeParam,
        max_concurrency: z.number().int().min(1).max(32).optional().describe('Children at once (default and cap: Deskhand\'s live-children limit).'),
        result_schema: resultSchemaParam,
        ...limitParams,
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Run subagents over a list', icon: 'tool', summary: (a) => `${a.description} (${a.items.length} items)` },
    timeoutMs: 4 * 3600_000,
    async execute(args, ctx) {
      const rows = await subagents.map(
        {
          promptTemplate: args.prompt_template,
          items: args.items,
          description: args.description,
          ...(args.type ? { type: args.type } : {}),
          ...(args.result_schema ? { resultSchema: args.result_schema } : {}),
          ...(args.max_concurrency ? { maxConcurrency: args.max_concurrency } : {}),
          limits: limitsOf(args),
        },
        callContext(ctx),
      );
      const ok = rows.filter((r) => r.status === 'finished').length;
      const lines = rows.map((r, i) => {
        const body = (r.status === 'finished' ? r.result : r.error) ?? '';
        const cut = body.length > PREVIEW ? `${body.slice(0, PREVIEW)} [… ${body.length - PREVIEW} more characters: wait_subagents {"ids":["${r.id}"]} shows it whole]` : body;
        return `#${i + 1} ${r.id} ${r.status}: ${cut}`;
      });
      return childResult(`${ok}/${rows.length} children finished.\n${lines.join('\n')}`, rows);
    },
  });
