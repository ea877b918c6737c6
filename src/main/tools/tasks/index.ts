/**
 * The background-task family: job batches, and the tools over every kind of background task. It runs commands with
 * the shell family's knowledge of them (`commands`), which the host passes in: families never import each other.
 */
import type { ToolDefinition } from '../../runtime/tool';
import type { CommandKnowledge } from './command-knowledge';
import type { TaskService } from '../../services/tasks';
import { createCancelBackgroundJobs } from './cancel-background-jobs';
import { createListBackgroundJobs } from './list-background-jobs';
import { createRunBackgroundJobs } from './run-background-jobs';
import { createTaskOutput } from './task-output';
import { createWaitTasks } from './wait-tasks';

export type { CommandKnowledge } from './command-knowledge';

export interface TaskDeps {
  tasks: TaskService;
  commands: CommandKnowledge;
  dataDir: string;
}

export function createTaskFamily(deps: TaskDeps): { tools: ToolDefinition[] } {
  const { tasks } = deps;
  return {
    tools: [
      createRunBackgroundJobs(tasks, deps.commands, deps.dataDir),
      createListBackgroundJobs(tasks),
      createTaskOutput(tasks),
      createWaitTasks(tasks),
      createCancelBackgroundJobs(tasks),
    ] as ToolDefinition[],
  };
}
