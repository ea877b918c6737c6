/**
 * The background-task service as tools see it: an interface (the host injects the implementation, BackgroundTasks),
 * plus the pure text helpers tools format task lines with.
 */
import type { BackgroundTasks } from './background-tasks';

export type { LogPage } from '../processes/task-log';
export type { CommandTask, CheckResult, StartBatchInput, StartCommandInput, BatchSpec, TaskRow, JobRow, TaskStatus, TaskKind } from './background-tasks';
export * from './task-text';
export type { StartQuestionInput } from './question-tasks';

/** What tools may do with background tasks: start, check, wait for, page, cancel — for their own conversation. */
export type TaskService = Pick<
  BackgroundTasks,
  'startCommand' | 'startBatch' | 'runCheck' | 'startWaitFor' | 'startQuestion' | 'resolve' | 'cancel' | 'list' | 'jobs' | 'readOutput' | 'waitAny' | 'describe' | 'discardLog'
>;
