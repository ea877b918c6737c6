import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { formatTodos } from './format';

export const listTodos = defineTool({
  name: 'list_todos',
  description: 'Read the current todo list of this conversation: every item with its id, status (pending, in_progress, done) and priority.',
  params: () => z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'private',
  facts: { loadsWith: 'workstate', reaches: [] },
  presentation: { title: 'Show the todo list', icon: 'todo' },
  async execute(_args, ctx) {
    return { output: formatTodos(ctx.state.todos) };
  },
});
