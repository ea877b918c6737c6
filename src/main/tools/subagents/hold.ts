/**
 * The subagents' hold (runtime/decision/hold.ts): a child is held to its ceilings, read fresh at every step of its run. The
 * host walks from the child up through its parents (subagent rows link each child to the conversation that started
 * it) and reports the strictest of what it finds — an ancestor in plan mode, the lowest policy, taint, a peer's
 * ceiling (ceilings.ts). What the model is offered: at most the parent's tools, narrowed by the child's type
 * (`SubagentService.ceilingCheck`), and only read-only ones while an ancestor is in plan mode. What is refused: the
 * hold shapes the decision's input — the lower policy, the inherited taint, the ancestor's plan mode (judged by the
 * plan family's inspector in its stricter, inherited form) — and the peer ceiling judges the child's context.
 * Declared here (`holds`), beside the feature; the assembly registers it (host/assembly/holds.ts).
 */
import type { InheritedCeiling } from '../../runtime/decision/ceilings';
import { lowerPolicyOf } from '../../runtime/decision/ceilings';
import type { Hold, HoldDeclaration } from '../../runtime/decision/hold';
import { inheritedPlanModeCheck, PLAN_MODE_HOLD, planModeOf, type PlanModeHeld } from '../../runtime/decision/plan-mode';
import { peerCeilingOf } from '../../services/peers/index';
import type { Records } from '../../runtime/records';
import type { SubagentLookups } from '../../services/subagents/index';

/** Deeper trees than this are not made (children of children of …); the walk stops here whatever the rows say. */
const MAX_DEPTH = 32;

function slotsOf(state: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(state) as { slots?: Record<string, unknown> };
    return parsed && typeof parsed === 'object' ? parsed.slots : undefined;
  } catch {
    return undefined;
  }
}

/** What the ancestors of a conversation hold it to now; null for a conversation that is nobody's child. */
export function inheritedCeiling(records: Records, subagents: Pick<SubagentLookups, 'byConversation'>, conversationId: string): InheritedCeiling | null {
  let row = subagents.byConversation(conversationId);
  if (!row) return null;
  const ceiling: InheritedCeiling = { planMode: null, policy: null, tainted: false, peer: null };
  const seen = new Set<string>([conversationId]);
  for (let depth = 0; row && depth < MAX_DEPTH; depth++) {
    const parentId = row.parent_conversation_id;
    if (seen.has(parentId)) break;
    seen.add(parentId);
    const parent = records.getConversation(parentId);
    if (!parent) break;
    ceiling.policy = ceiling.policy ? lowerPolicyOf(ceiling.policy, parent.policy) : parent.policy;
    if (parent.tainted === 1) ceiling.tainted = true;
    const plan = planModeOf(slotsOf(parent.state));
    if (plan && !ceiling.planMode) ceiling.planMode = { from: parentId, planFile: plan.planFile };
    if (!ceiling.peer) ceiling.peer = peerCeilingOf(records, parentId);
    row = subagents.byConversation(parentId);
  }
  return ceiling;
}

export const SUBAGENT_CEILING_HOLD = 'subagent-ceiling';

/** The subagents' hold over the runtime's records and the subagent service (a child's tool ceiling). */
export function subagentCeilingHold(records: Records, subagents: SubagentLookups): Hold<InheritedCeiling> {
  return {
    name: SUBAGENT_CEILING_HOLD,
    stateOf: ({ conversationId }) => inheritedCeiling(records, subagents, conversationId),
    offer: (turn) => {
      const tools = subagents.ceilingCheck?.(turn.conversationId) ?? null;
      const plan = inheritedCeiling(records, subagents, turn.conversationId)?.planMode;
      const planCheck = plan ? inheritedPlanModeCheck(plan.from) : null;
      if (!tools && !planCheck) return null;
      return (tool) => tools?.(tool) ?? planCheck?.(tool) ?? null;
    },
    shape: (input, ceiling) => {
      // The one untrusted source of everything read: a subagent's inherited taint has none it can name.
      const taint = ceiling.tainted ? { tainted: true, taintOnly: null } : {};
      const held: PlanModeHeld | null = ceiling.planMode ? { planFile: ceiling.planMode.planFile, inheritedFrom: ceiling.planMode.from } : null;
      return {
        ...input,
        policy: lowerPolicyOf(input.policy, ceiling.policy),
        ...taint,
        ...(held ? { held: { ...input.held, [PLAN_MODE_HOLD]: held } } : {}),
      };
    },
    contextCeiling: (ceiling) => ceiling.peer ?? null,
  };
}

/** The subagents' declared holds: after plan mode, Tower's and the peer ceiling (their inspectors run first). */
export const holds: readonly HoldDeclaration[] = [{ order: 40, make: ({ records, subagents }) => subagentCeilingHold(records, subagents) }];
