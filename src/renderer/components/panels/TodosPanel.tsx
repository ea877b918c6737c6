/** The right panel's todo list: the plan the agent keeps for the open conversation (manage_todos), live. */
import { useEffect } from 'react';
import type { TodoView } from '../../../shared/contract';
import { useConversations } from '../../state/conversations';
import { useTodos } from '../../state/todos';
import { ConversationPanel } from '../common/ConversationPanel';

const STATUS: Record<TodoView['status'], { mark: string; label: string }> = {
  done: { mark: '✓', label: 'done' },
  in_progress: { mark: '◐', label: 'in progress' },
  pending: { mark: '○', label: 'to do' },
};

export function TodosPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const list = useTodos((s) => s.list);
  const error = useTodos((s) => s.error);
  const done = list.filter((t) => t.status === 'done').length;

  useEffect(() => {
    void useTodos.getState().load(selectedId);
  }, [selectedId]);

  return (
    <ConversationPanel
      label="Todos"
      count={list.length ? `${done}/${list.length} done` : ''}
      error={error}
      conversationOpen={!!selectedId}
      empty={list.length === 0}
      noConversationNote="todo list"
      emptyNote="No todo list yet. When the agent plans a task with several steps, its list appears here and is checked off as it works."
    >
      <ol className="todo-list">
        {list.map((t) => (
          <li key={t.id} className={`todo todo-${t.status}`} aria-label={`${t.title}: ${STATUS[t.status].label}`}>
            <span className="todo-mark" aria-hidden="true">
              {STATUS[t.status].mark}
            </span>
            <span className="todo-title">{t.title}</span>
            {t.priority && t.priority !== 'medium' && <span className={`todo-priority prio-${t.priority}`}>{t.priority}</span>}
          </li>
        ))}
      </ol>
    </ConversationPanel>
  );
}
