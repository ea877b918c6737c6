/**
 * The decision's input for a conversation's calls, computed by one function for the run (call-pipeline.ts, once per
 * step) and for `policy explain` (explain.ts): the effects context (folder, roots, readable roots, sandbox, run-later
 * files), the always-allow rules, the URL and app grants, the held secrets, the taint and its one source, whether a
 * person is present, and every registered hold's state, shaped by the holds (a lower policy, inherited taint…).
 * What differs between the two is only where the subject comes from (the run's rows, or a conversation and flags).
 */
import type { Policy } from '../../../shared/tools';
import type { SandboxMode } from '../../../shared/sandbox';
import type { Store } from '../../services/store/store';
import type { AppGrants } from './inspector';
import type { DecisionBook } from './decision-book';
import type { DecisionBase } from './hold';
import type { RunLaterPath } from './path-guard';

/** What the input is read from: the store's rules and URL grants, the holds, the app grants. */
export interface DecisionSources {
  store: Pick<Store, 'rules' | 'urlGrants'>;
  decisions: Pick<DecisionBook, 'statesOf' | 'shape'>;
  grants?: AppGrants | undefined;
  dataDir: string;
  runLater?: (() => readonly RunLaterPath[]) | undefined;
  /** Whether the change ledger records these roots and keeps what the writes replace (the confined inspector). */
  recordsRoots?: ((roots: readonly string[], writes?: readonly string[]) => boolean) | null | undefined;
}

/** The conversation (or, for `policy explain` without one, the flags) a call is judged in. */
export interface DecisionSubject {
  /** null: no conversation (explain from flags alone): no hold holds it. */
  conversationId: string | null;
  /** The folder whose workspace rules apply. */
  folder: string;
  cwd: string;
  workspaceRoots: readonly string[];
  readableRoots: readonly string[];
  slots: Readonly<Record<string, unknown>>;
  sandbox?: SandboxMode | undefined;
  policy: Policy;
  tainted: boolean;
  /** The one untrusted source of everything the conversation read, when it is tainted and there is one. */
  taintOnly: string | null;
  heldSecrets?: ReadonlySet<string>;
  /** A person who can answer drives the run (the app's chat, a terminal). */
  interactive: boolean;
  /** Hold states given rather than read (`policy explain --peer`: the peer's ceiling), by hold name. */
  held?: Readonly<Record<string, unknown>>;
}

/** The rows of the always-allow rules that apply (what a decision's `ruleIds` name). */
export type AppliedRules = ReturnType<Store['rules']['forConversation']>;

export function decisionBase(src: DecisionSources, subject: DecisionSubject): Omit<DecisionBase, 'rules'> & { rules: AppliedRules } {
  const rules = src.store.rules.forConversation(subject.conversationId ?? '', subject.folder);
  const runLater = src.runLater?.() ?? [];
  const ctx = {
    cwd: subject.cwd,
    workspaceRoots: subject.workspaceRoots,
    dataDir: src.dataDir,
    ...(subject.sandbox ? { sandbox: subject.sandbox } : {}),
    ...(subject.conversationId ? { conversationId: subject.conversationId } : {}),
    ...(runLater.length ? { runLater } : {}),
    readableRoots: subject.readableRoots,
  };
  const held = { ...(subject.conversationId ? src.decisions.statesOf({ conversationId: subject.conversationId, slots: subject.slots }) : {}), ...subject.held };
  const shaped = src.decisions.shape({
    policy: subject.policy,
    tainted: subject.tainted,
    ctx,
    // The always-allow rules of this conversation, its workspace folder, and everywhere.
    rules,
    ...(subject.heldSecrets ? { heldSecrets: subject.heldSecrets } : {}),
    grants: src.grants,
    urlGrants: src.store.urlGrants.patterns(),
    held,
    taintOnly: subject.tainted ? subject.taintOnly : null,
    personPresent: subject.interactive,
    ...(src.recordsRoots ? { recorded: (writes: readonly string[]) => src.recordsRoots!(subject.workspaceRoots, writes) } : {}),
  });
  return { ...shaped, rules };
}
