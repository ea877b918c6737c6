import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { describeChild, type Subagents } from '../../services/subagents/index';
import { callContext, childResult, limitParams, limitsOf, modelOf, modelParams, providerEffects, resultSchemaParam, typeParam } from './shared';

export const createSpawnSubagent = (subagents: Subagents) =>
  defineTool({
    name: 'spawn_subagent',
    claudeCodeName: 'Task',
    description:
      'Delegate a self-contained task to a subagent: a fresh conversation with at most your tools and your policy (type explore: read-only tools only). ' +
      'Without background the call waits and returns the child\'s answer; with background: true it returns the child\'s id at once (a background task: wait_subagents, wait_tasks, task_output, cancel_background_jobs). ' +
      'resume: the id of a finished child to continue it with a new prompt. result_schema: the JSON Schema its answer must match. Give the child everything it needs in prompt: it does not see this conversation.',
    params: () => z
      .object({
        prompt: z.string().trim().min(1, { error: 'prompt is empty; describe the whole task for the child' }).max(100_000).describe('The complete task: the child sees nothing else of this conversation.'),
        description: z.string().trim().min(1).max(120).describe('3–5 words naming the task (shown in lists and approvals).'),
        type: typeParam,
        background: z.boolean().optional().describe('Return the id at once and run the child as a background task.'),
        resume: z.string().regex(/^sub_[0-9a-f]{8}$/, { error: 'resume takes a subagent id such as sub_0123abcd' }).optional().describe('Continue this finished child with the new prompt.'),
        result_schema: resultSchemaParam,
        ...modelParams,
        ...limitParams,
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { parentOnly: true, bookkeeping: true },
    effects: (a, ctx) => providerEffects(subagents, 'spawn_subagent', a, ctx),
    presentation: { title: 'Delegate to a subagent', icon: 'tool', summary: (a) => (a.provider ? `${a.description} (on ${a.provider})` : a.description) },
    // A foreground child waits for its own approvals; its minutes limit stops it.
    timeoutMs: 4 * 3600_000,
    async execute(args, ctx) {
      const row = await subagents.spawn(
        {
          prompt: args.prompt,
          description: args.description,
          ...(args.type ? { type: args.type } : {}),
          ...(args.background ? { background: true } : {}),
          ...(args.resume ? { resume: args.resume } : {}),
          ...(args.result_schema ? { resultSchema: args.result_schema } : {}),
          limits: limitsOf(args),
          ...modelOf(args),
        },
        callContext(ctx),
      );
      if (args.background) {
        return { output: `Started subagent ${row.id} in the background (task ${row.task_id}). Collect its answer with wait_subagents {"ids":["${row.id}"]}; steer it with steer_subagent.` };
      }
      return childResult(describeChild(row), [row]);
    },
  });
