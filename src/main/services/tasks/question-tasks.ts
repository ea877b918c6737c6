/**
 * Question tasks (ask_user_question with `background`): a background task that waits for a person instead of a
 * process. The tool opens the `question` input request bound to the task; answering it finishes the task with the
 * answers (the runtime hands them over through `onBackgroundAnswer`), declining cancels it with the reason, and
 * cancelling the task expires the request. No process: nothing to end on quit, and a question survives a restart.
 */
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { newTaskId } from './task-model';
import type { TaskRow, TaskStore } from './task-store';
import { parseJson } from './task-text';

/** What a question task keeps in `progress`: its request, and the answers once given. */
export interface QuestionProgress {
  requestId: string | null;
  output: string | null;
}

export interface StartQuestionInput {
  conversationId: string;
  runId: string | null;
  callId: string | null;
  title: string;
  /** Opens the input request for the new task (the runtime's `ctx.openBackgroundRequest`); returns its id. */
  open(taskId: string): string;
}

/** What question tasks need of the task service that owns them. */
export interface QuestionHost {
  readonly rows: TaskStore;
  readonly store: Store;
  assertOpen(): void;
  changed(id: string): void;
}

export class QuestionTasks {
  constructor(private readonly host: QuestionHost) {}

  start(input: StartQuestionInput): { task: TaskRow; requestId: string } {
    this.host.assertOpen();
    const { rows } = this.host;
    const id = newTaskId('ask');
    rows.insertTask({
      id,
      conversation_id: input.conversationId,
      run_id: input.runId,
      call_id: input.callId,
      kind: 'question',
      title: input.title,
      spec: '{}',
      background: 1,
      notify: 1,
      output_path: null,
      owner_pid: null,
      owner_start: null,
    });
    let requestId: string;
    try {
      requestId = input.open(id);
    } catch (err) {
      rows.finishTask(id, 'failed', { summary: 'the question could not be asked', notified_at: Date.now() });
      throw err;
    }
    rows.updateTask(id, { progress: JSON.stringify({ requestId, output: null } satisfies QuestionProgress) });
    this.host.changed(id);
    return { task: rows.getTask(id)!, requestId };
  }

  /** The person answered (`output`: the questions with their answers) or declined (`declined`: their reason). */
  settle(taskId: string, result: { output: string } | { declined: string | null }): void {
    const { rows } = this.host;
    const task = rows.getTask(taskId);
    if (!task || task.kind !== 'question') throw new DeskhandError('not_found', `No question task ${taskId}.`);
    const progress = { ...progressOf(task), output: 'output' in result ? result.output : null };
    const ended =
      'output' in result
        ? rows.finishTask(taskId, 'finished', { summary: 'answered', progress: JSON.stringify(progress) })
        : rows.finishTask(taskId, 'cancelled', { summary: result.declined ? `declined: ${result.declined}` : 'declined by the person', progress: JSON.stringify(progress) });
    if (ended) this.host.changed(taskId);
  }

  /** Cancelled by the conversation (cancel_background_jobs) or with it: no wake-up, and the request expires. */
  cancel(task: TaskRow, reason: string): void {
    const { rows, store } = this.host;
    store.transaction(() => {
      rows.updateTask(task.id, { notify: 0 });
      rows.finishTask(task.id, 'cancelled', { summary: reason, notified_at: Date.now() });
      for (const request of store.approvalsForTask(task.id)) {
        if (request.status === 'pending') store.expireApproval(request.id, `Its background task was cancelled: ${reason}`);
      }
    });
    this.host.changed(task.id);
  }
}

export function progressOf(task: TaskRow): QuestionProgress {
  return parseJson<QuestionProgress>(task.progress, { requestId: null, output: null });
}
