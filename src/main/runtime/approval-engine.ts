/**
 * The approval engine: one decision for every tool call, from data (tier or classification, policy, taint, stored
 * rules), with the reasons printed by `deskhand policy explain`. Tools never decide whether they may run.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, relative, resolve } from 'node:path';
import { homedir } from 'node:os';
import type { Decision, Policy, RiskTier } from '../../shared/tools';
import { policyClears } from '../../shared/tools';
import { errorMessage } from '../../shared/errors';
import type { ClassifyContext, ToolDefinition } from './tool';

export interface PolicyDecision {
  risk: RiskTier;
  decision: Decision;
  reasons: string[];
  /** What an "always allow" rule for this call covers; null when no rule may be saved. */
  rulePattern: string | null;
}

export interface DecisionInput {
  tool: ToolDefinition;
  args: unknown;
  policy: Policy;
  tainted: boolean;
  ctx: ClassifyContext;
  hasRule(tool: string, pattern: string): boolean;
}

const PATH_ARGS = ['path', 'source', 'destination'] as const;

export async function decide(input: DecisionInput): Promise<PolicyDecision> {
  const { tool, args, policy, ctx } = input;
  const reasons: string[] = [];
  let risk: RiskTier;
  let rulePattern: string | null | undefined;
  let alwaysAsk: string | null | undefined;

  if (tool.classify) {
    try {
      const c = await tool.classify(args, ctx);
      risk = c.risk;
      reasons.push(...c.reasons);
      rulePattern = c.rulePattern;
      alwaysAsk = c.alwaysAsk;
    } catch (err) {
      // A classifier that fails must never downgrade: treat the call as high-risk.
      risk = 'high-risk';
      reasons.push(`classifier failed (${errorMessage(err)}); treated as high-risk`);
      rulePattern = null;
    }
  } else if (tool.risk === 'unknown') {
    risk = 'high-risk';
    reasons.push('no classifier for a per-call tool; treated as high-risk');
  } else {
    risk = tool.risk;
    reasons.push(`${tool.name} is ${risk}`);
  }

  const paths = argPaths(args, ctx.cwd);
  if (rulePattern === undefined) rulePattern = risk === 'read-only' ? null : paths.length ? paths.join(' -> ') : null;

  if (alwaysAsk) {
    reasons.push(`${alwaysAsk}: always asks`);
    return { risk, decision: 'ask', reasons, rulePattern: null };
  }
  const ownData = paths.find((p) => isInside(p, ctx.dataDir));
  if (ownData && risk !== 'read-only') {
    reasons.push(`${ownData} is inside Deskhand's own data folder: always asks`);
    return { risk, decision: 'ask', reasons, rulePattern: null };
  }

  if (input.tainted && tool.egress && risk !== 'high-risk') {
    reasons.push('this run has read untrusted content, so tools that send data out no longer run without asking');
    return { risk, decision: 'ask', reasons, rulePattern: null };
  }

  if (policyClears(policy, risk)) {
    reasons.push(`policy "${policy}" clears ${risk}`);
    return { risk, decision: 'allow', reasons, rulePattern };
  }
  if (rulePattern && input.hasRule(tool.name, rulePattern)) {
    reasons.push(`matches an always-allow rule for ${tool.name}: ${rulePattern}`);
    return { risk, decision: 'allow', reasons, rulePattern };
  }
  reasons.push(policy === 'none' ? 'policy "none" clears nothing' : `policy "${policy}" does not clear ${risk}`);
  return { risk, decision: 'ask', reasons, rulePattern };
}

function argPaths(args: unknown, cwd: string): string[] {
  if (typeof args !== 'object' || args === null) return [];
  const out: string[] = [];
  for (const key of PATH_ARGS) {
    const value = Object.prototype.hasOwnProperty.call(args, key) ? (args as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && value.length > 0) out.push(resolveUserPath(value, cwd));
  }
  return out;
}

export function resolveUserPath(path: string, cwd: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Canonical JSON (sorted keys) so the same arguments always hash the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
