/**
 * Can this call be taken back? The one place that says so (docs/rewind.md, "Reversibility"): computed from the call's
 * declared effects, the path checks its decision used, the conversation's sandbox and whether the change ledger
 * records this process's steps. The approval card shows it in plain words; the approvals policy (issue 46) may use it
 * to decide which calls need a card — this module decides nothing itself.
 *
 * A call is `undoable` when everything it can change lands in the person's folders (the conversation's workspace
 * roots) where the ledger records it: a file tool writing there, a command in the sandbox (which can write nowhere
 * else and has no network). It is `irreversible` when any part of it cannot be taken back from the change list: a
 * write outside the folders, a run-later file (instruction files, `.git/`, hooks, package scripts, CI files, Deskhand's
 * data — what the path guard already marks), a command without the sandbox, the network, material sent off the
 * machine, a desktop action, an outside (MCP or custom) tool, work scheduled for later, or the ledger being off. A
 * call that changes nothing (a read) is `no-change`.
 */
import { basename, sep } from 'node:path';
import type { SandboxMode } from '../../../shared/sandbox';
import type { ReversibilityFact } from '../../../shared/reversibility';
import { IGNORED_NAMES, recordableRoot } from '../../services/ledger/names';
import type { PathCheck } from './path-guard';
import { packageScriptMatch } from '../../../shared/sensitive-paths';
import type { Effects, ToolDefinition } from '../tool';

export type { ReversibilityFact };

export interface ReversibilityFacts {
  tool: Pick<ToolDefinition, 'kind'>;
  effects: Effects;
  /** The path checks the decision used (declared paths and the classifier's). */
  paths: readonly PathCheck[];
  /** The decision found network contact or egress (a shell network client, a URL). */
  network: boolean;
  egress: boolean;
  sandbox: SandboxMode | undefined;
  workspaceRoots: readonly string[];
  /** The change ledger records this process's steps (RuntimeCore.fileWatchers is not empty). */
  ledger: boolean;
  /**
   * The ledger's own answer for these roots and writes (services/ledger/recordable.ts, the one the confined inspector
   * asks): absent where no ledger is wired. A "no" here makes the call irreversible, so the card and the rule that
   * lets confined work run unasked never disagree.
   */
  recorded?: ((writes: readonly string[]) => boolean) | undefined;
}

/** Folders a write into is never kept by the ledger: `.git` (never entered) and dependency folders (not kept). */
function unkeptFolder(path: string): string | null {
  const parts = path.split(sep);
  if (parts.includes('.git')) return 'inside a .git folder';
  const dep = parts.slice(0, -1).find((p) => IGNORED_NAMES.has(p));
  return dep ? `inside ${dep} (dependencies and caches are not kept)` : null;
}

/**
 * Whether the call can be undone from the change list, with the reasons it cannot. Pure: the same facts give the
 * same answer (table test: test/ledger/reversibility.test.ts).
 */
export function callReversibility(f: ReversibilityFacts): ReversibilityFact {
  const e = f.effects;
  const reasons: string[] = [];
  const writes = f.paths.filter((p) => p.access === 'write');
  const acts = writes.length > 0 || !!e.processes || (f.tool.kind ?? 'builtin') !== 'builtin';
  if ((f.tool.kind ?? 'builtin') !== 'builtin') reasons.push(`${f.tool.kind === 'mcp' ? 'an MCP tool' : 'a custom tool'}: what it does is not known in advance`);
  if (f.egress || e.egress) reasons.push('it sends material off this computer');
  if (f.network || e.network || e.urls?.length || e.hosts?.length) reasons.push('it reaches the network');
  if (e.apps?.some((a) => a.capability !== 'observe')) reasons.push('it operates a desktop app');
  if (e.wakesLater) reasons.push('it schedules work for later');
  if (e.processes && f.sandbox === 'off') reasons.push('the command runs without the sandbox, so it can change files anywhere');
  for (const w of writes) {
    const where = w.resolved || w.path;
    if (!w.root) reasons.push(`it writes outside your folders (${w.input})`);
    else if (w.sensitive) reasons.push(`it writes ${w.sensitive.what}, which runs later`);
    else if (packageScriptMatch(where)) reasons.push(`it writes ${packageScriptMatch(where)}, whose scripts run later`);
    else {
      const unkept = unkeptFolder(where);
      if (unkept) reasons.push(`it writes ${basename(where)} ${unkept}`);
    }
  }
  if (acts && !f.workspaceRoots.some(recordableRoot)) reasons.push('the conversation works in a folder too broad to record (the home, temp or root folder)');
  if (acts && !f.ledger) reasons.push('the change ledger is off');
  if (acts && f.ledger && !reasons.length && f.recorded && !f.recorded(writes.map((w) => w.resolved || w.path))) {
    reasons.push('the change ledger would not keep what it replaces (a folder too big to record, an ignored folder, or a file over 8 MiB)');
  }
  if (reasons.length) return { kind: 'irreversible', words: `Cannot be taken back: ${[...new Set(reasons)].join('; ')}.`, reasons: [...new Set(reasons)] };
  if (!acts) return { kind: 'no-change', words: 'Changes no files.', reasons: [] };
  return {
    kind: 'undoable',
    words: e.processes
      ? 'Can be undone from the change list: the sandbox keeps its writes to your folders, which are recorded (not inside .git or dependency folders).'
      : 'Can be undone from the change list.',
    reasons: [],
  };
}
