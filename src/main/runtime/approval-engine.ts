/**
 * The approval engine: one decision for every tool call, from data (tier or classification, policy, taint, stored
 * rules), with the reasons printed by `deskhand policy explain`. Tools never decide whether they may run.
 */
import { createHash } from 'node:crypto';
import type { Decision, Policy, RiskTier } from '../../shared/tools';
import { maxRisk, policyClears } from '../../shared/tools';
import { errorMessage } from '../../shared/errors';
import { PathGuard, type PathCheck, type PathSpec } from './path-guard';
import { checkPlaceholders } from './secret-args';
import type { ClassifyContext, ToolDefinition } from './tool';

export interface PolicyDecision {
  risk: RiskTier;
  decision: Decision;
  reasons: string[];
  /** What an "always allow" rule for this call covers; null when no rule may be saved. */
  rulePattern: string | null;
  /** The path checks the decision used (file tool paths, and paths the classifier checked). */
  paths: PathCheck[];
  /** A path is read from outside the workspace: the output is untrusted (envelope + taint). */
  untrustedRead: boolean;
  /** The call contacts other machines (classifier) or is an egress tool. */
  network: boolean;
  /** Secret names whose placeholders the call carries in its declared secret arguments. */
  secrets: string[];
}

export interface DecisionInput {
  tool: ToolDefinition;
  args: unknown;
  policy: Policy;
  tainted: boolean;
  ctx: ClassifyContext;
  hasRule(tool: string, pattern: string): boolean;
  /** Secrets the run holds (loaded by ask_user_secret / use_saved_secret); placeholders for others are refused. */
  heldSecrets?: ReadonlySet<string>;
}

/** Argument names checked for tools that do not declare `paths` (new tools fail safe until they do). */
const PATH_ARGS = ['path', 'source', 'destination'] as const;

export async function decide(input: DecisionInput): Promise<PolicyDecision> {
  const { tool, args, policy, ctx } = input;
  const reasons: string[] = [];
  let risk: RiskTier;
  let rulePattern: string | null | undefined;
  const alwaysAsk: string[] = [];
  let network = false;
  const paths: PathCheck[] = [];

  if (tool.classify) {
    try {
      const c = await tool.classify(args, ctx);
      risk = c.risk;
      reasons.push(...c.reasons);
      rulePattern = c.rulePattern;
      if (c.alwaysAsk) alwaysAsk.push(c.alwaysAsk);
      network = !!c.network;
      if (c.paths) paths.push(...c.paths);
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
  const result = (decision: Decision, pattern: string | null): PolicyDecision => ({
    risk,
    decision,
    reasons,
    rulePattern: pattern,
    paths,
    untrustedRead: paths.some((p) => p.untrusted),
    network: network || tool.egress,
    secrets,
  });

  // Secret placeholders: refused outside declared arguments (and for secrets the run does not hold); asked otherwise.
  const placeholders = checkPlaceholders(tool, args, input.heldSecrets);
  const secrets = placeholders.used;
  if (placeholders.refused) {
    reasons.push(placeholders.refused);
    return result('deny', null);
  }
  if (secrets.length) alwaysAsk.push(`the call uses saved secret${secrets.length > 1 ? 's' : ''} ${secrets.map((n) => `[redacted:${n}]`).join(', ')}; every use of a secret is approved by a person`);

  // Containment: every path the tool reads or writes.
  let fileChecks: PathCheck[] = [];
  try {
    fileChecks = new PathGuard(ctx).checkAll(pathSpec(tool, args));
  } catch (err) {
    risk = 'high-risk';
    alwaysAsk.push(`its paths could not be checked (${errorMessage(err)})`);
  }
  paths.push(...fileChecks);
  for (const p of fileChecks) {
    reasons.push(p.summary);
    risk = maxRisk(risk, p.risk);
    if (p.alwaysAsk) alwaysAsk.push(p.alwaysAsk);
  }

  const resolvedPaths = fileChecks.filter((p) => !p.error).map((p) => p.resolved);
  if (rulePattern === undefined) rulePattern = risk === 'read-only' ? null : resolvedPaths.length ? resolvedPaths.join(' -> ') : null;

  if (alwaysAsk.length) {
    for (const why of alwaysAsk) reasons.push(`${why}: always asks`);
    return result('ask', null);
  }

  if (input.tainted && network) {
    reasons.push('this run has read untrusted content, so commands that contact other machines always ask, whatever the policy');
    return result('ask', null);
  }
  if (input.tainted && tool.egress && risk !== 'high-risk') {
    reasons.push('this run has read untrusted content, so tools that send data out no longer run without asking');
    return result('ask', null);
  }

  if (policyClears(policy, risk)) {
    reasons.push(`policy "${policy}" clears ${risk}`);
    return result('allow', rulePattern);
  }
  if (rulePattern && input.hasRule(tool.name, rulePattern)) {
    reasons.push(`matches an always-allow rule for ${tool.name}: ${rulePattern}`);
    return result('allow', rulePattern);
  }
  reasons.push(policy === 'none' ? 'policy "none" clears nothing' : `policy "${policy}" does not clear ${risk}`);
  return result('ask', rulePattern);
}

/** The paths a call touches: what the tool declares, else its path-like arguments (read for read-only tools). */
export function pathSpec(tool: ToolDefinition, args: unknown): PathSpec {
  if (tool.paths) return tool.paths(args);
  if (typeof args !== 'object' || args === null) return {};
  const found: string[] = [];
  for (const key of PATH_ARGS) {
    const value = Object.prototype.hasOwnProperty.call(args, key) ? (args as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && value.length > 0) found.push(value);
  }
  return tool.risk === 'read-only' ? { read: found } : { write: found };
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
