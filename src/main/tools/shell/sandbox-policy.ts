/**
 * How the OS sandbox enters a command's classification: where the command will run is part of its risk. Outside the
 * sandbox (mode "off", or `outside_sandbox: true`) and with the network on (`network: true`) always ask a person;
 * where no sandbox exists, the reasons say so (and `deskhand policy explain` prints them).
 */
import { DEFAULT_SANDBOX_MODE, type SandboxMode } from '../../../shared/sandbox';
import type { Classification, EffectsContext } from '../../runtime/tool';
import type { SandboxPlan, SandboxService } from '../../services/sandbox';

export interface SandboxAsk {
  network?: boolean | undefined;
  outside_sandbox?: boolean | undefined;
}

export function sandboxClassification(base: Classification, ask: SandboxAsk, ctx: Pick<EffectsContext, 'sandbox'>, sandbox: SandboxService): Classification {
  const mode: SandboxMode = ctx.sandbox ?? DEFAULT_SANDBOX_MODE;
  const reasons = [...base.reasons];
  let risk = base.risk;
  let alwaysAsk = base.alwaysAsk ?? null;
  const support = sandbox.support();
  if (mode === 'off') {
    reasons.push('sandbox mode "off": the command runs without the OS sandbox');
    alwaysAsk ??= 'commands run outside the OS sandbox in this conversation';
  } else if (ask.outside_sandbox) {
    risk = 'high-risk';
    reasons.push('outside_sandbox: true: the command runs without the OS sandbox');
    alwaysAsk ??= 'the command asks to run outside the OS sandbox';
  } else if (!support.available) {
    reasons.push(`${support.detail}: the command runs unsandboxed`);
  } else {
    reasons.push(`runs in the ${support.kind} sandbox (${mode === 'workspace-write' ? 'workspace writable' : 'workspace read-only'}, network ${ask.network ? 'on' : 'off'})`);
    if (ask.network) {
      risk = 'high-risk';
      reasons.push('network: true: the command may use the network');
      alwaysAsk ??= 'the command asks for network access';
    }
  }
  // Confined: the OS sandbox runs it, network off, writes only in the workspace (or nowhere, read-only mode).
  const confined = mode !== 'off' && !ask.outside_sandbox && !ask.network && support.available;
  return { ...base, risk, reasons, rulePattern: alwaysAsk ? null : base.rulePattern, alwaysAsk, ...(confined ? { confined: { mode } } : {}) };
}

/** The plan for running one command of a tool call. */
export function commandPlan(
  ask: SandboxAsk,
  ctx: { sandbox?: SandboxMode | undefined; state: { workspaceRoots: readonly string[] }; approvedByPerson?: boolean | undefined; writePaths?: readonly string[] | undefined },
  cwd: string,
  deps: { sandbox: SandboxService; dataDir: string },
): SandboxPlan {
  // The files a person approved this call to change stay writable in the sandbox (every other run-later file is
  // read-only there, and a new one is removed after the command).
  const approvedWrites = ctx.approvedByPerson ? [...(ctx.writePaths ?? [])] : [];
  return deps.sandbox.plan({
    ...(approvedWrites.length ? { approvedWrites } : {}),
    mode: ctx.sandbox ?? DEFAULT_SANDBOX_MODE,
    network: !!ask.network,
    outside: !!ask.outside_sandbox,
    roots: ctx.state.workspaceRoots,
    cwd,
    dataDir: deps.dataDir,
  });
}

/** One short line for results: how the command ran. */
export function sandboxLine(plan: SandboxPlan): string {
  return plan.kind ? `sandbox: ${plan.kind}, ${plan.mode}, network ${plan.network ? 'on' : 'off'}` : `sandbox: none (${plan.summary})`;
}
