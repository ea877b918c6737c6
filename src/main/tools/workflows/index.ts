/** The workflows family: `workflow` (catalog or inline scripts orchestrating subagents in phases). */
import type { ToolDefinition } from '../../runtime/tool';
import type { Workflows } from '../../services/workflows/index';
import { createWorkflowTool } from './workflow';

export function createWorkflowFamily(deps: { workflows: Workflows }): { tools: ToolDefinition[] } {
  return { tools: [createWorkflowTool(deps.workflows)] as ToolDefinition[] };
}
