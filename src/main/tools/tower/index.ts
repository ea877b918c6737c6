/** The Tower family (coordinator mode): the tower's tools and the tools every agent of a session has. */
import type { ToolDefinition } from '../../runtime/tool';
import type { TowerCommandKnowledge } from './command-knowledge';
import type { Tower } from '../../services/tower/index';
import { createTowerInit, createTowerMerge, createTowerPlan, createTowerSpawn, createTowerTeardown } from './coordinator';
import { createTowerFinding, createTowerInbox, createTowerMission, createTowerReview, createTowerSend, createTowerStatus } from './shared-tools';

export type { TowerCommandKnowledge } from './command-knowledge';

export function createTowerFamily(deps: { tower: Tower; commands: TowerCommandKnowledge }): { tools: ToolDefinition[] } {
  const t = deps.tower;
  return {
    tools: [
      createTowerInit(t, deps.commands), createTowerPlan(t, deps.commands), createTowerSpawn(t), createTowerMerge(t), createTowerTeardown(t),
      createTowerSend(t), createTowerInbox(t), createTowerFinding(t), createTowerReview(t), createTowerMission(t), createTowerStatus(t),
    ] as ToolDefinition[],
  };
}
