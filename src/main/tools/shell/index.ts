/**
 * The shell family: `execute_command`, `wait_for`, `cancel_wait_for`, and the knowledge of commands (the classifier,
 * where a command runs, the sandbox) other families get through `commands` (the host passes it on).
 */
import type { Classification, EffectsContext, ToolDefinition } from '../../runtime/tool';
import { classifyCommand } from './command-classifier';
import { createCancelWaitFor } from './cancel-wait-for';
import { checkCwd, createExecuteCommand, resolveCommandCwd, visibleCommand, type ShellDeps } from './execute-command';
import { sandboxClassification, type SandboxAsk } from './sandbox-policy';
import { createWaitFor } from './wait-for';

export type { ShellDeps };

/** What the shell family knows about commands, for families that run commands too (run_background_jobs). */
export interface CommandKnowledge {
  classify(command: string, ctx: EffectsContext): Classification;
  withSandbox(base: Classification, ask: SandboxAsk, ctx: Pick<EffectsContext, 'sandbox'>): Classification;
  resolveCwd(cwd: string | undefined, base: string): string;
  checkCwd(cwd: string): void;
  visible(command: string): string;
}

export function createShellFamily(deps: ShellDeps): { tools: ToolDefinition[]; commands: CommandKnowledge } {
  return {
    tools: [createExecuteCommand(deps), createWaitFor(deps), createCancelWaitFor(deps.tasks)] as ToolDefinition[],
    commands: {
      classify: classifyCommand,
      withSandbox: (base, ask, ctx) => sandboxClassification(base, ask, ctx, deps.sandbox),
      resolveCwd: resolveCommandCwd,
      checkCwd,
      visible: visibleCommand,
    },
  };
}
