/**
 * Wires Tower into the runtime: the approval engine's mission-scope inspector learns each worker's scope from the
 * tower store, and the registry shows the tower's own tools only to coordinating conversations (never to a
 * subagent), the shared ones only where a Tower session applies (tower_init is offered everywhere else).
 */
import { lazy } from '../../runtime/registry';
import type { Runtime } from '../../runtime/runtime';
import type { SubagentService } from '../../services/subagents/subagent-service';
import { TOWER_COORDINATOR_TOOLS, TOWER_SHARED_TOOLS } from '../../services/tower/index';
import type { TowerService } from '../../services/tower/tower-service';

export function wireTower(runtime: Runtime, tower: TowerService, subagents: Pick<SubagentService, 'byConversation'>): () => void {
  const offScope = runtime.addScopeLookup((conversationId) => tower.scopeOf(conversationId));
  const offFilter = runtime.registry.addFilter('tower-roles', (turn) => {
    // What this turn's conversation is to Tower: read once per turn, only as far as its tools need.
    const agent = lazy(() => tower.rows.agentByConversation(turn.conversationId) !== undefined);
    const child = lazy(() => subagents.byConversation(turn.conversationId) !== undefined);
    const session = lazy(() => Boolean(tower.rows.activeFor(turn.conversationId)));
    return (tool) => {
      const coordinator = TOWER_COORDINATOR_TOOLS.includes(tool.name);
      const shared = TOWER_SHARED_TOOLS.includes(tool.name);
      if (!coordinator && !shared) return null;
      if (coordinator && (agent() || child())) return 'only the coordinating conversation (the tower) has this tool';
      if (shared && !agent() && !session()) return 'no Tower session here (the coordinator starts one with tower_init)';
      if (coordinator && tool.name !== 'tower_init' && !session()) return 'no Tower session here: start one with tower_init';
      return null;
    };
  });
  return () => {
    offScope();
    offFilter();
  };
}
