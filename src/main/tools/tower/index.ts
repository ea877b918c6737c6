/** The Tower family (coordinator mode): the tower's tools and the tools every agent of a session has. */
import type { ToolDefinition } from '../../runtime/tool';
import type { Tower } from '../../services/tower/index';
import { createTowerInit, createTowerMerge, createTowerPlan, createTowerSpawn, createTowerTeardown } from './coordinator';
import { createTowerFinding, createTowerInbox, createTowerMission, createTowerReview, createTowerSend, createTowerStatus } from './shared-tools';

export function createTowerFamily(deps: { tower: Tower }): { tools: ToolDefinition[] } {
  const t = deps.tower;
  return {
    tools: [
      createTowerInit(t), createTowerPlan(t), createTowerSpawn(t), createTowerMerge(t), createTowerTeardown(t),
      createTowerSend(t), createTowerInbox(t), createTowerFinding(t), createTowerReview(t), createTowerMission(t), createTowerStatus(t),
    ] as ToolDefinition[],
  };
}
