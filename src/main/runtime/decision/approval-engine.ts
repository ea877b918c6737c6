/**
 * The approval engine: one decision for every tool call, folded over an ordered list of inspectors. Each inspector
 * looks at what the call declared it would touch (`effects`) and returns a verdict with its reasons; the strictest
 * explicit verdict wins (deny, then ask), and a call nothing cleared asks. `deskhand policy explain` prints every
 * inspector's verdict. Tools never decide whether they may run.
 */
import { createHash } from 'node:crypto';
import type { Decision, Policy, RiskTier } from '../../../shared/tools';
import { maxRisk, policyClears } from '../../../shared/tools';
import { errorMessage } from '../../../shared/errors';
import { APP_RULE_PREFIX, ROOT_OFFER_PREFIX } from '../../../shared/always-allow';
import { ANY_CALL_PATTERN, commandPatternMatches, offerCommandPattern, pathPatternMatches, type SavedRule } from '../../../shared/rules';
import { PathGuard, type PathCheck, type PathSpec } from './path-guard';
import { checkPlaceholders } from './secret-args';
import { urlGuard } from './url-inspector';
import { hookInspector } from './hook-inspector';
import { confinedInspector } from './confined-inspector';
import type { DecisionInput, Facts, Inspector, InspectorReport, Verdict } from './inspector';
import type { Effects, EffectsContext, ToolDefinition } from '../tool';

export type { AppGrants, DecisionInput, Facts, Inspector, InspectorReport, Verdict } from './inspector';

export interface PolicyDecision {
  risk: RiskTier;
  decision: Decision;
  reasons: string[];
  /** What an "always allow" rule for this call covers; null when no rule may be saved. */
  rulePattern: string | null;
  /**
   * The folder "always allow" adds as a workspace root of the conversation instead of saving a rule: set only when
   * the call asks for no reason but file-tool writes outside the roots that all lie in this folder.
   */
  rootOffer: string | null;
  /** The path checks the decision used (declared paths, and paths the classifier checked). */
  paths: PathCheck[];
  /** A path is read from outside the workspace: the output is untrusted (envelope + taint). */
  untrustedRead: boolean;
  /** The call contacts other machines or sends data out. */
  network: boolean;
  egress: boolean;
  /** Secret names whose placeholders the call carries in its declared secret arguments. */
  secrets: string[];
  /** Every inspector's report, in order. */
  inspectors: InspectorReport[];
  /** The saved rules that cleared the call (empty unless a rule decided it). */
  ruleIds: string[];
}

const report = (inspector: string, verdict: Verdict, reasons: string[], extra: Partial<InspectorReport> = {}): InspectorReport => ({
  inspector,
  verdict,
  reasons,
  ...extra,
});

/** The tool's tier, or the family's own per-call judgement (the shell family's command classifier). */
const classifier: Inspector = {
  name: 'classifier',
  inspect({ tool, effects }) {
    const a = effects.assessment;
    if (a?.deny) return report('classifier', 'deny', [a.deny], { risk: 'high-risk', rulePattern: null, paths: a.paths ?? [] });
    if (a) {
      const reasons = [...a.reasons];
      if (a.alwaysAsk) reasons.push(`${a.alwaysAsk}: always asks`);
      return report('classifier', a.alwaysAsk ? 'ask' : 'pass', reasons, {
        risk: a.risk,
        rulePattern: a.rulePattern,
        ...(a.ruleParts ? { ruleParts: a.ruleParts } : {}),
        paths: a.paths ?? [],
        network: !!a.network,
      });
    }
    if (tool.risk === 'unknown') return report('classifier', 'pass', ['no classification for a per-call tool; treated as high-risk'], { risk: 'high-risk' });
    return report('classifier', 'pass', [`${tool.name} is ${tool.risk}`], { risk: tool.risk });
  },
};

/** Every declared path: workspace containment, links, hard links, sensitive paths. Picked files are readable. */
const containment: Inspector = {
  name: 'containment',
  inspect({ effects, ctx }) {
    const spec: PathSpec = effects.paths ?? {};
    if (!spec.read?.length && !spec.write?.length) return report('containment', 'pass', []);
    let checks: PathCheck[];
    try {
      const writeGuard = new PathGuard(ctx);
      const readGuard = ctx.readableRoots?.length ? new PathGuard({ ...ctx, workspaceRoots: [...ctx.workspaceRoots, ...ctx.readableRoots] }) : writeGuard;
      checks = [...readGuard.checkAll({ read: spec.read ?? [] }), ...writeGuard.checkAll({ write: spec.write ?? [] })];
    } catch (err) {
      return report('containment', 'ask', [`its paths could not be checked (${errorMessage(err)}): always asks`], { risk: 'high-risk' });
    }
    let risk: RiskTier = 'read-only';
    const reasons: string[] = [];
    const asks: string[] = [];
    for (const p of checks) {
      reasons.push(p.summary);
      risk = maxRisk(risk, p.risk);
      if (p.alwaysAsk) asks.push(`${p.alwaysAsk}: always asks`);
    }
    // A root may be offered only when every path that asks does so for lying outside the roots, in one folder.
    const asking = checks.filter((p) => p.alwaysAsk);
    const offers = new Set(asking.map((p) => p.rootOffer ?? null));
    const rootOffer = asking.length && offers.size === 1 && !offers.has(null) ? [...offers][0]! : null;
    return report('containment', asks.length ? 'ask' : 'pass', [...reasons, ...asks], { risk, paths: checks, ...(rootOffer ? { rootOffer } : {}) });
  },
};

/** `[redacted:NAME]` placeholders: refused outside declared arguments or for secrets the run does not hold. */
const secrets: Inspector = {
  name: 'secrets',
  inspect({ tool, args, effects, heldSecrets }) {
    const verdict = checkPlaceholders({ name: tool.name, secretArgs: effects.secretArgs }, args, heldSecrets);
    if (verdict.refused) return report('secrets', 'deny', [verdict.refused]);
    if (!verdict.used.length) return report('secrets', 'pass', []);
    const names = verdict.used.map((n) => `[redacted:${n}]`).join(', ');
    return report('secrets', 'ask', [`the call uses saved secret${verdict.used.length > 1 ? 's' : ''} ${names}; every use of a secret is approved by a person: always asks`]);
  },
};

/**
 * Once a run has read untrusted content, nothing that sends data out or contacts other machines runs unasked, at any
 * tier and under any policy, unless every URL of the call is covered by a URL grant the person made; and the run
 * cannot schedule its own wake-ups unasked. Each reason says what actually holds for the call.
 */
const taint: Inspector = {
  name: 'taint',
  inspect(input, facts) {
    const { tainted, effects } = input;
    if (!tainted) return report('taint', 'pass', []);
    if (effects.wakesLater) {
      return report('taint', 'ask', ['this run has read untrusted content, so it cannot schedule the agent to run again later without asking (injected content must not schedule its own wake-ups): always asks']);
    }
    if (!facts.egress && !facts.network) return report('taint', 'pass', ['the run is tainted, but this call neither sends data out nor contacts other machines'], { clearsOnly: true });
    if (!facts.network && timedGrantCovers(input)) {
      return report('taint', 'pass', ['the run is tainted, but this call acts only in apps the person granted for a limited time, for what it does there'], { clearsOnly: true });
    }
    if (facts.urlGranted) return report('taint', 'pass', ['the run is tainted, but every URL of this call is covered by a URL grant the person made'], { clearsOnly: true });
    // An app's own outline is not a third party's words for a call back into that same app: a run tainted only by what
    // "zenity" shows may type and click in "zenity" as a clean run may (its grant, rules and the policy decide). The
    // source must be the very one the call names (exact, as the grant book names apps), the call reach nothing else,
    // and a person be present (a scheduled or unattended run tainted by the app still asks, as before).
    const acted = [...new Set((effects.apps ?? []).map((a) => a.app))];
    if (input.taintOnly && effects.actsOnSource === input.taintOnly && acted.length === 1 && !facts.network && !effects.screens?.length && input.personPresent === true) {
      return report('taint', 'pass', [`the run is tainted only by what "${acted[0]}" itself shows, and this call acts only in "${acted[0]}": the app's own content is not a third party's`], { clearsOnly: true });
    }
    // "Allow this peer for this conversation": the grant covers the peer's own answers, nothing else. Once anything
    // else untrusted was read (a web page, a file outside the workspace, another peer, a recalled memory), taint wins.
    const only = input.taintOnly;
    if (only && effects.answerSource === only && typeof facts.rulePattern === 'string' && (input.rules ?? []).some((r) => r.tool === input.tool.name && r.pattern === facts.rulePattern)) {
      return report('taint', 'pass', [`the run is tainted only by ${only}'s own answers, and the person allowed that peer for this conversation`]);
    }
    if (only && effects.answerSource === only) {
      // Asks, and may be answered with "allow this peer for this conversation" (the one grant that clears it).
      return report('taint', 'ask', [`this run has read untrusted content, only ${only}'s own answers: a call back to that peer asks under every policy unless the person allows the peer for this conversation`], { grantable: true });
    }
    const what = facts.egress ? 'sends data out of Deskhand' : 'contacts other machines';
    const apps = [...new Set((effects.apps ?? []).map((a) => `"${a.app}"`))];
    // A call that acts in apps (computer use) is cleared by app grants, not URL grants: its reason says which.
    if (apps.length && !facts.network) {
      return report('taint', 'ask', [
        `this run has read untrusted content${input.taintOnly ? ` (${input.taintOnly})` : ''}, so a call that sends input into ${apps.join(', ')} asks at every tier (this one is ${facts.risk}) and under every policy, unless each app is granted for a limited time with a person present, or the app's own content is all the run read: always asks`,
      ]);
    }
    return report('taint', 'ask', [
      `this run has read untrusted content, so a call that ${what} asks at every tier (this one is ${facts.risk}) and under every policy, unless a URL grant covers each of its URLs: always asks`,
    ]);
  },
};

/** `06:40` (a grant's end, as the person reads it in the reasons). */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16) + ' UTC';
}

/**
 * A call whose only reach is into apps the person granted for a limited time, each for the capability it uses (the
 * grant is the approval: "let it type into zenity for 10 minutes"): its reasons, or null. A grant until revoked, a
 * call that also names URLs, hosts or other network, screens, or policy "none" never qualifies; nor does any call of a
 * run nobody is present for (scheduled, a wake-up, unattended, a peer's): the grant was given to a person watching.
 */
function timedGrantCovers({ effects, grants, policy: p, personPresent }: DecisionInput): string[] | null {
  const apps = effects.apps ?? [];
  if (!apps.length || effects.screens?.length || p === 'none' || !grants?.endOf || personPresent !== true) return null;
  if (effects.urls?.length || effects.hosts?.length || effects.network) return null;
  const reasons: string[] = [];
  for (const a of apps) {
    const end = grants.endOf(a.app, a.capability);
    if (typeof end !== 'number') return null;
    reasons.push(`"${a.app}" is granted ${a.capability} until ${clock(end)} (a time-limited grant): the grant is the approval`);
  }
  return reasons;
}

/** Computer use touches only apps the person granted, for the capabilities they granted. */
const appGrants: Inspector = {
  name: 'app-grants',
  inspect(input) {
    const { effects, grants } = input;
    const apps = effects.apps ?? [];
    const screens = effects.screens ?? [];
    if (!apps.length && !screens.length) return report('app-grants', 'pass', []);
    const missing = apps.filter((a) => !grants?.isGranted(a.app, a.capability));
    const revoked = [...new Set(missing.filter((a) => grants?.wasRevoked?.(a.app)).map((a) => a.app))];
    if (revoked.length) {
      const what = revoked.map((a) => `"${a}"`).join(', ');
      return report('app-grants', 'deny', [`the person revoked ${what}: refused until they grant it again (computer_grant_app asks them)`]);
    }
    if (missing.length) {
      const what = missing.map((a) => `${a.capability} on "${a.app}"`).join(', ');
      return report('app-grants', 'ask', [`the person has not granted ${what}: always asks`]);
    }
    // An always-allow rule for a granted app covers that app only, and only while the grant lasts (an expired or
    // revoked grant asks or refuses above, and no rule clears those).
    const only = [...new Set(apps.map((a) => a.app))];
    const rulePattern = only.length === 1 && !screens.length ? `${APP_RULE_PREFIX}${only[0]}` : null;
    const covered = timedGrantCovers(input);
    if (covered) return report('app-grants', 'allow', covered, { rulePattern });
    const granted = apps.map((a) => `"${a.app}" is granted ${a.capability}`);
    // A time-limited grant with nobody present: it is not the approval here; the policy (or a person, later) decides.
    if (input.personPresent !== true && timedGrantCovers({ ...input, personPresent: true })) {
      granted.push('nobody is present to watch this run (scheduled, a wake-up, unattended, or a peer\'s), so the time-limited grant does not approve it: the policy decides, and a call it does not clear waits for a person');
    }
    return report('app-grants', 'pass', granted, { rulePattern });
  },
};

const policy: Inspector = {
  name: 'policy',
  inspect({ policy: p }, facts) {
    if (policyClears(p, facts.risk)) return report('policy', 'allow', [`policy "${p}" clears ${facts.risk}`]);
    return report('policy', 'pass', [p === 'none' ? 'policy "none" clears nothing' : `policy "${p}" does not clear ${facts.risk}`]);
  },
};

const savedRules: Inspector = {
  name: 'saved-rules',
  inspect({ tool, rules = [], policy: p }, facts) {
    const mine = rules.filter((r) => r.tool === tool.name);
    if (!mine.length) return report('saved-rules', 'pass', []);
    const hit = (matched: SavedRule[], what: string) =>
      // Said by pattern (what the person saved); the ids, which people never see, go in ruleIds.
      report('saved-rules', 'allow', [`${what} matches your always-allow rule${matched.length === 1 ? '' : 's'} ${[...new Set(matched.map((r) => `"${r.pattern}"`))].join(', ')}`], {
        ruleIds: [...new Set(matched.map((r) => r.id))],
      });
    if (facts.ruleParts) {
      // Per part: what the policy clears needs no rule; every other part must be one plain command a rule covers.
      const uncleared = facts.ruleParts.filter((part) => !policyClears(p, part.risk));
      if (!uncleared.length) return report('saved-rules', 'pass', []);
      const matched: SavedRule[] = [];
      for (const part of uncleared) {
        const rule = part.words ? mine.find((r) => commandPatternMatches(r.pattern, part.words!)) : undefined;
        if (!rule) return report('saved-rules', 'pass', []);
        matched.push(rule);
      }
      return hit(matched, uncleared.length === 1 ? `\`${uncleared[0]!.text}\`` : 'every part the policy does not clear');
    }
    const pattern = rulePatternOf(facts, p);
    const resolved = facts.paths.filter((x) => !x.error).map((x) => x.resolved);
    const rule = mine.find((r) => (pattern !== null && r.pattern === pattern) || (facts.rulePattern === undefined && pathPatternMatches(r.pattern, resolved)));
    if (rule) return hit([rule], 'the call');
    return report('saved-rules', 'pass', []);
  },
};

/**
 * The general inspectors, in the order they run and are printed. The holds' inspectors (plan mode, mission scope, a
 * peer's ceiling…) run after containment and registered ones where they ask: decision-book.ts puts the list together.
 */
export const GENERAL_INSPECTORS: readonly Inspector[] = [classifier, containment, secrets, urlGuard, taint, appGrants, confinedInspector, policy, savedRules, hookInspector];

function rulePatternOf(facts: Facts, p: Policy): string | null {
  // The root-offer prefix is reserved: a rule pattern never reads as an offer to add a workspace root.
  if (typeof facts.rulePattern === 'string' && facts.rulePattern.startsWith(ROOT_OFFER_PREFIX)) return null;
  if (facts.ruleParts) {
    // A command: a rule for the one part the policy does not clear, when it is a plain command of literal words.
    const uncleared = facts.ruleParts.filter((part) => !policyClears(p, part.risk));
    return uncleared.length === 1 && uncleared[0]!.words ? offerCommandPattern(uncleared[0]!.words) : null;
  }
  if (facts.rulePattern !== undefined) return facts.rulePattern;
  if (facts.risk === 'read-only') return null;
  const resolved = facts.paths.filter((x) => !x.error).map((x) => x.resolved);
  // A low-risk tool with nothing finer to match (a reminder, a trigger): a rule for every call of the tool.
  if (!resolved.length) return facts.risk === 'low-risk' && !facts.network && !facts.egress ? ANY_CALL_PATTERN : null;
  // A file tool: the folder holding what it touches (`/proj/src/*`), so the rule fits how people work.
  const folder = commonFolder(resolved);
  return folder ? `${folder}${folder.endsWith('/') || folder.endsWith('\\') ? '' : '/'}*` : resolved.join(' -> ');
}

/** The deepest folder holding every path, or null when that would be a filesystem root. */
function commonFolder(paths: readonly string[]): string | null {
  const sep = paths[0]!.includes('\\') && !paths[0]!.includes('/') ? '\\' : '/';
  const parts = paths.map((x) => x.split(sep).slice(0, -1));
  const first = parts[0]!;
  let n = first.length;
  for (const q of parts) {
    let i = 0;
    while (i < n && i < q.length && q[i] === first[i]) i++;
    n = i;
  }
  const folder = first.slice(0, n).join(sep);
  // '' is '/', and 'C:' is a drive root: never offer a rule for everything on a disk.
  if (folder === '' || /^[A-Za-z]:$/.test(folder)) return null;
  return folder;
}

/** The decision for one call: every inspector in order, folded; the strictest explicit verdict wins. */
export function decide(input: DecisionInput, inspectors: readonly Inspector[] = GENERAL_INSPECTORS): PolicyDecision {
  const e = input.effects;
  const facts: Facts = {
    risk: 'read-only',
    paths: [],
    rulePattern: undefined,
    ruleParts: undefined,
    network: !!(e.network || e.urls?.length || e.hosts?.length),
    egress: !!e.egress,
    urlGranted: false,
  };
  const reports: InspectorReport[] = [];
  for (const inspector of inspectors) {
    const r = inspector.inspect(input, facts);
    reports.push(r);
    if (r.risk) facts.risk = reports.length === 1 ? r.risk : maxRisk(facts.risk, r.risk);
    if (r.paths) facts.paths.push(...r.paths);
    if (r.rulePattern !== undefined) facts.rulePattern = r.rulePattern;
    if (r.ruleParts) facts.ruleParts = r.ruleParts;
    if (r.network) facts.network = true;
    if (r.urlGranted) facts.urlGranted = true;
    if (r.verdict === 'deny') break;
  }
  const verdicts = reports.map((r) => r.verdict);
  const decision: Decision = verdicts.includes('deny') ? 'deny' : verdicts.includes('ask') ? 'ask' : verdicts.includes('allow') ? 'allow' : 'ask';
  // Only a call that merely was not cleared may be covered by a rule; an explicit ask or deny never is, unless every
  // inspector that asks says a rule would clear it (grantable: ask_peer back to the one peer whose answers tainted it).
  const hard = verdicts.includes('deny') || verdicts.includes('ask');
  const grantable = reports.some((r) => r.grantable) && reports.every((r) => r.verdict !== 'deny' && (r.verdict !== 'ask' || r.grantable));
  // A call that asks or is denied because an inspector said so ends its reasons with why (hosts show the last reason
  // as the headline): what later inspectors would have cleared did not decide it. `inspectors` keeps every report.
  let deciding = reports.length;
  if (hard) while (deciding > 0 && reports[deciding - 1]!.verdict !== 'ask' && reports[deciding - 1]!.verdict !== 'deny') deciding--;
  // Only when the containment inspector is the only one asking (and nothing denies) may "always" add a root.
  const askers = reports.filter((r) => r.verdict === 'ask' || r.verdict === 'deny');
  const rootOffer = askers.length === 1 && askers[0]!.verdict === 'ask' && askers[0]!.rootOffer ? askers[0]!.rootOffer : null;
  const placeholders = checkPlaceholders({ name: input.tool.name, secretArgs: e.secretArgs }, input.args, input.heldSecrets);
  return {
    risk: facts.risk,
    decision,
    // What let the call through is no reason to ask (a question lists only what makes it one).
    reasons: reports.slice(0, deciding).flatMap((r) => (decision !== 'allow' && r.clearsOnly ? [] : r.reasons)),
    rulePattern: hard && !grantable ? null : rulePatternOf(facts, input.policy),
    rootOffer,
    paths: facts.paths,
    untrustedRead: facts.paths.some((p) => p.untrusted),
    network: facts.network || facts.egress,
    egress: facts.egress,
    secrets: placeholders.used,
    inspectors: reports,
    ruleIds: decision === 'allow' ? reports.flatMap((r) => r.ruleIds ?? []) : [],
  };
}

/** Argument names a tool that declares no effects is assumed to touch (fail safe: checked, not trusted). */
const UNDECLARED_PATH_ARGS = ['path', 'paths', 'file', 'source', 'destination', 'dir', 'directory', 'cwd'] as const;

/**
 * A call's effects as its tool declares them. A tool whose declaration fails is treated as high-risk; a tool that
 * declares nothing (one that arrived at run time without a declaration) has its path-like arguments checked as
 * writes, unless it is read-only, so an undeclared tool can never reach a path unchecked.
 */
export async function callEffects(tool: ToolDefinition, args: unknown, ctx: EffectsContext): Promise<Effects> {
  if (!tool.effects) return undeclaredEffects(tool, args);
  try {
    return await tool.effects(args as never, ctx);
  } catch (err) {
    return {
      assessment: {
        risk: 'high-risk',
        reasons: [`classifier failed (${errorMessage(err)}); treated as high-risk`],
        rulePattern: null,
      },
    };
  }
}

function undeclaredEffects(tool: ToolDefinition, args: unknown): Effects {
  if (typeof args !== 'object' || args === null) return {};
  const found: string[] = [];
  for (const key of UNDECLARED_PATH_ARGS) {
    const value = Object.prototype.hasOwnProperty.call(args, key) ? (args as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && value !== '') found.push(value);
    else if (Array.isArray(value)) found.push(...value.filter((v): v is string => typeof v === 'string' && v !== ''));
  }
  if (found.length === 0) return {};
  return { paths: tool.risk === 'read-only' ? { read: found } : { write: found } };
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

/** Effects, then the decision: for callers that have only the tool and its arguments (explain, tests). */
export async function decideCall(input: Omit<DecisionInput, 'effects'>, inspectors?: readonly Inspector[]): Promise<PolicyDecision> {
  return decide({ ...input, effects: await callEffects(input.tool, input.args, input.ctx) }, inspectors);
}
