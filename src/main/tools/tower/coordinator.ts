/** The tower's own tools: start a session, plan missions (the person approves), spawn, merge behind the gate, tear down. */
import { z } from 'zod';
import { maxRisk } from '../../../shared/tools';
import { defineTool, type Classification, type EffectsContext } from '../../runtime/tool';
import type { MissionPlan, Tower } from '../../services/tower/index';
import { SUBAGENT_TYPE_NAME } from '../../services/subagents/index';
import type { TowerCommandKnowledge } from './command-knowledge';

const missionId = z.string().regex(/^[a-z][a-z0-9-]{0,30}$/, { error: 'a mission id is lowercase letters, digits and dashes, e.g. api' });
const ctxOf = (ctx: { runId: string; conversationId: string; callId: string; signal: AbortSignal }) => ({ runId: ctx.runId, conversationId: ctx.conversationId, callId: ctx.callId, signal: ctx.signal });

/**
 * The mission's tests command is a shell command the model chose: classified by the shell family's classifier as if
 * run in the repository, judged for the sandbox it runs in (the mission's worktree writable, network off), and always
 * asked: it runs at every tower_merge without a further question.
 */
export function testsCommandAssessment(command: string, ctx: EffectsContext, commands: TowerCommandKnowledge): Classification {
  const c = commands.classify(command, ctx);
  const base: Classification = {
    ...c,
    risk: maxRisk(c.risk, 'low-risk'),
    reasons: [`tests_command (${c.risk}): ${c.reasons.join('; ') || 'classified'}`, 'the tests command runs at every tower_merge, in the sandbox, in the mission\'s worktree'],
    rulePattern: null,
    alwaysAsk: c.alwaysAsk ? `tests_command: ${c.alwaysAsk}` : 'a Tower tests command runs at every merge without asking again',
  };
  // Always the sandbox plan tests run with, whatever this conversation's mode: workspace writable, no network.
  return commands.withSandbox(base, { network: false }, { sandbox: 'workspace-write' });
}

export const createTowerInit = (tower: Tower, commands: TowerCommandKnowledge) =>
  defineTool({
    name: 'tower_init',
    description:
      'Start coordinator mode (Tower) for the git repository of your working folder: records the base branch and commit and creates an integration branch in a worktree of Deskhand\'s own (your checkout is never touched). ' +
      'Then tower_plan the missions, tower_spawn workers, and tower_merge what passes review.',
    params: () => z
      .object({
        objective: z.string().trim().min(1).max(4000).describe('What the whole team is to achieve.'),
        tests_command: z.string().trim().max(2000).optional().describe('A shell command that must exit 0 in a mission\'s worktree before it merges (e.g. npm test). It runs in the OS sandbox (the worktree writable, no network); the person approves it.'),
      })
      .strict(),
    // Its tier; with a tests command the call is judged by that command (effects' assessment) and always asks.
    risk: 'low-risk',
    disclosure: 'internal',
    facts: { roles: ['tower-coordinator'] },
    presentation: { title: 'Start coordinator mode', icon: 'task', summary: (a) => (a.tests_command ? `${a.objective.slice(0, 60)} · tests: ${commands.visible(a.tests_command).slice(0, 80)}` : a.objective.slice(0, 80)) },
    effects: (args, ctx) => ({
      processes: true,
      ...(args.tests_command ? { assessment: testsCommandAssessment(args.tests_command, ctx, commands) } : {}),
    }),
    async execute(args, ctx) {
      const s = await tower.init({ conversationId: ctx.conversationId, cwd: ctx.state.cwd, objective: args.objective, ...(args.tests_command ? { testsCommand: args.tests_command } : {}) });
      return { output: `Tower ${s.id} started on ${s.repo}, base ${s.base_branch} at ${s.base_commit.slice(0, 10)}. Merges go to ${s.integration_branch}. Next: tower_plan.` };
    },
  });

const missionParam = z
  .object({
    id: missionId.describe('Short id: api, ui-forms…'),
    title: z.string().trim().min(1).max(200).describe('What the mission delivers.'),
    scope: z.array(z.string().trim().min(1).max(300)).min(1).max(20).describe('Globs (relative to the repository root) of the files this mission may change; no two missions may overlap.'),
    tasks: z.array(z.string().trim().min(1).max(500)).min(1).max(30).describe('The steps, in order.'),
    depends: z.array(missionId).max(20).optional().describe('Missions that must merge before this one starts.'),
  })
  .strict();

const toPlan = (m: z.infer<typeof missionParam>): MissionPlan => ({ id: m.id, title: m.title, scope: m.scope, tasks: m.tasks, ...(m.depends ? { depends: m.depends } : {}) });

export const createTowerPlan = (tower: Tower, commands: TowerCommandKnowledge) =>
  defineTool({
    name: 'tower_plan',
    description: 'Split the objective into missions with disjoint scope globs, tasks and dependencies. The person approves the plan before it takes effect; overlapping scopes, unknown or cyclic dependencies are refused.',
    params: () => z.object({ missions: z.array(missionParam).min(1).max(16).describe('The missions.') }).strict(),
    risk: 'high-risk',
    disclosure: 'private',
    facts: { roles: ['tower-coordinator'] },
    presentation: { title: 'Plan the missions', icon: 'task', summary: (a) => `${a.missions.length} missions` },
    // The plan is the person's decision under every policy.
    effects: () => ({ assessment: { risk: 'high-risk', reasons: ['a Tower plan decides what agents will change'], rulePattern: null, alwaysAsk: 'the person approves a mission plan' } }),
    pair: {
      executeName: 'execute_tower_plan',
      async propose(args, ctx) {
        const text = tower.checkPlan(args.missions.map(toPlan));
        const tests = tower.testsCommandOf(ctx.conversationId);
        const testsText = tests ? `\n\nTests command (runs in the sandbox in each mission's worktree, network off, before its merge):\n${commands.visible(tests)}` : '\n\nNo tests command.';
        return { description: `Approve a plan of ${args.missions.length} missions (each worker in its own worktree, edits held to its scope)${tests ? ', with a tests command' : ''}`, preview: `${text}${testsText}` };
      },
    },
    async execute(args, ctx) {
      const rows = tower.plan(ctx.conversationId, args.missions.map(toPlan));
      return { output: `Plan approved: ${rows.map((m) => m.id).join(', ')}. Spawn workers with tower_spawn {"role": "worker", "mission": "…"}.` };
    },
  });

export const createTowerSpawn = (tower: Tower) =>
  defineTool({
    name: 'tower_spawn',
    description:
      'Spawn a worker for a mission (in a new git worktree on its own branch, edits held to the mission\'s scope) or a reviewer for a mission\'s branch, as a background subagent. ' +
      'Spawning a worker again for the same mission continues in its worktree (e.g. after failing tests or a conflict).',
    params: () => z
      .object({
        role: z.enum(['worker', 'reviewer']).describe('worker builds the mission; reviewer reviews its branch and submits tower_review.'),
        mission: missionId.describe('The mission id.'),
        instructions: z.string().trim().max(20_000).optional().describe('Extra instructions for the agent.'),
        type: z.string().regex(SUBAGENT_TYPE_NAME, { error: 'type is an agent definition\'s name' }).optional().describe('Run it as this agent definition (the types spawn_subagent takes), held within the role: a reviewer stays read-only.'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'private',
    facts: { roles: ['tower-coordinator'] },
    presentation: { title: 'Spawn a Tower agent', icon: 'tool', summary: (a) => `${a.role}${a.type ? ` (${a.type})` : ''} for ${a.mission}` },
    effects: () => ({ processes: true }),
    timeoutMs: 5 * 60_000,
    async execute(args, ctx) {
      const a = await tower.spawn({ role: args.role, mission: args.mission, ...(args.instructions ? { instructions: args.instructions } : {}), ...(args.type ? { type: args.type } : {}) }, ctxOf(ctx));
      return { output: `Spawned ${a.id} (subagent ${a.subagent_id}) for mission ${a.mission_id} in the background. tower_status shows the roster; its end arrives as a background-task message.` };
    },
  });

export const createTowerMerge = (tower: Tower) =>
  defineTool({
    name: 'tower_merge',
    description:
      'Merge a mission\'s branch into the integration branch behind the review gate: its dependencies merged, every changed file inside its scope, its latest review approving and written against the branch tip, and the tests command passing in its worktree. ' +
      'A failing gate says why (failing tests send the worker back; a conflict aborts the merge and is escalated).',
    params: () => z.object({ mission: missionId.describe('The mission to merge.') }).strict(),
    risk: 'high-risk',
    disclosure: 'internal',
    facts: { roles: ['tower-coordinator'] },
    presentation: { title: 'Merge a mission', icon: 'task', summary: (a) => a.mission },
    effects: () => ({ processes: true }),
    timeoutMs: 15 * 60_000,
    async execute(args, ctx) {
      return { output: (await tower.merge(ctx.conversationId, args.mission)).message };
    },
  });

export const createTowerTeardown = (tower: Tower) =>
  defineTool({
    name: 'tower_teardown',
    description: 'End coordinator mode: stop every Tower agent and remove every worktree and mission branch Deskhand created; merged work stays on the integration branch.',
    params: () => z.object({ reason: z.string().trim().max(500).optional().describe('Why (recorded in the activity log).') }).strict(),
    risk: 'low-risk',
    disclosure: 'internal',
    facts: { roles: ['tower-coordinator'] },
    presentation: { title: 'End coordinator mode', icon: 'task' },
    effects: () => ({ processes: true }),
    timeoutMs: 5 * 60_000,
    async execute(args, ctx) {
      return { output: await tower.teardown(ctx.conversationId, args.reason ?? 'torn down by the tower') };
    },
  });
