/** The file family, in the order its tools are offered to the model. Only rm and mv need anything injected. */
import type { ToolDefinition } from '../../runtime/tool';
import { cdTool } from './cd';
import { createCpTool } from './cp';
import { editFileTool } from './edit-file';
import { findTool } from './find';
import { grepTool } from './grep';
import { lsTool } from './ls';
import { mkdirTool } from './mkdir';
import { createMvTool } from './mv';
import { pwdTool } from './pwd';
import { readFileTool } from './read-file';
import { createRmTool } from './rm';
import { statTool } from './stat';
import { writeFileTool } from './write-file';

export interface FileDeps {
  /** Deskhand's own data dir: never removed or moved by the agent. */
  dataDir: string;
}

export function createFileFamily(deps: FileDeps): { tools: ToolDefinition[] } {
  return {
    tools: [
      readFileTool,
      writeFileTool,
      editFileTool,
      lsTool,
      statTool,
      findTool,
      grepTool,
      mkdirTool,
      createCpTool(deps.dataDir),
      createMvTool(deps.dataDir),
      createRmTool(deps.dataDir),
      pwdTool,
      cdTool,
    ] as ToolDefinition[],
  };
}

export { cdTool, createCpTool, editFileTool, findTool, grepTool, lsTool, mkdirTool, createMvTool, pwdTool, readFileTool, createRmTool, statTool, writeFileTool };
