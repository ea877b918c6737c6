import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type TodoItem } from '../../runtime/tool';
import { formatTodos } from './format';

const MAX_TODOS = 100;

export const manageTodos = defineTool({
  name: 'manage_todos',
  description:
    'Create or update the todo list for a multi-step task. Send the FULL list every time: it replaces the previous list (an empty array clears it); leave out `todos` to read the current list without changing it. ' +
    'Keep exactly one item in_progress while working, and mark items done as soon as they are finished.',
  params: z
    .object({
      todos: z
        .array(
          z
            .object({
              id: z.string().min(1).max(64).optional().describe('Stable id; omit for new items (one is assigned).'),
              title: z.string().min(1).max(500).describe('What to do, in a few words.'),
              status: z.enum(['pending', 'in_progress', 'done']).describe('pending, in_progress or done.'),
              priority: z.enum(['low', 'medium', 'high']).optional().describe('Optional priority.'),
            })
            .strict(),
        )
        .max(MAX_TODOS)
        .optional()
        .describe(`The complete list (at most ${MAX_TODOS} items). Leave it out to get the current list; [] clears it.`),
    })
    .strict(),
  risk: 'read-only',
  disclosure: 'private',
  facts: { bookkeeping: true },
  presentation: { title: 'Update the todo list', icon: 'todo', summary: (args) => (args.todos ? `${args.todos.length} item${args.todos.length === 1 ? '' : 's'}` : 'read the list') },
  async execute({ todos }, ctx) {
    // Spec II: without `todos` the call reads the list; nothing changes and nothing is published.
    if (todos === undefined) return { output: formatTodos(ctx.state.todos) };
    const ids = new Set<string>();
    const next: TodoItem[] = todos.map((t, i) => {
      const id = t.id ?? `t${i + 1}`;
      if (ids.has(id)) throw new ToolError(`Duplicate todo id "${id}". Give each item a unique id or omit ids.`);
      ids.add(id);
      return { id, title: t.title, status: t.status, ...(t.priority ? { priority: t.priority } : {}) };
    });
    ctx.state.todos = next;
    ctx.publish({ slot: 'todos', value: next });
    return { output: formatTodos(next) };
  },
});
