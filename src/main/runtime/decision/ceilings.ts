/**
 * Ceilings a conversation inherits from the conversations above it (a subagent's parent, that parent's parent…).
 * A child is made under its parent's ceilings at spawn (tools, policy, taint: the subagent service), and held to the
 * parent's *current* ones at every step while it runs: the subagents' hold (tools/subagents/hold.ts) walks up the tree and reports the strictest
 * of what it finds — plan mode, the lowest policy, taint. So a parent that enters plan mode, is moved to a lower
 * policy or becomes tainted after its child started holds that child too, from the child's next step on.
 */
import { POLICIES, type Policy } from '../../../shared/tools';
import type { PeerCeiling } from './peer-ceiling';

export interface InheritedCeiling {
  /** An ancestor is in plan mode: the child writes nothing (not even that ancestor's plan file) and acts read-only. */
  planMode: { from: string; planFile: string } | null;
  /** The lowest policy among the ancestors, or null when none is lower than any policy. */
  policy: Policy | null;
  /** An ancestor read untrusted content. */
  tainted: boolean;
  /** An ancestor is a peer's conversation: the nearest one's ceiling (context is judged by it, peer-ceiling.ts). */
  peer?: PeerCeiling | null;
}

const RANK = new Map<string, number>(POLICIES.map((p, i) => [p, i]));

/** The stricter of two policies (an unknown name counts as the strictest, "none"). */
export function lowerPolicyOf(a: Policy, b: Policy | null | undefined): Policy {
  if (!b) return a;
  return (RANK.get(a) ?? 0) <= (RANK.get(b) ?? 0) ? a : b;
}
