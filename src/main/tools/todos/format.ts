import type { TodoItem } from '../../runtime/tool';

const MARK: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[~]', done: '[x]' };

export function formatTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'The todo list is empty.';
  const done = todos.filter((t) => t.status === 'done').length;
  const lines = todos.map((t) => `${MARK[t.status]} ${t.id}: ${t.title}${t.priority ? ` (${t.priority})` : ''}`);
  return `${done}/${todos.length} done\n${lines.join('\n')}`;
}
