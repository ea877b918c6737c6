/**
 * For tests that prove a rule can never clear a call that must ask: every always-allow rule that could match the
 * call (an exact pattern for each command part, the path itself and its folder for each path), saved everywhere.
 */
import { callEffects, decide, decideCall, type DecisionInput, type Inspector } from '../../src/main/runtime/decision/approval-engine';
import { DecisionBook } from '../../src/main/runtime/decision/decision-book';
import { planModeHold } from '../../src/main/tools/plan/hold';
import { missionScopeHold } from '../../src/main/tools/tower/hold';
import { peerCeilingHold } from '../../src/main/tools/peers/hold';
import { joinPattern, type SavedRule } from '../../src/shared/rules';

/**
 * The inspectors as the app folds them: the general ones and the holds' (plan mode, mission scope, a peer's ceiling),
 * each reading its state from the input's `held` (these holds read nothing themselves).
 */
export function heldInspectors(): Inspector[] {
  const book = new DecisionBook();
  book.addHold(planModeHold);
  book.addHold(missionScopeHold({ scopeOf: () => null }));
  book.addHold(peerCeilingHold(() => null));
  return book.inspectors();
}

export async function everyRuleFor(input: Omit<DecisionInput, 'effects' | 'rules'>): Promise<SavedRule[]> {
  const effects = await callEffects(input.tool, input.args, input.ctx);
  const d = decide({ ...input, effects }, heldInspectors());
  const patterns = new Set<string>();
  for (const part of effects.assessment?.ruleParts ?? []) if (part.words) patterns.add(joinPattern(part.words));
  const resolved = d.paths.filter((p) => !p.error).map((p) => p.resolved);
  if (resolved.length) patterns.add(resolved.join(' -> '));
  for (const p of resolved) patterns.add(`${p.slice(0, p.lastIndexOf('/') + 1)}*`);
  if (d.rulePattern) patterns.add(d.rulePattern);
  return [...patterns].map((pattern, i) => ({ id: `rule_test_${i}`, tool: input.tool.name, pattern }));
}

/** decideCall with every rule that could match the call saved. */
export async function decideWithEveryRule(input: Omit<DecisionInput, 'effects' | 'rules'>) {
  return decideCall({ ...input, rules: await everyRuleFor(input) }, heldInspectors());
}
