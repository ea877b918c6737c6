/** The right panel's todo list: the plan the agent keeps for the open conversation (manage_todos), live. */
import { useEffect } from 'react';
import type { TodoView } from '../../../shared/contract';
import { useConversations } from '../../state/conversations';
import { useTodos } from '../../state/todos';

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
    <aside className={`panel ${list.length === 0 && !error ? 'panel-empty' : ''}`} aria-label="Todos">
      <h2 className="panel-title">
        Todos <span className="count">{list.length ? `${done}/${list.length} done` : ''}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      {!selectedId ? (
        <p className="muted small panel-empty-note">Open a conversation to see its todo list.</p>
      ) : list.length === 0 ? (
        <p className="muted small panel-empty-note">No todo list yet. When the agent plans a task with several steps, its list appears here and is checked off as it works.</p>
      ) : (
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
      )}
    </aside>
  );
}
