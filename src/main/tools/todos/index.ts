/** The todos & state family: the conversation's todo list (published to the UI as it changes) and work state. */
import type { ToolDefinition } from '../../runtime/tool';
import { listTodos } from './list-todos';
import { manageTodos } from './manage-todos';
import { updateWorkState } from './update-work-state';

export function createTodoFamily(): { tools: ToolDefinition[] } {
  return { tools: [listTodos, manageTodos, updateWorkState] as ToolDefinition[] };
}
