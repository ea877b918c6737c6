/** Every built-in tool, in the order the model sees them. */
import type { ToolDefinition } from '../runtime/tool';
import { fileTools } from './files';
import { shellTools } from './shell';
import { taskTools } from './tasks';
import { getTime } from './context/get-time';
import { contextInfo } from './context/context-info';
import { listTodos } from './todos/list-todos';
import { manageTodos } from './todos/manage-todos';
import { updateWorkState } from './todos/update-work-state';
import { secretTools } from './secrets';

export const builtinTools: readonly ToolDefinition[] = [
  ...fileTools,
  ...shellTools,
  ...taskTools,
  getTime,
  contextInfo,
  listTodos,
  manageTodos,
  updateWorkState,
  ...secretTools,
];
