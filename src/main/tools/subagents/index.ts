/** The subagents family: delegate to children that cannot exceed their parent, and share a blackboard with them. */
import type { ToolDefinition } from '../../runtime/tool';
import type { Subagents } from '../../services/subagents/index';
import { createPostToBlackboard, createReadBlackboard } from './blackboard';
import { createListSubagents } from './list-subagents';
import { createMapSubagents } from './map-subagents';
import { createSpawnSubagent } from './spawn-subagent';
import { createSteerSubagent } from './steer-subagent';
import { createWaitSubagents } from './wait-subagents';

export function createSubagentFamily(deps: { subagents: Subagents }): { tools: ToolDefinition[] } {
  const s = deps.subagents;
  return {
    tools: [
      createSpawnSubagent(s),
      createMapSubagents(s),
      createListSubagents(s),
      createWaitSubagents(s),
      createSteerSubagent(s),
      createPostToBlackboard(s),
      createReadBlackboard(s),
    ] as ToolDefinition[],
  };
}
