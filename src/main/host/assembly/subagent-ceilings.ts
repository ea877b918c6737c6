/**
 * A subagent's inherited ceilings, read fresh at every step of its run: the host walks from the child up through its
 * parents (subagent rows link each child to the conversation that started it) and reports the strictest of what it
 * finds — an ancestor in plan mode, the lowest policy, taint. The runtime applies them (ceilings.ts, plan-mode.ts);
 * the registry filter below hides what an ancestor's plan mode would refuse.
 */
import type { InheritedCeiling } from '../../runtime/ceilings';
import { lowerPolicyOf } from '../../runtime/ceilings';
import { inheritedPlanModeCheck, planModeOf } from '../../runtime/plan-mode';
import { peerCeilingOf } from '../../services/peers/index';
import type { Store } from '../../services/store/store';
import type { SubagentService } from '../../services/subagents/subagent-service';

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
export function inheritedCeiling(store: Store, subagents: Pick<SubagentService, 'byConversation'>, conversationId: string): InheritedCeiling | null {
  let row = subagents.byConversation(conversationId);
  if (!row) return null;
  const ceiling: InheritedCeiling = { planMode: null, policy: null, tainted: false, peer: null };
  const seen = new Set<string>([conversationId]);
  for (let depth = 0; row && depth < MAX_DEPTH; depth++) {
    const parentId = row.parent_conversation_id;
    if (seen.has(parentId)) break;
    seen.add(parentId);
    const parent = store.getConversation(parentId);
    if (!parent) break;
    ceiling.policy = ceiling.policy ? lowerPolicyOf(ceiling.policy, parent.policy) : parent.policy;
    if (parent.tainted === 1) ceiling.tainted = true;
    const plan = planModeOf(slotsOf(parent.state));
    if (plan && !ceiling.planMode) ceiling.planMode = { from: parentId, planFile: plan.planFile };
    if (!ceiling.peer) ceiling.peer = peerCeilingOf(store, parentId);
    row = subagents.byConversation(parentId);
  }
  return ceiling;
}

/** The registry filter's check for a child turn while an ancestor is in plan mode (null otherwise). */
export function inheritedPlanFilter(store: Store, subagents: Pick<SubagentService, 'byConversation'>, conversationId: string): ((tool: { name: string; risk: string }) => string | null) | null {
  const plan = inheritedCeiling(store, subagents, conversationId)?.planMode;
  return plan ? inheritedPlanModeCheck(plan.from) : null;
}
