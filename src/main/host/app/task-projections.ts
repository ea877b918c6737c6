/** Background tasks as the UI panel shows them (never raw rows): status, summary, jobs, and the end of the output. */
import type { BackgroundTaskView } from '../../../shared/contract';
import type { BackgroundTasks } from '../../services/tasks/background-tasks';
import { readLogPage } from '../../services/processes/task-log';
import { parseJson, type WaitProgress } from '../../services/tasks/task-text';
import { progressOf } from '../../services/tasks/question-tasks';

/** Enough to see where a task stands; the whole output stays on disk for the model's task_output. */
const TAIL_BYTES = 2_000;

export function projectBackgroundTasks(tasks: BackgroundTasks, conversationId: string, limit = 30): BackgroundTaskView[] {
  return tasks.list(conversationId, { limit }).map((t) => {
    const jobs = t.kind === 'job_batch' ? tasks.jobs(t.id) : [];
    let tail = '';
    if (t.kind === 'command') tail = readLogPage(t.output_path, undefined, TAIL_BYTES).text;
    else if (t.kind === 'question') tail = (progressOf(t).output ?? '').slice(-TAIL_BYTES);
    else if (t.kind === 'wait_for') tail = parseJson<WaitProgress>(t.progress, { checks: 0, lastExit: null, lastOutput: '', identical: false, recent: [] }).lastOutput.slice(-TAIL_BYTES);
    else tail = jobs.map((j) => `[${j.idx}] ${(j.tail ?? '').trim().split('\n').at(-1) ?? ''}`).join('\n').slice(-TAIL_BYTES);
    return {
      id: t.id,
      kind: t.kind,
      title: t.title,
      status: t.status,
      summary: t.summary,
      exitCode: t.exit_code,
      createdAt: t.created_at,
      finishedAt: t.finished_at,
      tail,
      jobs: jobs.map((j) => ({ idx: j.idx, command: j.command, status: j.status, exitCode: j.exit_code, attempts: j.attempts, note: j.note })),
    };
  });
}
