/** Tool metadata shared by main and renderer: tiers, policies, disclosure. Pure TypeScript. */

export const RISK_TIERS = ['read-only', 'low-risk', 'high-risk'] as const;
/** A tool's risk for one call. Declared tiers may also be `unknown`: classified per call (execute_command…). */
export type RiskTier = (typeof RISK_TIERS)[number];
export type DeclaredRisk = RiskTier | 'unknown';

export const POLICIES = ['none', 'read-only', 'low-risk', 'high-risk'] as const;
export type Policy = (typeof POLICIES)[number];

export type Disclosure = 'public' | 'internal' | 'private';

export type Decision = 'allow' | 'ask' | 'deny';

const RANK: Record<RiskTier, number> = { 'read-only': 1, 'low-risk': 2, 'high-risk': 3 };
const POLICY_RANK: Record<Policy, number> = { none: 0, 'read-only': 1, 'low-risk': 2, 'high-risk': 3 };

/** A policy clears every tier up to its own level; `none` clears nothing. */
export function policyClears(policy: Policy, risk: RiskTier): boolean {
  return POLICY_RANK[policy] >= RANK[risk];
}

export function maxRisk(a: RiskTier, b: RiskTier): RiskTier {
  return RANK[a] >= RANK[b] ? a : b;
}

export function isPolicy(value: unknown): value is Policy {
  return typeof value === 'string' && (POLICIES as readonly string[]).includes(value);
}
