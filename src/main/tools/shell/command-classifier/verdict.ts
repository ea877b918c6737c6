/** One command's verdict (risk, reasons, network, program), the shorthands that make one, and how two combine. */
import { maxRisk, type RiskTier } from '../../../../shared/tools';

export interface Verdict {
  risk: RiskTier;
  reasons: string[];
  network: boolean;
  program: string | null;
}

export const readOnly = (program: string, why = 'read-only'): Verdict => ({ risk: 'read-only', reasons: [`${program}: ${why}`], network: false, program });
export const lowRisk = (program: string, why: string): Verdict => ({ risk: 'low-risk', reasons: [`${program}: ${why}`], network: false, program });
export const highRisk = (program: string | null, why: string, network = false): Verdict => ({
  risk: 'high-risk',
  reasons: [program ? `${program}: ${why}` : why],
  network,
  program,
});

export function merge(into: Verdict, v: Verdict): Verdict {
  return {
    risk: maxRisk(into.risk, v.risk),
    reasons: [...into.reasons, ...v.reasons],
    network: into.network || v.network,
    program: v.program ?? into.program,
  };
}

export type Parsed = { ok: true; simple: boolean; normalized: string } | { ok: false; reason: string };

/** A program whose arguments are not plain literals (expansions, globs): its flags cannot be checked. */
export function notLiteral(program: string, why = 'checks its flags'): Verdict {
  return highRisk(program, `has arguments that are not plain literals (expansions, globs); the classifier ${why} and cannot see through them`);
}

export function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
