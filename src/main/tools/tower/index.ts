/** The Tower family (coordinator mode): the tower's tools and the tools every agent of a session has. */
import type { Classification, EffectsContext, ToolDefinition } from '../../runtime/tool';
import type { Tower } from '../../services/tower/index';
import { createTowerInit, createTowerMerge, createTowerPlan, createTowerSpawn, createTowerTeardown } from './coordinator';
import { createTowerFinding, createTowerInbox, createTowerMission, createTowerReview, createTowerSend, createTowerStatus } from './shared-tools';

/**
 * What this family needs to know about commands, for the mission's tests command (the shell family provides it; the
 * host passes it in: families never import each other).
 */
export interface TowerCommandKnowledge {
  classify(command: string, ctx: EffectsContext): Classification;
  withSandbox(base: Classification, ask: { network?: boolean | undefined; outside_sandbox?: boolean | undefined }, ctx: Pick<EffectsContext, 'sandbox'>): Classification;
  visible(command: string): string;
}

export function createTowerFamily(deps: { tower: Tower; commands: TowerCommandKnowledge }): { tools: ToolDefinition[] } {
  const t = deps.tower;
  return {
    tools: [
      createTowerInit(t, deps.commands), createTowerPlan(t, deps.commands), createTowerSpawn(t), createTowerMerge(t), createTowerTeardown(t),
      createTowerSend(t), createTowerInbox(t), createTowerFinding(t), createTowerReview(t), createTowerMission(t), createTowerStatus(t),
    ] as ToolDefinition[],
  };
}
