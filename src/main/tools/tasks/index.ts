/**
 * The background-task family: job batches, and the tools over every kind of background task. It runs commands with
 * the shell family's knowledge of them (`commands`), which the host passes in: families never import each other.
 */
import type { Classification, EffectsContext, ToolDefinition } from '../../runtime/tool';
import type { TaskService } from '../../services/tasks';
import { createCancelBackgroundJobs } from './cancel-background-jobs';
import { createListBackgroundJobs } from './list-background-jobs';
import { createRunBackgroundJobs } from './run-background-jobs';
import { createTaskOutput } from './task-output';
import { createWaitTasks } from './wait-tasks';

/** What this family needs to know about commands (the shell family provides it; the host passes it in). */
export interface CommandKnowledge {
  classify(command: string, ctx: EffectsContext): Classification;
  withSandbox(base: Classification, ask: { network?: boolean | undefined; outside_sandbox?: boolean | undefined }, ctx: Pick<EffectsContext, 'sandbox'>): Classification;
  resolveCwd(cwd: string | undefined, base: string): string;
  /** Where a command would run, contained like any path: why it must ask (outside the roots, sensitive), or null. */
  containCwd(cwd: string, ctx: EffectsContext): { summary: string; ask: string | null };
  checkCwd(cwd: string): void;
  visible(command: string): string;
}

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
