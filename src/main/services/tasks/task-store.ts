/**
 * Rows of the background-task tables. The SQL lives in the tasks store module (services/store/modules/tasks.ts);
 * code here reaches it as `store.tasks`.
 */
export { TERMINAL_STATUSES, TaskQueries as TaskStore } from '../store/modules/tasks';
export type { JobRow, JobStatus, NewTask, ProcessGroupRow, TaskKind, TaskRow, TaskStatus } from '../store/modules/tasks';
