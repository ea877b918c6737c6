/**
 * Plan mode as a hold (runtime/decision/hold.ts), the plan family's one plug: the conversation's state (its plan file, from
 * the `plan_mode` slot, or the one an ancestor's plan mode puts on a subagent: runtime/decision/ceilings.ts), what the model is
 * offered (tools plan mode would only refuse are hidden; exit_plan_mode only in plan mode), and what is refused:
 * - every call that writes anywhere but the plan file or acts beyond `read-only` (a command the shell classifier does
 *   not judge read-only, a low- or high-risk tool), under every policy — a deny is the strictest verdict, so not even
 *   `high-risk` ("yolo") or a saved rule clears it; writes to exactly the plan file are allowed;
 * - in a subagent of a conversation in plan mode, every write (not even the plan file: it is the parent's to write)
 *   and every call beyond read-only.
 */
import { resolve } from 'node:path';
import type { Hold, HoldDeclaration } from '../../runtime/decision/hold';
import type { Facts, InspectorReport } from '../../runtime/decision/inspector';
import { inheritedPlanModeCheck, PLAN_MODE_HOLD, planModeOf, type PlanModeHeld } from '../../runtime/decision/plan-mode';
import type { ToolFilter } from '../../runtime/registry';
import type { Effects, ToolDefinition } from '../../runtime/tool';

export { inheritedPlanModeCheck, PLAN_MODE_HOLD, type PlanModeHeld };

/** Tools that manage plan mode itself; never refused by it. */
const PLAN_TOOLS = new Set(['enter_plan_mode', 'exit_plan_mode']);

/** The tier a call acts at: a command's assessed risk, else its tool's. */
const acting = (effects: Effects, tool: ToolDefinition): string => effects.assessment?.risk ?? tool.risk;

const report = (verdict: InspectorReport['verdict'], reasons: string[]): InspectorReport => ({ inspector: PLAN_MODE_HOLD, verdict, reasons });

function inspectPlanMode({ tool, effects, ctx }: Parameters<NonNullable<Hold['inspect']>>[0], facts: Facts, planMode: PlanModeHeld | null): InspectorReport {
  // Entering plan mode only narrows what may run, so it needs nobody's approval (Spec II: auto-allow).
  if (tool.name === 'enter_plan_mode') return report('allow', ['entering plan mode only narrows what may run']);
  if (!planMode) return report('pass', []);
  if (PLAN_TOOLS.has(tool.name)) return report('pass', ['plan mode: a plan-mode tool']);
  const plan = planMode.planFile;
  const inherited = planMode.inheritedFrom;
  const writes = [
    ...(effects.paths?.write ?? []).filter((p): p is string => typeof p === 'string' && p !== '').map((p) => resolve(ctx.cwd, p)),
    ...facts.paths.filter((p) => p.access === 'write' && !p.error).map((p) => p.resolved),
  ];
  if (inherited && writes.length) {
    return report('deny', [
      `plan mode is on in the conversation that started this subagent (${inherited}): a subagent writes nothing, not ${writes[0]}, until the person confirms the plan. Report what should change in your answer instead`,
    ]);
  }
  if (inherited && (acting(effects, tool) !== 'read-only' || effects.egress)) {
    return report('deny', [
      `plan mode is on in the conversation that started this subagent (${inherited}): only read-only calls run (this call is ${acting(effects, tool)}). Report what should be done in your answer instead`,
    ]);
  }
  const elsewhere = writes.filter((p) => p !== plan);
  if (elsewhere.length) {
    return report('deny', [
      `plan mode is on: writes and edits go only to the plan file ${plan}, not ${elsewhere[0]}. Put the change in the plan and call exit_plan_mode for the person to confirm it`,
    ]);
  }
  const tier = acting(effects, tool);
  if (writes.length && !effects.processes && !effects.network && !effects.egress && !effects.urls?.length) {
    return report('allow', [`plan mode: ${tool.name} writes only the plan file`]);
  }
  if (tier !== 'read-only' || effects.egress) {
    const what = effects.assessment ? 'only read-only commands run' : 'only read-only tools run';
    return report('deny', [`plan mode is on: ${what} (this call is ${tier}). Finish the plan and call exit_plan_mode; the person confirms it before anything changes`]);
  }
  return report('pass', ['plan mode: a read-only call']);
}

/** Narrows each turn: tools plan mode would refuse are not offered; exit_plan_mode only in plan mode. */
export const planModeFilter: ToolFilter = (turn) => {
  const on = planModeOf(turn.slots);
  return (tool) => {
    if (tool.name === 'exit_plan_mode') return on ? null : 'plan mode is off';
    if (tool.name === 'enter_plan_mode') return on ? 'plan mode is already on' : null;
    if (!on) return null;
    if (tool.risk === 'read-only' || tool.risk === 'unknown' || tool.facts?.editsFile) return null; // a file editor can write the plan file
    return `plan mode is on: ${tool.risk} tools wait until the person confirms the plan`;
  };
};

/** The plan family's hold. */
export const planModeHold: Hold<PlanModeHeld> = {
  name: PLAN_MODE_HOLD,
  stateOf: ({ slots }) => {
    const mode = planModeOf(slots);
    return mode ? { planFile: mode.planFile } : null;
  },
  offer: planModeFilter,
  inspect: inspectPlanMode,
};

/** The plan family's declared holds (registered by the assembly: host/assembly/holds.ts); plan mode's runs first. */
export const holds: readonly HoldDeclaration[] = [{ order: 10, make: () => planModeHold }];
