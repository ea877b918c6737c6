/**
 * Decision for a call without running anything (`deskhand policy explain`): every inspector's verdict with its
 * reasons, the containment of every path (where it really lands, links followed, sensitive or not), and the taint
 * rule. A function of its own so a host can judge calls without building the runtime (host/cli/policy.ts).
 */
import type { Policy, RiskTier } from '../../shared/tools';
import type { SandboxMode } from '../../shared/sandbox';
import type { Store } from '../services/store/store';
import { callEffects, decide, type AppGrants, type Verdict } from './approval-engine';
import type { RunLaterPath } from './path-guard';
import type { ToolRegistry } from './registry';
import type { PeerCeiling } from './peer-ceiling';
import type { HeldScope } from './scope-inspector';

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
}

/** What judging a call reads: the tools, the store's rules and grants, and the host's scopes. */
export interface ExplainDeps {
  registry: Pick<ToolRegistry, 'resolve' | 'parseArgs'>;
  store: Pick<Store, 'rules' | 'urlGrants'>;
  dataDir: string;
  runLaterPaths?: (() => readonly RunLaterPath[]) | undefined;
  grants?: AppGrants | undefined;
  /** A conversation's mission scope (Tower), or null. */
  scopeOf(conversationId: string): HeldScope | null;
  /** A peer conversation's ceiling (its tier and allow list), or null; absent: no peers. */
  peerOf?(conversationId: string): PeerCeiling | null;
  /** Whether the change ledger records these roots and keeps what the writes replace (the confined inspector). */
  recordsRoots?: ((roots: readonly string[], writes?: readonly string[]) => boolean) | null | undefined;
}

export interface ExplainRequest {
  tool: string;
  args: unknown;
  policy: Policy;
  cwd: string;
  sandbox?: SandboxMode;
  tainted?: boolean;
  roots?: readonly string[];
  conversationId?: string;
  /** Judge the call as in a conversation of this peer (`policy explain --peer NAME`). */
  peerCeiling?: PeerCeiling | null;
}

export async function explainCall(deps: ExplainDeps, opts: ExplainRequest): Promise<ExplainResult> {
    const tool = deps.registry.resolve(opts.tool);
    const parsed = deps.registry.parseArgs(tool, opts.args);
    const tainted = !!opts.tainted;
    const runLater = deps.runLaterPaths?.() ?? [];
    const ctx = { cwd: opts.cwd, workspaceRoots: [opts.cwd, ...(opts.roots ?? [])], dataDir: deps.dataDir, ...(opts.sandbox ? { sandbox: opts.sandbox } : {}), ...(runLater.length ? { runLater } : {}) };
    const effects = await callEffects(tool, parsed, ctx);
    const rules = deps.store.rules.forConversation(opts.conversationId ?? '', opts.cwd);
    const missionScope = opts.conversationId ? deps.scopeOf(opts.conversationId) : null;
    const recordsRoots = deps.recordsRoots;
    const peerCeiling = opts.peerCeiling ?? (opts.conversationId ? (deps.peerOf?.(opts.conversationId) ?? null) : null);
    const d = decide({ tool, args: parsed, effects, policy: opts.policy, tainted, ctx, rules, grants: deps.grants, urlGrants: deps.store.urlGrants.patterns(), missionScope, peerCeiling, ...(recordsRoots ? { recorded: (w: readonly string[]) => recordsRoots(ctx.workspaceRoots, w) } : {}) });
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
    };
}
