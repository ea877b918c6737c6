/**
 * How a process runs under the sandbox: the plan sandbox.ts makes for a call and the launcher runs a program under
 * (types only, so the launcher, which the sandbox's probe runs through, imports nothing of sandbox.ts).
 */
import type { SandboxMode } from '../../../shared/sandbox';

export type SandboxKind = 'bubblewrap' | 'sandbox-exec';

/** How a command will actually run. */
export interface SandboxPlan {
  kind: SandboxKind | null;
  mode: SandboxMode;
  network: boolean;
  /** One line: how the command runs (shown in results and `policy explain`). */
  summary: string;
  /** `shell -c command` as it runs under this plan (what the shell tool and custom tools run). */
  argv(shell: string, command: string): { file: string; args: string[] };
  /** Any program with its arguments as it runs under this plan (an MCP stdio server). */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] };
  /**
   * After the program ended: removes what it created that steers the agent or runs later (a new AGENTS.md, Makefile,
   * `.git` pointer, or git dir with hooks or program-running settings), since nobody was asked. Returns one line for
   * the model, or null. Absent when the plan runs without the sandbox (such a run was approved by a person).
   */
  settle?(): string | null;
}
