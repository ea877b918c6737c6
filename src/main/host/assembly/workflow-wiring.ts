/**
 * Wires workflows into the runtime: no subagent ever sees the `workflow` tool (no nesting: a workflow's children
 * and every other child are subagent conversations), whatever its profile or ceiling says.
 */
import { lazy, type ToolRegistry } from '../../runtime/registry';
import type { SubagentService } from '../../services/subagents/subagent-service';
import { WORKFLOW_TOOLS } from '../../services/workflows/index';

export function wireWorkflows(registry: Pick<ToolRegistry, 'addFilter'>, subagents: Pick<SubagentService, 'byConversation'>): () => void {
  return registry.addFilter('workflow-no-nesting', (turn) => {
    const child = lazy(() => subagents.byConversation(turn.conversationId) !== undefined);
    return (tool) => (WORKFLOW_TOOLS.includes(tool.name) && child() ? 'subagents never start workflows (no nesting); only the top-level conversation can' : null);
  });
}
