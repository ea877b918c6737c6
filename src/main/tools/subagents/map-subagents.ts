import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { MAX_MAP_CHILDREN, type Subagents } from '../../services/subagents/index';
import { callContext, childResult, limitParams, limitsOf, modelOf, modelParams, providerEffects, resultSchemaParam, typeParam } from './shared';

const PREVIEW = 2000;

export const createMapSubagents = (subagents: Subagents) =>
  defineTool({
    name: 'map_subagents',
    description:
      `Run one brief over a list of inputs: one subagent per item, {{input}} in prompt_template marks where each item goes; resume_ids continues earlier (ended) children in the same batch, each with resume_prompt. At most ${MAX_MAP_CHILDREN} children per call. ` +
      'At most max_concurrency run at once (the rest queue); the call waits for all and returns each child\'s status and answer in order (resumed first, then the items). ' +
      'Children share type, limits and result_schema (resumed ones keep their own type).',
    params: () => z
      .object({
        prompt_template: z.string().trim().min(1).max(50_000).describe('The brief, with {{input}} where each item goes.'),
        items: z.array(z.string().max(20_000)).max(MAX_MAP_CHILDREN, { error: `at most ${MAX_MAP_CHILDREN} items; split the list` }).default([]).describe('One new child per item.'),
        resume_ids: z
          .array(z.string().regex(/^sub_[0-9a-f]{8}$/, { error: 'resume_ids takes subagent ids such as sub_0123abcd' }))
          .max(MAX_MAP_CHILDREN)
          .optional()
          .describe('Earlier children of this conversation (ended) to continue in this batch.'),
        resume_prompt: z.string().trim().min(1).max(50_000).optional().describe('What each resumed child does now (default: prompt_template without {{input}}).'),
        description: z.string().trim().min(1).max(100).describe('3–5 words naming the batch.'),
        type: typeParam,
        max_concurrency: z.number().int().min(1).max(32).optional().describe('Children at once (default and cap: Deskhand\'s live-children limit).'),
        result_schema: resultSchemaParam,
        ...modelParams,
        ...limitParams,
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { parentOnly: true, reaches: ['conversations'] },
    effects: (a, ctx) => providerEffects(subagents, 'map_subagents', a, ctx),
    presentation: { title: 'Run subagents over a list', icon: 'tool', summary: (a) => `${a.description} (${a.items.length} items${a.resume_ids?.length ? `, ${a.resume_ids.length} resumed` : ''})` },
    timeoutMs: 4 * 3600_000,
    async execute(args, ctx) {
      const rows = await subagents.map(
        {
          promptTemplate: args.prompt_template,
          items: args.items,
          ...(args.resume_ids?.length ? { resumeIds: args.resume_ids } : {}),
          ...(args.resume_prompt ? { resumePrompt: args.resume_prompt } : {}),
          description: args.description,
          ...(args.type ? { type: args.type } : {}),
          ...(args.result_schema ? { resultSchema: args.result_schema } : {}),
          ...(args.max_concurrency ? { maxConcurrency: args.max_concurrency } : {}),
          limits: limitsOf(args),
          ...modelOf(args),
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
