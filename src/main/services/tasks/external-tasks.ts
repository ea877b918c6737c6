/**
 * Tasks another service runs (subagents): a row in the one task table, so `list_background_jobs`, `task_output`,
 * `wait_tasks`, cancel, the UI and wake-ups treat them like every other task; the owner says how one is cancelled and
 * described. The owner writes the task's result to its `output_path` (task_output pages it).
 */
import { newTaskId } from './task-model';
import { selfIdentity } from '../processes/proc-info';
import type { TaskKind, TaskRow, TaskStatus, TaskStore } from './task-store';

export interface ExternalKind {
  cancel(task: TaskRow, reason: string): Promise<void>;
  describe(task: TaskRow): string;
  /**
   * The task outlives the process that runs it (a subagent parked on a person's answer: any process resumes it), so
   * start-up recovery leaves it running instead of marking it interrupted.
   */
  survives?(task: TaskRow): boolean;
}

export interface StartExternalInput {
  conversationId: string;
  runId: string | null;
  callId: string | null;
  kind: TaskKind;
  title: string;
  spec: unknown;
  outputPath: string | null;
}

export class ExternalTasks {
  private readonly kinds = new Map<string, ExternalKind>();

  constructor(
    private readonly rows: () => TaskStore,
    private readonly changed: (id: string) => void,
  ) {}

  register(kind: TaskKind, handler: ExternalKind): void {
    this.kinds.set(kind, handler);
  }

  owner(kind: string): ExternalKind | undefined {
    return this.kinds.get(kind);
  }

  start(input: StartExternalInput, prefix = 'sub'): TaskRow {
    const id = newTaskId(prefix);
    this.rows().insertTask({
      id,
      conversation_id: input.conversationId,
      run_id: input.runId,
      call_id: input.callId,
      kind: input.kind,
      title: input.title,
      spec: JSON.stringify(input.spec ?? {}),
      background: 1,
      notify: 1,
      output_path: input.outputPath,
      // pid and start time: another process's recovery tells this live owner from a dead one.
      owner_pid: selfIdentity().pid,
      owner_start: selfIdentity().start,
    });
    this.changed(id);
    return this.rows().getTask(id)!;
  }

  /** This process runs the task from now on (a parked one resumed here): another process's recovery sees a live owner. */
  adopt(id: string): void {
    this.rows().updateTask(id, { owner_pid: selfIdentity().pid, owner_start: selfIdentity().start });
  }

  update(id: string, progress: unknown): void {
    this.rows().updateTask(id, { progress: JSON.stringify(progress) });
    this.changed(id);
  }

  /** Ends the task (no-op when it already ended); `notify: false` when the parent was told already (cancel). */
  finish(id: string, status: TaskStatus, summary: string, notify = true): void {
    const rows = this.rows();
    if (!notify) rows.updateTask(id, { notify: 0 });
    if (rows.finishTask(id, status, { summary, ...(notify ? {} : { notified_at: Date.now() }) })) this.changed(id);
  }
}
