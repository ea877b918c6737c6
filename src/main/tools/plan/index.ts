/**
 * Plan mode: enter_plan_mode and exit_plan_mode. The limits themselves are this family's hold (hold.ts: the approval
 * engine's plan-mode inspector and the per-turn tool filter, declared there and registered by the assembly); this family switches the mode, and leaving it
 * needs the person to confirm the plan (a `plan` input request: approve, or revise with feedback). The approved plan
 * is pinned into the conversation's state and shown to the model every turn from then on.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { ContentReader } from '../../../shared/content-reader';
import { DeskhandError, ToolError } from '../../../shared/errors';
import type { ContextSource } from '../../runtime/core';
import type { InputKind } from '../../runtime/loop/input-kinds';
import { PINNED_PLAN_SLOT, PLAN_MODE_SLOT, planModeOf, pinnedPlanOf, type PinnedPlan, type PlanModeState } from '../../runtime/decision/plan-mode';
import { defineTool, type ToolDefinition } from '../../runtime/tool';

const MAX_PLAN_BYTES = 100_000;
const PINNED_CONTEXT_CHARS = 8_000;

/** The plan file of a conversation: inside its working folder, so the ordinary containment checks apply to it. */
export function planFileFor(folder: string, conversationId: string): string {
  return join(folder, '.deskhand', 'plans', `plan-${conversationId.replace(/^conv_/, '').slice(0, 8)}.md`);
}

/**
 * The plan file, read through the guarded reader: it must be a real file inside its `.deskhand/plans` folder (a plan
 * file turned into a link to a credential or outside its folder is refused: it would be shown and pinned).
 */
function readPlan(reader: ContentReader, path: string): string | null {
  const plans = dirname(path);
  const folder = dirname(dirname(plans));
  try {
    return reader.read(path, { roots: [folder], within: plans, anchor: folder, maxBytes: 4 * MAX_PLAN_BYTES }).text.slice(0, MAX_PLAN_BYTES);
  } catch (err) {
    if (DeskhandError.isInstance(err) && err.code === 'not_found') return null;
    throw new ToolError(`The plan file was not read: ${(err as Error).message}`, 'denied');
  }
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

interface PlanRequestData {
  planFile: string;
  plan: string;
  sha256: string;
  options: { label: string; description: string }[];
}

const RESERVED = /^(approve|reject|reject and exit|revise)$/i;
const planAnswer = z.strictObject({
  decision: z.enum(['approve', 'revise']),
  feedback: z.string().max(4000).optional(),
  option: z.string().max(80).optional(),
});
type PlanAnswer = z.infer<typeof planAnswer>;

export const planKind: InputKind<PlanAnswer> = {
  kind: 'plan',
  answer: planAnswer,
  accept(value, data) {
    const d = data as PlanRequestData;
    if (value.decision === 'revise' && !value.feedback?.trim()) throw new DeskhandError('usage', 'Say what to revise: {"decision": "revise", "feedback": "…"}.');
    if (value.option !== undefined && !d.options.some((o) => o.label === value.option)) {
      throw new DeskhandError('usage', `"${value.option}" is not one of the offered approaches (${d.options.map((o) => o.label).join(', ') || 'none were offered'}).`);
    }
    return value;
  },
  label: () => 'Confirm the plan',
  example: '{"decision": "approve"} or {"decision": "revise", "feedback": "also update the tests"}',
};

export function createPlanFamily(reader: ContentReader): { tools: ToolDefinition[]; inputKinds: InputKind[]; contextSources: ContextSource[] } {
  const enterPlanMode = defineTool({
    name: 'enter_plan_mode',
    description:
      'Enter plan mode before a change that deserves a plan. While it is on, writes and edits reach only the plan file (returned) and only read-only tools and commands run; ' +
      'the runtime enforces this under every approval policy. Write the plan to the plan file, then call exit_plan_mode: the person confirms it before you act.',
    params: () => z.strictObject({}),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: { title: 'Enter plan mode', icon: 'todo' },
    async execute(_a, ctx) {
      if (planModeOf(ctx.state.slots)) throw new ToolError('Plan mode is already on.');
      const planFile = planFileFor(ctx.state.workspaceRoots[0] ?? ctx.state.cwd, ctx.conversationId);
      const state: PlanModeState = { planFile, enteredAt: Date.now() };
      ctx.state.slots[PLAN_MODE_SLOT] = state;
      return {
        output:
          `Plan mode is on. Plan file: ${planFile}\n` +
          'Investigate with read-only tools, write the plan to the plan file with write_file (or edit_file), then call exit_plan_mode with plan_file set to that path. ' +
          'Writes anywhere else and commands that are not read-only are refused until the person confirms the plan.',
      };
    },
  });

  const exitPlanMode = defineTool({
    name: 'exit_plan_mode',
    description:
      'Present the plan file to the person for approval and leave plan mode when they approve it (they may ask for revisions instead). ' +
      'Optionally offer 1–3 alternative approaches (label ≤ 80 characters, unique, not Approve/Reject/Revise).',
    params: () => z.strictObject({
      plan_file: z.string().regex(/[/\\]\.deskhand[/\\]plans[/\\]plan-[^/\\]+\.md$/, 'must be the plan file enter_plan_mode returned').describe('The plan file enter_plan_mode returned.'),
      options: z
        .array(z.strictObject({ label: z.string().min(1).max(80).refine((l) => !RESERVED.test(l.trim()), 'reserved label').describe('Short name of the approach.'), description: z.string().max(1000).describe('What this approach does differently.') }))
        .min(1)
        .max(3)
        .refine((o) => new Set(o.map((x) => x.label)).size === o.length, 'labels must be unique')
        .optional()
        .describe('1–3 alternative approaches for the person to choose from (each a label of at most 80 characters and a description).'),
    }),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    effects: (a) => ({ paths: { read: [a.plan_file] } }),
    presentation: { title: 'Ask to confirm the plan', icon: 'todo', result: 'markdown' },
    input: (a) => {
      // Spec II: with no plan written there is nothing to approve: the call fails (the model hears why) and nobody is
      // asked to approve an empty plan. A plan file that cannot be read (a link swapped in) fails the same way.
      const plan = readPlan(reader, a.plan_file);
      if (plan === null) {
        throw new ToolError(`There is no plan file yet: ${a.plan_file} does not exist. Write the plan there with write_file, then call exit_plan_mode again.`, 'not_found');
      }
      if (!plan.trim()) throw new ToolError(`The plan file ${a.plan_file} is empty. Write the plan there with write_file, then call exit_plan_mode again.`, 'invalid_args');
      const data: PlanRequestData = { planFile: a.plan_file, plan, sha256: sha(plan), options: a.options ?? [] };
      return { kind: 'plan', description: 'Confirm the plan before the agent acts', prompt: plan, data };
    },
    async execute(a, ctx) {
      const mode = planModeOf(ctx.state.slots);
      if (!mode) throw new ToolError('Plan mode is not on.');
      if (mode.planFile !== a.plan_file) throw new ToolError(`That is not this conversation's plan file; it is ${mode.planFile}.`);
      const answer = ctx.answer as PlanAnswer | undefined;
      const plan = readPlan(reader, a.plan_file);
      if (!plan?.trim()) throw new ToolError(`The plan file ${a.plan_file} is missing or empty. Write the plan there first.`);
      if (answer?.decision === 'revise') {
        return { output: `The person asked for revisions: ${answer.feedback ?? ''}\nYou are still in plan mode. Update the plan file and call exit_plan_mode again.` };
      }
      const pinned: PinnedPlan = { planFile: a.plan_file, text: plan, approvedAt: Date.now(), option: answer?.option ?? null };
      delete ctx.state.slots[PLAN_MODE_SLOT];
      ctx.state.slots[PINNED_PLAN_SLOT] = pinned;
      return { output: `The person approved the plan${pinned.option ? ` (approach: ${pinned.option})` : ''}. Plan mode is off; carry out the plan. It is pinned to this conversation.` };
    },
  });

  const planBlock: ContextSource['block'] = ({ slots }) => {
    const mode = planModeOf(slots);
    if (mode) {
      return `Plan mode is on. Plan file: ${mode.planFile}. Only read-only tools and commands run, and writes reach only the plan file; call exit_plan_mode with plan_file when the plan is ready for the person.`;
    }
    const pinned = pinnedPlanOf(slots);
    if (!pinned) return null;
    const text = pinned.text.length > PINNED_CONTEXT_CHARS ? `${pinned.text.slice(0, PINNED_CONTEXT_CHARS)}\n[… the rest is in ${pinned.planFile}]` : pinned.text;
    return `The plan the person approved (pinned; ${pinned.planFile}):\n${text}`;
  };
  const context: ContextSource = { name: 'plan', discloses: { tier: 'internal', reveals: [] }, block: planBlock };

  return { tools: [enterPlanMode, exitPlanMode] as ToolDefinition[], inputKinds: [planKind as InputKind], contextSources: [context] };
}
