/**
 * Decision for a call without running anything (`deskhand policy explain`): every inspector's verdict with its
 * reasons, the containment of every path (where it really lands, links followed, sensitive or not), and the taint
 * rule. A function of its own so a host can judge calls without building the runtime (host/cli/policy.ts). The
 * decision's input comes from the function the run uses (decision-input.ts): in a conversation, its folder, roots,
 * readable roots, plan mode and every other hold, taint and its one source, and the secrets its last run holds.
 */
import type { Policy, RiskTier } from '../../../shared/tools';
import type { SandboxMode } from '../../../shared/sandbox';
import type { Store } from '../../services/store/store';
import { DeskhandError } from '../../../shared/errors';
import { callEffects, decide, type AppGrants, type Verdict } from './approval-engine';
import type { RunLaterPath } from './path-guard';
import type { ToolRegistry } from '../registry';
import { PEER_CEILING_HOLD, type PeerCeiling } from './peer-ceiling';
import type { DecisionBook } from './decision-book';
import { decisionBase, type DecisionSubject } from './decision-input';
import { PersistentConversationState } from '../context/conversation-state';
import { heldSecretNames } from './call-security';
import type { HookOutcome, HookScope, HookTarget } from '../../../shared/lifecycle-hooks';

export interface ExplainResult {
  tool: string;
  risk: RiskTier;
  decision: string;
  reasons: string[];
  /** Every inspector's verdict, in the order they ran. */
  inspectors: { inspector: string; verdict: Verdict; reasons: string[] }[];
  /** The saved rules that cleared the call, and the pattern "always allow" would save (null: none may be saved). */
  rules: { matched: { id: string; pattern: string; scope: string; scopeValue: string | null; source: string | null }[]; offered: string | null };
  containment: {
    access: 'read' | 'write';
    path: string;
    resolved: string;
    links: { link: string; target: string }[];
    insideWorkspace: boolean;
    workspaceRoot: string | null;
    sensitive: string | null;
    alwaysAsk: string | null;
    untrusted: boolean;
    summary: string;
  }[];
  taint: { tainted: boolean; egress: boolean; network: boolean; rule: string; taintsRun?: string };
  secrets?: string[];
  /**
   * The PreToolUse hooks that apply to the call (their commands), whether explain ran them (`--run-hooks`), and the
   * hooks inspector's verdict in words.
   */
  hooks: { applying: string[]; ran: boolean; summary: string };
}

/** What judging a call reads: the tools, the store's conversations, rules and grants, and the host's holds. */
export interface ExplainDeps {
  registry: Pick<ToolRegistry, 'resolve' | 'parseArgs' | 'secretHolders' | 'lookup'>;
  store: Pick<Store, 'rules' | 'urlGrants' | 'getConversation' | 'latestRunForConversation' | 'succeededCallArgs'>;
  dataDir: string;
  runLaterPaths?: (() => readonly RunLaterPath[]) | undefined;
  grants?: AppGrants | undefined;
  /** The inspectors and holds the host registered (the run's own). */
  decisions: DecisionBook;
  /** Whether the change ledger records these roots and keeps what the writes replace (the confined inspector). */
  recordsRoots?: ((roots: readonly string[], writes?: readonly string[]) => boolean) | null | undefined;
  /** The PreToolUse hooks (the host's hooks service): which apply, and running them when asked. */
  preToolHooks?: {
    applying(roots: readonly string[], target: HookTarget): string[];
    fire(scope: HookScope, input: Record<string, unknown>, target: HookTarget): Promise<HookOutcome | null>;
  };
}

export interface ExplainRequest {
  tool: string;
  args: unknown;
  /** Default: the conversation's policy, else read-only. */
  policy?: Policy;
  /** Default: the conversation's working folder; required without a conversation. */
  cwd?: string;
  sandbox?: SandboxMode;
  tainted?: boolean;
  roots?: readonly string[];
  conversationId?: string;
  /** Judge the call as in a conversation of this peer (`policy explain --peer NAME`). */
  peerCeiling?: PeerCeiling | null;
  /** Run the PreToolUse hooks that apply (they are processes), so their verdict joins the fold as in a run. */
  runHooks?: boolean;
}

/** The conversation a call is judged in, as the run reads it (its state, taint, held secrets), with the flags on top. */
function subjectOf(deps: ExplainDeps, opts: ExplainRequest): DecisionSubject {
  const id = opts.conversationId ?? null;
  const conv = id ? deps.store.getConversation(id) : undefined;
  const held = opts.peerCeiling ? { [PEER_CEILING_HOLD]: opts.peerCeiling } : undefined;
  const roots = opts.roots ?? [];
  if (!conv) {
    if (!opts.cwd) throw new DeskhandError('invalid_args', id ? `No conversation ${id}: give the working folder (--cwd) to judge the call outside one.` : 'Give the working folder (--cwd) to judge the call in.');
    return {
      conversationId: id,
      folder: opts.cwd,
      cwd: opts.cwd,
      workspaceRoots: [opts.cwd, ...roots],
      readableRoots: [],
      slots: {},
      sandbox: opts.sandbox,
      policy: opts.policy ?? 'read-only',
      tainted: !!opts.tainted,
      taintOnly: null,
      interactive: false,
      ...(held ? { held } : {}),
    };
  }
  const state = new PersistentConversationState(conv.folder, conv.state);
  const run = deps.store.latestRunForConversation(conv.id);
  return {
    conversationId: conv.id,
    folder: conv.folder,
    cwd: opts.cwd ?? state.cwd,
    workspaceRoots: [...new Set([...state.workspaceRoots, ...roots])],
    readableRoots: state.readableRoots,
    slots: state.slots,
    sandbox: opts.sandbox ?? conv.sandbox,
    policy: opts.policy ?? conv.policy,
    tainted: !!opts.tainted || conv.tainted === 1 || run?.tainted === 1,
    taintOnly: conv.tainted === 1 ? conv.taint_only : null,
    // What its last run holds (loaded by ask_user_secret / use_saved_secret), as the run reads it.
    heldSecrets: run ? heldSecretNames(deps.store.succeededCallArgs(run.id, deps.registry.secretHolders()), (name) => deps.registry.lookup(name)) : new Set(),
    interactive: false,
    ...(held ? { held } : {}),
  };
}

export async function explainCall(deps: ExplainDeps, opts: ExplainRequest): Promise<ExplainResult> {
    const tool = deps.registry.resolve(opts.tool);
    const parsed = deps.registry.parseArgs(tool, opts.args);
    const subject = subjectOf(deps, opts);
    const base = decisionBase({ store: deps.store, decisions: deps.decisions, grants: deps.grants, dataDir: deps.dataDir, runLater: deps.runLaterPaths, recordsRoots: deps.recordsRoots }, subject);
    const { tainted, rules } = base;
    const effects = await callEffects(tool, parsed, base.ctx);
    const target = { name: tool.name, ...(tool.claudeCodeName ? { claudeName: tool.claudeCodeName } : {}) };
    const applying = deps.preToolHooks?.applying(subject.workspaceRoots, target) ?? [];
    const hook =
      opts.runHooks && applying.length && deps.preToolHooks
        ? await deps.preToolHooks.fire({ conversationId: subject.conversationId ?? 'policy-explain', runId: 'policy-explain', cwd: subject.cwd, roots: subject.workspaceRoots, policy: subject.policy }, { tool_name: tool.name, tool_input: parsed, tool_use_id: 'policy-explain' }, target)
        : null;
    const d = decide({ ...base, tool, args: parsed, effects, hook }, deps.decisions.inspectors());
    const verdict = d.inspectors.find((r) => r.inspector === 'hooks');
    return {
      tool: tool.name,
      risk: d.risk,
      decision: d.decision,
      reasons: d.reasons,
      inspectors: d.inspectors.map((r) => ({ inspector: r.inspector, verdict: r.verdict, reasons: r.reasons })),
      rules: {
        matched: rules.filter((r) => d.ruleIds.includes(r.id)).map((r) => ({ id: r.id, pattern: r.pattern, scope: r.scope, scopeValue: r.scope_value, source: r.source })),
        offered: d.rulePattern,
      },
      containment: d.paths.map((p) => ({
        access: p.access,
        path: p.path,
        resolved: p.resolved,
        links: p.links,
        insideWorkspace: p.root !== null,
        workspaceRoot: p.root,
        sensitive: p.sensitive ? p.sensitive.what : null,
        alwaysAsk: p.alwaysAsk,
        untrusted: p.untrusted,
        summary: p.summary,
      })),
      taint: {
        tainted,
        egress: d.egress,
        network: d.network,
        // What the taint inspector found, in its own words (one place decides and explains).
        rule: tainted ? (d.inspectors.find((r) => r.inspector === 'taint')?.reasons.join('; ') || 'the run is tainted; an earlier inspector decided the call') : 'the run has not read untrusted content',
        ...(d.untrustedRead ? { taintsRun: 'the call reads outside the workspace; its output is untrusted and taints the run' } : {}),
      },
      ...(d.secrets.length ? { secrets: d.secrets } : {}),
      hooks: {
        applying,
        ran: hook !== null,
        summary: !applying.length
          ? 'no PreToolUse hook applies to this call'
          : hook
            ? `the PreToolUse hooks say ${verdict?.verdict ?? 'pass'}${verdict?.reasons.length ? `: ${verdict.reasons.join('; ')}` : ''}`
            : `${applying.length} PreToolUse hook(s) apply; not run (they are programs): add --run-hooks to run them and see their verdict`,
      },
    };
}
