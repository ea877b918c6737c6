/**
 * Plan mode's state in a conversation's slots (Spec II). The hold that enforces it — its inspector, its filter, the
 * stricter form a subagent inherits — is the plan family's (tools/plan/hold.ts). While a conversation is in plan mode:
 * - the approval engine's `plan-mode` inspector denies every call that writes anywhere but the plan file or acts
 *   beyond `read-only` (a command the shell classifier does not judge read-only, a low- or high-risk tool), under
 *   every policy — a deny is the strictest verdict, so not even `high-risk` ("yolo") or a saved rule clears it;
 * - writes to exactly the plan file are allowed (it is the plan being written), still after containment's checks;
 * - the per-turn tool set (the hold's filter) hides tools that could only be refused, so the model does not see them.
 * Leaving plan mode needs the person to confirm the plan (exit_plan_mode opens a `plan` input request).
 * A subagent whose ancestor is in plan mode is held to it too (ceilings.ts), more strictly: it writes nothing, not
 * even the plan file (the plan is its parent's to write), and is offered only read-only tools.
 */

export const PLAN_MODE_SLOT = 'plan_mode';

/** The plan family's hold's name (tools/plan/hold.ts), which the subagents' hold also puts a state under. */
export const PLAN_MODE_HOLD = 'plan-mode';

/** What plan mode holds a conversation to: its plan file, and the conversation whose plan mode it inherits. */
export interface PlanModeHeld {
  planFile: string;
  inheritedFrom?: string;
}

/**
 * A subagent turn's check while an ancestor is in plan mode: only read-only tools are offered (no plan writers; the
 * plan family's own tools are read-only).
 */
export function inheritedPlanModeCheck(from: string): (tool: { name: string; risk: string }) => string | null {
  return (tool) =>
    tool.risk === 'read-only' || tool.risk === 'unknown'
      ? null
      : `plan mode is on in the conversation that started this subagent (${from}): ${tool.risk} tools wait until the person confirms the plan`;
}
export const PINNED_PLAN_SLOT = 'pinned_plan';

export interface PlanModeState {
  /** The absolute path of the plan file: the one file writes may reach while plan mode is on. */
  planFile: string;
  enteredAt: number;
}

export interface PinnedPlan {
  planFile: string;
  text: string;
  approvedAt: number;
  /** The option the person picked, when exit_plan_mode offered alternatives. */
  option?: string | null;
}

export function planModeOf(slots: Readonly<Record<string, unknown>> | undefined): PlanModeState | null {
  const v = slots?.[PLAN_MODE_SLOT] as Partial<PlanModeState> | undefined;
  return v && typeof v.planFile === 'string' && v.planFile ? { planFile: v.planFile, enteredAt: Number(v.enteredAt) || 0 } : null;
}

export function pinnedPlanOf(slots: Readonly<Record<string, unknown>> | undefined): PinnedPlan | null {
  const v = slots?.[PINNED_PLAN_SLOT] as Partial<PinnedPlan> | undefined;
  return v && typeof v.text === 'string' && typeof v.planFile === 'string' ? (v as PinnedPlan) : null;
}
