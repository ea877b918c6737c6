/** The background-task family: job batches, and the tools over every kind of background task. */
import type { ToolDefinition } from '../../runtime/tool';
import { cancelBackgroundJobs } from './cancel-background-jobs';
import { listBackgroundJobs } from './list-background-jobs';
import { runBackgroundJobs } from './run-background-jobs';
import { taskOutput } from './task-output';
import { waitTasks } from './wait-tasks';

export const taskTools: ToolDefinition[] = [runBackgroundJobs, listBackgroundJobs, taskOutput, waitTasks, cancelBackgroundJobs];
