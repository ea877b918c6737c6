/**
 * `workflow`: start a workflow — a catalog one by name, or an inline JavaScript script — that orchestrates subagents
 * in phases. Returns at once with the run and task ids; the run goes on in the background and its result arrives as
 * a message in a later turn. The approval shows the phases, the whole script, the resolved limits and a token
 * warning; the tool is high-risk, so every call is reviewed by a person below the high-risk policy.
 */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { CATALOG, catalogEntry, phasesOf, type Workflows } from '../../services/workflows/index';
import type { WorkflowLimits } from '../../services/workflows/index';

const params = () => z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .optional()
      .describe(`A catalog workflow: ${CATALOG.map((w) => `${w.name} (${w.description} args: ${w.argsHelp})`).join('; ')}.`),
    script: z
      .string()
      .max(100_000)
      .optional()
      .describe(
        'An inline workflow: JavaScript, the body of an async function (use await; return the result). Globals: args (string); ' +
          'phase(name, async () => value) runs and records a phase; progress(text); log(...); agent(prompt, {description, type, result_schema}) runs a subagent and returns its answer; ' +
          'spawn(prompt, opts) → {id}; wait(ids) → [{id,status,result,error}]; map(items, template with {{input}}, opts) → [{id,status,result,error}]; ' +
          'steer(id, message); cancel(id); blackboard.post(topic, body) / blackboard.read({topic}); ask(question?, options) asks the person; sleep(ms); budget(). ' +
          'No require, process, files or network: only this API.',
      ),
    args: z.string().max(20_000).optional().describe('Passed to the script as its args value (for deep-research: the question).'),
    max_minutes: z.number().positive().max(480).optional().describe('Stop the whole run after this many minutes.'),
    max_tokens: z.number().int().positive().optional().describe('Stop the run when its agents together used this many tokens.'),
    max_cost_usd: z.number().positive().optional().describe('Stop the run when its estimated cost passes this (USD).'),
    max_agents: z.number().int().positive().max(500).optional().describe('At most this many subagents in all.'),
    max_concurrency: z.number().int().positive().max(16).optional().describe('At most this many subagents at once.'),
  })
  .strict();

type Args = z.infer<ReturnType<typeof params>>;

function limitsOf(a: Args): Partial<WorkflowLimits> {
  return {
    ...(a.max_minutes !== undefined ? { maxMinutes: a.max_minutes } : {}),
    ...(a.max_tokens !== undefined ? { maxTokens: a.max_tokens } : {}),
    ...(a.max_cost_usd !== undefined ? { maxCostUSD: a.max_cost_usd } : {}),
    ...(a.max_agents !== undefined ? { maxAgents: a.max_agents } : {}),
    ...(a.max_concurrency !== undefined ? { maxConcurrency: a.max_concurrency } : {}),
  };
}

const input = (a: Args) => ({ ...(a.name !== undefined ? { name: a.name } : {}), ...(a.script !== undefined ? { script: a.script } : {}), ...(a.args !== undefined ? { args: a.args } : {}), limits: limitsOf(a) });

/** What the person reviews: meta, phases, limits, the token warning and the whole script. */
export function workflowPreview(workflows: Pick<Workflows, 'resolve'>, a: Args): { description: string; preview: string } {
  const r = workflows.resolve(input(a));
  const entry = r.name ? catalogEntry(r.name) : undefined;
  const phases = phasesOf(r.script);
  const l = r.limits;
  const preview = [
    `Workflow: ${r.name ?? 'inline script'}${entry ? ` — ${entry.description}` : ''}`,
    `Args: ${r.args === '' ? '(none)' : r.args}`,
    `Phases: ${phases.length ? phases.join(' → ') : '(the script names none)'}`,
    `Limits: ${l.maxMinutes} minutes, ${l.maxTokens.toLocaleString('en-US')} tokens, $${l.maxCostUSD} estimated cost, ${l.maxAgents} agents in all, ${l.maxConcurrency} at once`,
    `Warning: a workflow runs many agents in the background and can use up to ${l.maxTokens.toLocaleString('en-US')} tokens (about $${l.maxCostUSD}) before it is stopped. Each agent's own tool calls are approved as usual.`,
    '--- script ---',
    r.script,
  ].join('\n');
  return { description: `Run the workflow ${r.name ?? '(inline script)'} in the background${phases.length ? ` (${phases.length} phases)` : ''}, up to ${l.maxAgents} agents`, preview };
}

export const createWorkflowTool = (workflows: Workflows) =>
  defineTool({
    name: 'workflow',
    description:
      'Start a workflow: a script that orchestrates subagents in phases, for large multi-part tasks (deep research, parallel reviews). ' +
      'Give exactly one of name (a catalog workflow) or script (inline JavaScript), plus args. The call returns at once with the run and task ids; ' +
      'the workflow runs in the background and its result arrives as a message in a later turn (task_output shows its progress, cancel_background_jobs stops it and every agent it started). ' +
      'The person reviews every workflow (phases, script, limits) before it starts.',
    params,
    risk: 'high-risk',
    disclosure: 'private',
    presentation: { title: 'Run a workflow', icon: 'task', summary: (a) => `${a.name ?? 'inline script'}${a.args ? `: ${a.args.slice(0, 80)}` : ''}` },
    pair: {
      executeName: 'execute_workflow',
      async propose(args) {
        return workflowPreview(workflows, args);
      },
    },
    async execute(args, ctx) {
      const open = ctx.openBackgroundRequest;
      const row = workflows.start(input(args), {
        runId: ctx.runId,
        conversationId: ctx.conversationId,
        callId: ctx.callId,
        ...(open ? { openBackgroundRequest: (spec) => open(spec) } : {}),
      });
      return {
        output:
          `Started workflow ${row.id} (${row.name ?? 'inline script'}) in the background as task ${row.task_id}. ` +
          `Its result arrives as a message when it ends; task_output {"id": "${row.task_id}"} shows its phases and progress, cancel_background_jobs {"ids": ["${row.task_id}"]} stops it and every agent it started.`,
      };
    },
  });
