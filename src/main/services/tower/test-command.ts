/**
 * The mission's tests command (chosen by the model at tower_init, classified there and approved by the person) runs
 * like any shell command: in the OS sandbox with the mission's worktree as its only writable root, the network off,
 * a credential-free environment, its own process group stopped on timeout. Never with `/bin/sh` on the host.
 */
import { CommandProcess } from '../processes/command-process';
import type { SandboxPlan, SandboxService } from '../sandbox/index';

export interface TestRun {
  code: number;
  output: string;
  /** How it ran (the sandbox plan's summary). */
  summary: string;
}

export type TestRunner = (input: { worktree: string; command: string; timeoutMs?: number }) => Promise<TestRun>;

/** The sandbox plan of a mission's tests: its worktree writable, nothing else, no network. */
export function testsPlan(sandbox: SandboxService, worktree: string, dataDir: string): SandboxPlan {
  return sandbox.plan({ mode: 'workspace-write', network: false, outside: false, roots: [worktree], cwd: worktree, dataDir });
}

/**
 * Starts one command process. The single place Tower starts a process for the model's sake (the process launcher
 * takes this over when there is one).
 */
export function startTestProcess(command: string, cwd: string, plan: SandboxPlan): CommandProcess {
  return new CommandProcess({ command, cwd, sandbox: plan });
}

export function sandboxedTestRunner(deps: { sandbox: SandboxService; dataDir: string }): TestRunner {
  return async ({ worktree, command, timeoutMs = 10 * 60_000 }) => {
    const plan = testsPlan(deps.sandbox, worktree, deps.dataDir);
    const proc = startTestProcess(command, worktree, plan);
    const timer = setTimeout(() => void proc.stop('timeout'), timeoutMs);
    try {
      const exit = await proc.exited;
      const output = `${proc.stdout.lastBytes(4000)}${proc.stderr.lastBytes(4000)}`.slice(-4000);
      const code = exit.error ? 127 : proc.stopReason === 'timeout' ? 124 : (exit.code ?? 128);
      const note = exit.error ? `could not start: ${exit.error}\n` : proc.stopReason === 'timeout' ? `stopped after ${Math.round(timeoutMs / 1000)} s\n` : '';
      return { code, output: `${note}${output}`, summary: plan.summary };
    } finally {
      clearTimeout(timer);
    }
  };
}
