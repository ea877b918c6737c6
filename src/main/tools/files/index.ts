/** The file family, in the order its tools are offered to the model. rm, mv and write_file get what they need injected. */
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
import { createWriteFile, writeFileTool, type SecretFinder } from './write-file';

export interface FileDeps {
  /** Deskhand's own data dir: never removed or moved by the agent. */
  dataDir: string;
  /** The run's secrets (exact values and credential shapes): write_file refuses to drop a line holding one. */
  secrets: SecretFinder;
}

export function createFileFamily(deps: FileDeps): { tools: ToolDefinition[] } {
  return {
    tools: [
      readFileTool,
      createWriteFile(deps.secrets),
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

export { createWriteFile, cdTool, createCpTool, editFileTool, findTool, grepTool, lsTool, mkdirTool, createMvTool, pwdTool, readFileTool, createRmTool, statTool, writeFileTool };
