/**
 * A child's results once it ended: the result file and the task that carries it to a background child's parent, the
 * "reported" mark a result gets once handed to its parent (so nothing wakes the parent for it later), and the
 * requests a parked child's subtree waits for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store/store';
import { SUBAGENT_TERMINAL, type subagentsModule, type SubagentRow, type SubagentStatus } from '../store/modules/subagents';
import type { ExternalTasks } from '../tasks/external-tasks';

type Rows = ReturnType<typeof subagentsModule.queries>;
const TERMINAL = new Set<string>(SUBAGENT_TERMINAL);

/** Where a background child's result is kept for task_output (mode 0600). */
export function childOutputPath(dataDir: string, id: string): string {
  return join(dataDir, 'subagents', `${id}.txt`);
}

/** A background child ended: its result file, and its task finished with the status and a one-line summary. */
export function finishChildTask(opts: { dataDir: string; tasks: Pick<ExternalTasks, 'update' | 'finish'> }, ended: SubagentRow, status: SubagentStatus, notify: boolean, taskStatusOverride?: 'interrupted'): void {
  if (!ended.task_id) return;
  mkdirSync(join(opts.dataDir, 'subagents'), { recursive: true, mode: 0o700 });
  writeFileSync(childOutputPath(opts.dataDir, ended.id), ended.result ?? ended.error ?? '', { mode: 0o600 });
  opts.tasks.update(ended.task_id, { subagent: ended.id, tainted: ended.tainted === 1 });
  const taskStatus = taskStatusOverride ?? (status === 'finished' ? 'finished' : status === 'timed_out' ? 'timed_out' : status === 'cancelled' ? 'cancelled' : 'failed');
  opts.tasks.finish(ended.task_id, taskStatus, status === 'finished' ? 'finished' : `${status}: ${ended.error ?? ''}`.slice(0, 300), notify);
}

/** Results handed to the parent here: marked reported (in one commit when several), and their tasks wake nobody later. */
export function markReported(store: Store, rows: Rows, ended: readonly SubagentRow[]): void {
  const mark = () => {
    for (const r of ended) {
      if (!TERMINAL.has(r.status)) continue;
      rows.update(r.id, { reported: 1 });
      if (r.task_id) store.tasks.claimNotifications([r.task_id]);
    }
  };
  if (ended.length > 1) store.transaction(mark);
  else mark();
}

/** The open requests a parked child (or any descendant of it) waits for. */
export function waitingRequests(store: Store, rows: Rows, row: SubagentRow): string[] {
  const conversations = new Set([row.conversation_id, ...rows.tree(row.conversation_id, 500).map((r) => r.conversation_id)]);
  return store.pendingApprovals().filter((a) => conversations.has(store.getRun(a.run_id)?.conversation_id ?? '')).map((a) => a.id);
}
