import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type TodoItem } from '../../runtime/tool';
import { formatTodos } from './format';

const MAX_TODOS = 100;

export const manageTodos = defineTool({
  name: 'manage_todos',
  claudeCodeName: 'TodoWrite',
  description:
    'Set the todo list of a multi-step task: send the FULL list each time (it replaces the old one).',
  details: `At most ${MAX_TODOS} items. Keep exactly one in_progress while working; mark each done as soon as it is.`,
  params: () => z
    .object({
      todos: z
        .array(
          z
            .object({
              id: z.string().min(1).max(64).optional().describe('Omit for new items.'),
              title: z.string().min(1).max(500).describe('A few words.'),
              status: z.enum(['pending', 'in_progress', 'done']).describe('One item in_progress at a time.'),
              priority: z.enum(['low', 'medium', 'high']).optional().describe('Priority.'),
            })
            .strict(),
        )
        .max(MAX_TODOS)
        .optional()
        .describe('The whole list; omit to read it, [] clears it.'),
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
