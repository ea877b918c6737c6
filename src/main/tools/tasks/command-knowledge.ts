import type { Classification, EffectsContext } from '../../runtime/tool';

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
