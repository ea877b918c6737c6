/**
 * Goals and loops: propose_goal (the person accepts it: a `goal` input request), get_goal, set_goal_budget,
 * report_goal_cycle (evidence checked against the cited tool results) and end_loop. The loop itself (a turn per
 * cycle, within budgets) is driven by the host (host/background/goal-loop.ts).
 */
import { z } from 'zod';
import { DeskhandError, ToolError, errorMessage } from '../../../shared/errors';
import type { ContextSource } from '../../runtime/core';
import type { InputKind } from '../../runtime/loop/input-kinds';
import { lazy, type ToolFilter } from '../../runtime/registry';
import { defineTool, type ToolDefinition } from '../../runtime/tool';
import { DEFAULT_TURN_BUDGET, OBJECTIVE_VERDICTS, checkEvidence, describeBudget, describeEstimate, type EvidenceSource, type GoalBudget, type GoalService, type GoalView } from '../../services/goals';

export interface GoalDeps {
  goals: GoalService;
  evidence: EvidenceSource;
  /** The conversation is a subagent's (spawned by another run): it never proposes goals. */
  isSubagent?(conversationId: string): boolean;
}

const budgetSchema = z
  .strictObject({
    turns: z.number().int().min(1).max(1000).optional().describe('At most this many cycles (turns).'),
    tokens: z.number().int().min(1).optional().describe('At most this many model tokens over all cycles.'),
    minutes: z.number().min(1 / 60).max(24 * 60).optional().describe('At most this much wall time (1 second to 24 hours).'),
    cost_usd: z.number().positive().optional().describe('At most this much money, where the provider reports cost.'),
  })
  .describe('Budgets the person stated; a turn budget of 20 applies when none is given.');
type BudgetInput = z.infer<typeof budgetSchema>;

function toBudget(b: BudgetInput | undefined): GoalBudget {
  return {
    turns: b?.turns ?? DEFAULT_TURN_BUDGET,
    ...(b?.tokens !== undefined ? { tokens: b.tokens } : {}),
    ...(b?.minutes !== undefined ? { ms: Math.round(b.minutes * 60_000) } : {}),
    ...(b?.cost_usd !== undefined ? { cost: b.cost_usd } : {}),
  };
}

export function formatGoal(g: GoalView): string {
  const lines = [
    `Goal ${g.id} (${g.status}${g.endedReason ? `: ${g.endedReason}` : ''})`,
    `Objective: ${g.objective}`,
    ...g.criteria.map((c) => `- criterion: ${c}`),
    `Budget: ${describeBudget(g.budget, g.used)}`,
    `Consecutive blocked cycles: ${g.consecutiveBlocked}`,
    ...g.cycles.map((c) => `Cycle ${c.n}: ${c.reported}${c.summary ? ` — ${c.summary}` : ''}${c.evidence.length ? ` (evidence: ${c.evidence.map((e) => e.call_id).join(', ')})` : ''}`),
  ];
  return lines.join('\n');
}

const answerSchema = z.strictObject({ accept: z.literal(true), budget: budgetSchema.optional() });
export const goalKind: InputKind<z.infer<typeof answerSchema>> = {
  kind: 'goal',
  answer: answerSchema,
  accept: (value) => value,
  label: (data) => `Accept the goal "${String((data as { objective?: string })?.objective ?? '').slice(0, 60)}"`,
  example: '{"accept": true, "budget": {"turns": 5}}',
};

export function createGoalFamily(deps: GoalDeps): { tools: ToolDefinition[]; inputKinds: InputKind[]; filter: ToolFilter; contextSources: ContextSource[] } {
  const { goals } = deps;
  const activeOf = (conversationId: string) => {
    const g = goals.active(conversationId);
    if (!g) throw new ToolError('This conversation has no active goal.');
    return g;
  };
  const wrap = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (DeskhandError.isInstance(err) && !(err instanceof ToolError)) throw new ToolError(err.message);
      throw err instanceof ToolError ? err : new ToolError(errorMessage(err));
    }
  };

  const proposeGoal = defineTool({
    name: 'propose_goal',
    description:
      'Propose a goal for work that must continue over several turns: an objective, observable completion criteria, and any budget the person stated. ' +
      'Nothing runs until the person accepts it; then Deskhand runs it as a loop of turns (cycles) within its budgets. Not for questions or one-step requests. ' +
      'Offered only in a turn the person is present for (never to subagents or goal cycles); `replace: true` swaps the current goal for this one.',
    params: () => z
      .strictObject({
        objective: z.string().min(3).max(2000).describe('What must be true when the goal is done.'),
        criteria: z.array(z.string().min(1).max(500)).min(1).max(10).describe('Observable checks that prove completion.'),
        milestones: z.array(z.string().min(1).max(500)).max(10).optional().describe('Optional steps along the way.'),
        budget: budgetSchema.optional(),
        replace: z.boolean().optional().describe('true abandons the conversation\'s current goal for this one (once the person accepts); without it, proposing while a goal is open fails.'),
      }),
    risk: 'low-risk',
    disclosure: 'public',
    presentation: { title: 'Propose a goal', icon: 'task', summary: (a) => a.objective },
    input: (a, ctx) => {
      // Refused before the person is asked: a goal is open and the model did not say it replaces it.
      const open = ctx ? goals.open(ctx.conversationId) : null;
      if (open && !a.replace) {
        throw new ToolError(`This conversation already has a goal (${open.id}, ${open.status}: ${open.objective.slice(0, 80)}). Propose with replace: true to abandon it for this one (the person accepts the replacement), or finish it first.`);
      }
      const budget = toBudget(a.budget);
      // Shown on the acceptance card: what it may cost, from its plan and the recent cost per step.
      const estimate = ctx ? describeEstimate(goals.estimate(ctx.conversationId, { criteria: a.criteria.length, milestones: a.milestones?.length ?? 0, turns: budget.turns ?? DEFAULT_TURN_BUDGET })) : null;
      return {
        kind: 'goal',
        description: `Accept the goal: ${a.objective.slice(0, 120)}`,
        prompt: [...(a.replace ? ["Replaces this conversation's current goal (it ends when you accept this one)."] : []), `Objective: ${a.objective}`, 'Criteria:', ...a.criteria.map((c) => `- ${c}`), ...(a.milestones?.length ? ['Milestones:', ...a.milestones.map((m) => `- ${m}`)] : []), `Budget: ${describeBudget(budget, { turns: 0, tokens: 0, ms: 0, cost: 0 })}`, ...(estimate ? [estimate] : [])].join('\n'),
        data: { objective: a.objective, criteria: a.criteria, milestones: a.milestones ?? [], budget, replace: a.replace === true, ...(estimate ? { estimate } : {}) },
      };
    },
    async execute(args, ctx) {
      const answer = ctx.answer as z.infer<typeof answerSchema> | undefined;
      const budget = toBudget({ ...args.budget, ...answer?.budget });
      const replaced = args.replace ? goals.open(ctx.conversationId) : null;
      const g = wrap(() => goals.create(ctx.conversationId, { objective: args.objective, criteria: args.criteria, budget }, { replace: args.replace === true }));
      return { output: `The person accepted the goal.${replaced ? ` ${replaced.id} is ended (replaced).` : ''} ${g.id} is active (${describeBudget(g.budget, g.used)}). The loop starts its first cycle after this turn; end this turn now.` };
    },
  });

  const getGoal = defineTool({
    name: 'get_goal',
    description: 'Read the current goal: objective, criteria, status, budgets with what is used, and the cycle log. Returns "no goal" when there is none.',
    params: () => z.strictObject({}),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: { title: 'Read the goal', icon: 'task' },
    async execute(_a, ctx) {
      const g = goals.current(ctx.conversationId);
      return { output: g ? formatGoal(g) : 'This conversation has no goal.' };
    },
  });

  const setGoalBudget = defineTool({
    name: 'set_goal_budget',
    description:
      'Set a hard budget of the active goal, only when the person stated an explicit limit ("stop after 20 turns"): a positive value and a unit. ' +
      'Time budgets must be between 1 second and 24 hours. You may lower a budget or set one that is unset; only the person can raise one.',
    params: () => z.strictObject({
      value: z.number().positive().describe('The limit.'),
      unit: z.enum(['turns', 'tokens', 'milliseconds', 'seconds', 'minutes', 'hours', 'usd']).describe('The unit of the limit.'),
    }),
    // Deskhand's own bookkeeping of a goal the person accepted (it can only lower budgets or stop): read-only, so an
    // unattended cycle never parks on it. Spec I lists it low-risk; docs/tools.md records the difference.
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: { title: 'Set the goal budget', icon: 'task', summary: (a) => `${a.value} ${a.unit}` },
    async execute({ value, unit }, ctx) {
      const g = activeOf(ctx.conversationId);
      const factor = { milliseconds: 1, seconds: 1000, minutes: 60_000, hours: 3_600_000 } as Record<string, number>;
      let key: keyof GoalBudget;
      let v: number;
      if (unit in factor) {
        key = 'ms';
        v = Math.round(value * factor[unit]!);
        if (v < 1000 || v > 86_400_000) throw new ToolError(`A time budget must be between 1 second and 24 hours (got ${v} ms).`);
      } else if (unit === 'usd') [key, v] = ['cost', value];
      else [key, v] = [unit as 'turns' | 'tokens', Math.max(1, Math.round(value))];
      const next = wrap(() => goals.setBudget(g.id, key, v, false));
      return { output: `Budget: ${describeBudget(next.budget, next.used)}` };
    },
  });

  const reportGoalCycle = defineTool({
    name: 'report_goal_cycle',
    description:
      'At the end of a goal cycle, report where the goal stands: continue (with what you did), complete (needs evidence), blocked (a genuine impasse; ' +
      'the goal is blocked only after 3 consecutive blocked cycles, unless you give a `verdict` that the objective itself is impossible, unsafe or contradictory: then it blocks now), ' +
      'or question (you need the person: the loop stops, they are asked the question in `summary`, and it resumes once they answer). Evidence cites tool results of this conversation by their call id with a quote from each ' +
      'result\'s output; Deskhand checks every citation and rejects a claim with no matching result.',
    params: () => z.strictObject({
      status: z.enum(['continue', 'complete', 'blocked', 'question']).describe('continue, complete (needs evidence), blocked, or question (ask the person).'),
      summary: z.string().min(1).max(2000).describe('What this cycle did, what completes the goal, what blocks it, or the question for the person.'),
      verdict: z.enum(OBJECTIVE_VERDICTS).optional().describe('Only with blocked: the objective itself is impossible, unsafe or contradictory, so the goal blocks in this cycle.'),
      evidence: z
        .array(z.strictObject({ call_id: z.string().min(1).max(200).describe('The tool call id of a result in this conversation.'), quote: z.string().min(3).max(1000).describe('Text copied from that result\'s output.') }))
        .max(20)
        .optional()
        .describe('Required for complete.'),
    }),
    // Deskhand's own bookkeeping of a goal the person accepted (it can only lower budgets or stop): read-only, so an
    // unattended cycle never parks on it. Spec I lists it low-risk; docs/tools.md records the difference.
    risk: 'read-only',
    disclosure: 'public',
    presentation: { title: 'Report a goal cycle', icon: 'task', summary: (a) => a.status },
    async execute(args, ctx) {
      const g = activeOf(ctx.conversationId);
      const evidence = args.evidence ?? [];
      if (args.verdict && args.status !== 'blocked') throw new ToolError(`A verdict goes only with status blocked (got ${args.status}).`);
      if (args.status === 'complete' && !evidence.length) {
        throw new ToolError('A complete report needs evidence: cite the tool results (call_id and a quote from each output) that show the criteria hold.');
      }
      const problems = checkEvidence(ctx.conversationId, evidence, deps.evidence);
      if (problems.length) {
        throw new ToolError(`Evidence rejected, nothing was recorded:\n- ${problems.join('\n- ')}\nCite results that exist in this conversation and quote their output exactly, or report continue.`);
      }
      const { message } = wrap(() => goals.report(g.id, ctx.runId, { status: args.status, summary: args.summary, evidence, ...(args.verdict ? { verdict: args.verdict } : {}) }));
      return { output: message };
    },
  });

  const endLoop = defineTool({
    name: 'end_loop',
    description: 'End the goal loop this turn belongs to, with the reason shown to the person (the goal stops as ended). Only in goal cycles.',
    params: () => z.strictObject({ reason: z.string().min(1).max(1000).describe('Why the loop ends, shown to the person.') }),
    // Deskhand's own bookkeeping of a goal the person accepted (it can only lower budgets or stop): read-only, so an
    // unattended cycle never parks on it. Spec I lists it low-risk; docs/tools.md records the difference.
    risk: 'read-only',
    disclosure: 'public',
    presentation: { title: 'End the loop', icon: 'task', summary: (a) => a.reason },
    async execute({ reason }, ctx) {
      const g = activeOf(ctx.conversationId);
      if (!goals.isCycleRun(g.id, ctx.runId)) throw new ToolError('end_loop is only for goal cycles (turns the goal loop started).');
      wrap(() => goals.end(g.id, reason));
      return { output: 'The loop ends after this turn.' };
    },
  });

  const LOOP_TOOLS = new Set(['report_goal_cycle', 'end_loop', 'set_goal_budget']);
  const filter: ToolFilter = (turn) => {
    const active = lazy(() => goals.active(turn.conversationId) !== null);
    const subagent = lazy(() => deps.isSubagent?.(turn.conversationId) === true);
    return (tool) => {
      // Only a person's own top-level run proposes goals: never a subagent, a goal cycle or another unattended turn.
      if (tool.name === 'propose_goal') return subagent() ? 'subagents cannot propose goals' : turn.interactive === false ? 'only a turn a person is present for proposes goals' : null;
      if (LOOP_TOOLS.has(tool.name)) return active() ? null : 'there is no active goal';
      return null;
    };
  };
  const context: ContextSource = {
    name: 'goal',
    discloses: { tier: 'internal', reveals: [] },
    block: ({ conversationId }) => {
      const g = goals.active(conversationId);
      if (!g) return null;
      return `This conversation pursues a goal the person accepted (${g.id}): ${g.objective}\nCriteria:\n${g.criteria.map((c) => `- ${c}`).join('\n')}\nBudget: ${describeBudget(g.budget, g.used)}.`;
    },
  };
  return { tools: [proposeGoal, getGoal, setGoalBudget, reportGoalCycle, endLoop] as ToolDefinition[], inputKinds: [goalKind as InputKind], filter, contextSources: [context] };
}
