/** The file tools, in the order they are offered to the model. */
import type { ToolDefinition } from '../../runtime/tool';
import { cdTool } from './cd';
import { cpTool } from './cp';
import { editFileTool } from './edit-file';
import { findTool } from './find';
import { grepTool } from './grep';
import { lsTool } from './ls';
import { mkdirTool } from './mkdir';
import { mvTool } from './mv';
import { pwdTool } from './pwd';
import { readFileTool } from './read-file';
import { rmTool } from './rm';
import { statTool } from './stat';
import { writeFileTool } from './write-file';

export const fileTools: ToolDefinition[] = [
  readFileTool,
  writeFileTool,
  editFileTool,
  lsTool,
  statTool,
  findTool,
  grepTool,
  mkdirTool,
  cpTool,
  mvTool,
  rmTool,
  pwdTool,
  cdTool,
];

export {
  cdTool,
  cpTool,
  editFileTool,
  findTool,
  grepTool,
  lsTool,
  mkdirTool,
  mvTool,
  pwdTool,
  readFileTool,
  rmTool,
  statTool,
  writeFileTool,
};
