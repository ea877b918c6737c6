/**
 * What an inspector of the approval engine is and what it is given: the types the engine (approval-engine.ts) and each
 * inspector (url-inspector.ts, and the holds' inspectors: hold.ts) share, here so the engine imports its inspectors and
 * they import only these types, downward.
 */
import type { Policy, RiskTier } from '../../../shared/tools';
import type { RulePart, SavedRule } from '../../../shared/rules';
import type { PathCheck } from './path-guard';
import type { AppUse, Effects, EffectsContext, ToolDefinition } from '../tool';
import type { HookOutcome } from '../../../shared/lifecycle-hooks';

/** The person's lasting grants of desktop apps (computer use); a host without one grants nothing. */
export interface AppGrants {
  isGranted(app: string, capability: AppUse['capability']): boolean;
  /** The person revoked this app and has not granted it again: its calls are refused, not asked. */
  wasRevoked?(app: string): boolean;
  /** When the app's grant of this capability ends: a time (ms), null (until revoked), undefined (not granted). */
  endOf?(app: string, capability: AppUse['capability']): number | null | undefined;
}

export interface DecisionInput {
  tool: ToolDefinition;
  args: unknown;
  /** The call's declared effects (computed once by `callEffects`). */
  effects: Effects;
  policy: Policy;
  tainted: boolean;
  ctx: EffectsContext & { readableRoots?: readonly string[] };
  /** The always-allow rules that apply to the call's conversation (its own, its workspace's, everywhere). */
  rules?: readonly SavedRule[];
  /** Secrets the run holds (loaded by ask_user_secret / use_saved_secret); placeholders for others are refused. */
  heldSecrets?: ReadonlySet<string>;
  grants?: AppGrants;
  /** The person's URL grant patterns (`deskhand grants add-url`): matching requests run unattended. */
  urlGrants?: readonly string[];
  /**
   * What holds the conversation, by hold name (hold.ts): plan mode's plan file, a Tower worker's scope, a peer's
   * ceiling… null where a registered hold does not hold it. Each hold's inspector reads its own.
   */
  held?: Readonly<Record<string, unknown>>;
  /**
   * The one untrusted source everything the conversation read came from (`peer alice`), or null (several, or one
   * that does not say). Only a call whose own answers carry that same source (`effects.answerSource`) and that an
   * always-allow rule of this conversation covers may pass the taint inspector on it (ask_peer's "allow this peer
   * for this conversation").
   */
  taintOnly?: string | null;
  /**
   * A person can answer this run now and is the one driving it: the run is interactive (the app's chat, a terminal),
   * not a scheduled fire, a wake-up, an unattended run or a peer's conversation. A time-limited app grant stands in
   * for an approval only then (Spec I: computer use with the person watching); absent counts as nobody present.
   */
  personPresent?: boolean;
  /** What the PreToolUse hooks of this call said (hook-inspector.ts), or null when none matched. */
  hook?: HookOutcome | null;
  /**
   * Whether the change ledger records the conversation's writable roots and keeps what writes to these paths replace
   * (the confined inspector: a change that can be taken back needs no card). Absent: nothing is recorded.
   */
  recorded?: (writes: readonly string[]) => boolean;
}

export type Verdict = 'allow' | 'ask' | 'deny' | 'pass';

/** One inspector's finding: its verdict and reasons, and what it adds to the call's risk and checked paths. */
export interface InspectorReport {
  inspector: string;
  verdict: Verdict;
  reasons: string[];
  risk?: RiskTier;
  paths?: PathCheck[];
  /** The classifier's rule pattern (null: no rule may be saved); undefined leaves it to the paths. */
  rulePattern?: string | null;
  /** The call contacts other machines (a shell network client). */
  network?: boolean;
  /** Every URL of the call is covered by a URL grant (the person named these destinations in advance). */
  urlGranted?: boolean;
  /** Containment: the call asks only because its writes lie outside the roots, and this folder may become a root. */
  rootOffer?: string | null;
  /** The classifier's command parts, for rules matched per part. */
  ruleParts?: readonly RulePart[];
  /** This ask is one an always-allow rule of the conversation clears (the engine still offers one). */
  grantable?: boolean;
  /** Saved rules: the rules that cleared the call. */
  ruleIds?: string[];
  /**
   * The reasons only say why this inspector lets the call through ("tainted, but this call sends nothing out"): they
   * explain an allow (and `policy explain`), never a question, so a call that asks does not list them.
   */
  clearsOnly?: boolean;
}

/** What the inspectors before one have established. */
export interface Facts {
  risk: RiskTier;
  paths: PathCheck[];
  rulePattern: string | null | undefined;
  ruleParts: readonly RulePart[] | undefined;
  network: boolean;
  egress: boolean;
  urlGranted: boolean;
}

export interface Inspector {
  name: string;
  inspect(input: DecisionInput, facts: Facts): InspectorReport;
}
