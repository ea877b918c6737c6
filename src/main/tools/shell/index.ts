/**
 * The shell family: `execute_command`, `wait_for`, `cancel_wait_for`, and the knowledge of commands (the classifier,
 * where a command runs, the sandbox) other families get through `commands` (the host passes it on).
 */
import type { Classification, EffectsContext, ToolDefinition } from '../../runtime/tool';
import { join } from 'node:path';
import { classifyCommand, useParserCodeCache } from './command-classifier';
import { createCancelWaitFor } from './cancel-wait-for';
import { checkCwd, createExecuteCommand, cwdContainment, resolveCommandCwd, visibleCommand, type ShellDeps } from './execute-command';
import { commandPlan, sandboxClassification, sandboxLine, type SandboxAsk } from './sandbox-policy';
import type { SandboxPlan } from '../../services/sandbox';
import type { SandboxMode } from '../../../shared/sandbox';
import { createWaitFor } from './wait-for';

export type { ShellDeps };

/** What the shell family knows about commands, for families that run commands too (run_background_jobs). */
export interface CommandKnowledge {
  classify(command: string, ctx: EffectsContext): Classification;
  withSandbox(base: Classification, ask: SandboxAsk, ctx: Pick<EffectsContext, 'sandbox'>): Classification;
  resolveCwd(cwd: string | undefined, base: string): string;
  /** Where a command would run, contained like any path: why it must ask (outside the roots, sensitive), or null. */
  containCwd(cwd: string, ctx: EffectsContext): { summary: string; ask: string | null };
  checkCwd(cwd: string): void;
  visible(command: string): string;
  /** The sandbox plan of one command (the conversation's mode, its roots, network/outside as asked). */
  plan(ask: SandboxAsk, ctx: { sandbox?: SandboxMode | undefined; state: { workspaceRoots: readonly string[] } }, cwd: string): SandboxPlan;
  /** One short line saying how a command ran (for results). */
  sandboxLine(plan: SandboxPlan): string;
}

export function createShellFamily(deps: ShellDeps): { tools: ToolDefinition[]; commands: CommandKnowledge } {
  // The bash parser starts from a code cache in the data folder (command-classifier/parser-load.ts).
  useParserCodeCache(join(deps.dataDir, 'cache'));
  return {
    tools: [createExecuteCommand(deps), createWaitFor(deps), createCancelWaitFor(deps.tasks)] as ToolDefinition[],
    commands: {
      classify: classifyCommand,
      withSandbox: (base, ask, ctx) => sandboxClassification(base, ask, ctx, deps.sandbox),
      resolveCwd: resolveCommandCwd,
      containCwd: (cwd, ctx) => {
        const where = cwdContainment(cwd, ctx);
        return { summary: where.check.summary, ask: where.ask };
      },
      checkCwd,
      visible: visibleCommand,
      plan: (ask, ctx, cwd) => commandPlan(ask, ctx, cwd, deps),
      sandboxLine,
    },
  };
}
