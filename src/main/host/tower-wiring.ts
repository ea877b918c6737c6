/**
 * Wires Tower into the runtime: the approval engine's mission-scope inspector learns each worker's scope from the
 * tower store, and the registry shows the tower's own tools only to coordinating conversations (never to a
 * subagent), the shared ones only where a Tower session applies (tower_init is offered everywhere else).
 */
import type { Runtime } from '../runtime/runtime';
import { addScopeLookup } from '../runtime/scope-inspector';
import type { SubagentService } from '../services/subagents/subagent-service';
import { TOWER_COORDINATOR_TOOLS, TOWER_SHARED_TOOLS } from '../services/tower/index';
import type { TowerService } from '../services/tower/tower-service';

export function wireTower(runtime: Runtime, tower: TowerService, subagents: Pick<SubagentService, 'byConversation'>): () => void {
  const offScope = addScopeLookup((conversationId) => tower.scopeOf(conversationId));
  const offFilter = runtime.registry.addFilter('tower-roles', (tool, turn) => {
    const coordinator = TOWER_COORDINATOR_TOOLS.includes(tool.name);
    const shared = TOWER_SHARED_TOOLS.includes(tool.name);
    if (!coordinator && !shared) return null;
    const agent = tower.rows.agentByConversation(turn.conversationId);
    if (coordinator && (agent || subagents.byConversation(turn.conversationId))) return 'only the coordinating conversation (the tower) has this tool';
    if (shared && !agent && !tower.rows.activeFor(turn.conversationId)) return 'no Tower session here (the coordinator starts one with tower_init)';
    if (coordinator && tool.name !== 'tower_init' && !tower.rows.activeFor(turn.conversationId)) return 'no Tower session here: start one with tower_init';
    return null;
  });
  return () => {
    offScope();
    offFilter();
  };
}
