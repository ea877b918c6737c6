/**
 * The extensions family: MCP servers' tools (registered live as `mcp__<server>__<tool>`), their resources and prompts,
 * the project MCP file's approval, skills, and custom tools from agent configuration. Services come from the host:
 * the MCP service, the shell family's command knowledge, the task service.
 */
import type { ContentReader } from '../../../shared/content-reader';
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { ToolDefinition } from '../../runtime/tool';
import type { McpService } from '../../services/mcp';
import type { TaskService } from '../../services/tasks';
import { createCustomTool, type CommandRunner, type CustomToolConfig } from './custom-tools';
import { createMcpExtraTools } from './mcp-extra';
import { elicitationKind } from './mcp-elicitation';
import { registerMcpTools, type ToolRegistrar } from './mcp-tools';
import { createSkillTools } from './skills';

export type { CommandRunner, CustomToolConfig, ToolRegistrar };
export { readCustomTools } from './custom-tools';

/** Builds custom tools outside the family's own list (an agent profile's, registered by the host). */
export function buildCustomTools(configs: readonly CustomToolConfig[], deps: Pick<ExtensionsDeps, 'commands' | 'tasks'>): ToolDefinition[] {
  return configs.map((c) => createCustomTool(c, deps));
}

export interface ExtensionsDeps {
  mcp: McpService | null;
  registry: ToolRegistrar;
  /** The person's skills folder (`<data dir>/skills`). */
  userSkillsDir: string;
  /** The `skills/` folders of enabled plugins (read like the person's own). */
  pluginSkillDirs?: () => readonly string[];
  /** The guarded reader every skill and project file is read through (runtime/context/content-reader.ts). */
  reader: ContentReader;
  customTools: readonly CustomToolConfig[];
  commands: CommandRunner;
  tasks: TaskService;
  /** More MCP tools than this: their schemas are deferred behind search_tools (default 20). */
  deferAbove?: number;
}

export function createExtensionsFamily(deps: ExtensionsDeps): { tools: ToolDefinition[]; inputKinds: InputKind[]; stop: () => void } {
  const mcp = deps.mcp ? createMcpExtraTools(deps.mcp) : { tools: [], inputKinds: [] };
  const stop = deps.mcp ? registerMcpTools(deps.mcp, deps.registry, deps.deferAbove !== undefined ? { deferAbove: deps.deferAbove } : {}) : () => undefined;
  const custom = deps.customTools.map((c) => createCustomTool(c, { commands: deps.commands, tasks: deps.tasks }));
  return { tools: [...createSkillTools(deps.userSkillsDir, deps.reader, deps.pluginSkillDirs), ...mcp.tools, ...custom], inputKinds: deps.mcp ? [...mcp.inputKinds, elicitationKind as InputKind] : mcp.inputKinds, stop };
}
