/** The OS sandbox as tools see it: whether one exists, the plan for one command, and what a blocked command means. */
import { planSandbox, sandboxBlockHint, sandboxSupport } from './sandbox';
import { rememberedSandboxSupport } from './probe-cache';

export type { SandboxPlan, SandboxRequest, SandboxSupport, SandboxKind } from './sandbox';

export interface SandboxService {
  support: typeof sandboxSupport;
  plan: typeof planSandbox;
  blockHint: typeof sandboxBlockHint;
}

/** The implementation on this OS (bubblewrap on Linux, sandbox-exec on macOS; none elsewhere). */
export const osSandbox: SandboxService = { support: sandboxSupport, plan: planSandbox, blockHint: sandboxBlockHint };

/**
 * The same sandbox for a caller that runs no command (`policy explain`): `support()` answers from the last probe
 * remembered in `cacheDir` while the binary and the user-namespace settings are unchanged (probe-cache.ts).
 */
export function explainingSandbox(cacheDir: string): SandboxService {
  return { ...osSandbox, support: () => rememberedSandboxSupport(cacheDir) };
}
