/** The right panel's background tasks: what runs for the open conversation, what ended, the end of each output, cancel. */
import { useEffect, useState } from 'react';
import type { BackgroundTaskView } from '../../../shared/contract';
import { useConversations } from '../../state/conversations';
import { useTasks } from '../../state/tasks';
import { formatDuration } from '../common/tool-status';
import { ConversationPanel } from '../common/ConversationPanel';

const KIND_LABEL: Record<BackgroundTaskView['kind'], string> = { command: 'Command', job_batch: 'Job batch', wait_for: 'Waiting for', question: 'Question', subagent: 'Subagent', workflow: 'Workflow' };
const STATUS_LABEL: Record<BackgroundTaskView['status'], string> = {
  running: 'running',
  finished: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  timed_out: 'timed out',
  interrupted: 'interrupted',
};

export function BackgroundTasksPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const list = useTasks((s) => s.list);
  const error = useTasks((s) => s.error);
  const running = list.filter((t) => t.status === 'running').length;

  useEffect(() => {
    void useTasks.getState().load(selectedId);
  }, [selectedId]);

  return (
    <ConversationPanel
      label="Background tasks"
      count={running ? `${running} running` : list.length}
      error={error}
      conversationOpen={!!selectedId}
      empty={list.length === 0}
      noConversationNote="background tasks"
      emptyNote="Nothing runs in the background here. Long commands, job batches, waits and questions the agent starts appear here, with their output."
    >
      <ul className="panel-list">
        {list.map((t) => (
          <TaskItem key={t.id} task={t} />
        ))}
      </ul>
    </ConversationPanel>
  );
}

function TaskItem({ task }: { task: BackgroundTaskView }) {
  const [open, setOpen] = useState(task.status === 'running');
  const cancelling = useTasks((s) => s.cancelling.includes(task.id));
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (task.status !== 'running') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [task.status]);
  const took = formatDuration((task.finishedAt ?? now) - task.createdAt);
  return (
    <li className={`task-item task-${task.status}`} aria-label={`${KIND_LABEL[task.kind]} ${task.title}: ${STATUS_LABEL[task.status]}`}>
      <button type="button" className="task-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="task-kind">{KIND_LABEL[task.kind]}</span>
        <span className="task-title">{task.title}</span>
        <span className={`task-status ts-${task.status}`}>
          {STATUS_LABEL[task.status]} · {took}
        </span>
      </button>
      {open && (
        <div className="task-body">
          {task.summary && <p className="muted small">{task.summary}</p>}
          {task.jobs.length > 0 && (
            <ol className="task-jobs" aria-label={`Jobs of ${task.title}`}>
              {task.jobs.map((j) => (
                <li key={j.idx}>
                  <code>{j.command}</code> <span className={`task-status js-${j.status}`}>{j.status}</span>
                  {j.exitCode !== null && <span className="muted small"> exit {j.exitCode}</span>}
                  {j.attempts > 1 && <span className="muted small"> · {j.attempts} attempts</span>}
                </li>
              ))}
            </ol>
          )}
          {task.tail ? (
            <pre className="tool-output task-tail" aria-label={`Output of ${task.title}`}>
              {task.tail}
            </pre>
          ) : (
            <p className="muted small">{task.kind === 'question' ? (task.status === 'running' ? 'Waiting for your answer (in the requests list).' : 'No answer.') : 'No output yet.'}</p>
          )}
          {task.status === 'running' && (
            <button type="button" className="btn danger" disabled={cancelling} onClick={() => void useTasks.getState().cancel(task.id)} aria-label={`Cancel ${task.title}`}>
              {cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
