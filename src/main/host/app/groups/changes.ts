/**
 * The change ledger's side of AppService and the CLI (docs/rewind.md): what each of the person's turns changed, one
 * path's diff, and a rewind (files, conversation or both; a dry run; a redo). `deskhand changes` and `deskhand rewind`
 * (host/cli/changes.ts) and the contract's `listChanges`, `getChangeDiff` and `rewind` share this, so the CLI, the web
 * UI and the app list and rewind the same way.
 */
import type { MethodResult, ParsedParams } from '../../../../shared/contract';
import { DeskhandError } from '../../../../shared/errors';
import { fallbackTitle } from '../../../../shared/tool-presentation';
import { type ChangeLedger, netChanges, renderDiff, textOf, type ChangeSet, type ChangedPath, type RewindResult } from '../../../services/ledger';
import { PersistentConversationState } from '../../../runtime/context/conversation-state';
import { checkReplaceable, supersedeFrom } from '../../../runtime/loop/branches';
import { runOwnerAlive } from '../../../services/processes/proc-info';
import { projectMessages } from '../projections';
import type { HandlerGroup } from '../handler-groups';
import { type ConversationRow, type Records } from '../../../runtime/records';

/** One of the person's messages of the current branch: turn N is the Nth. */
export interface Turn {
  turn: number;
  /** As the UI and `conversations export` show it: `m12`. */
  messageId: string;
  storedId: number;
  runId: string | null;
  at: number;
}

export function turnsOf(store: Records, conversationId: string): Turn[] {
  const turns: Turn[] = [];
  for (const item of projectMessages(store, conversationId, { title: fallbackTitle, summarize: () => null })) {
    if (item.kind !== 'user') continue;
    turns.push({ turn: turns.length + 1, messageId: item.id, storedId: Number(item.id.slice(1)), runId: item.runId, at: item.at });
  }
  return turns;
}

export function turnFor(turns: readonly Turn[], opts: { turn?: string; to?: string }): Turn {
  if (opts.turn !== undefined) {
    const n = Number(opts.turn);
    if (!Number.isInteger(n) || n < 1) throw new DeskhandError('usage', `--turn takes a number from 1 (the person's first message), not "${opts.turn}".`);
    const t = turns[n - 1];
    if (!t) throw new DeskhandError('not_found', `This conversation has ${turns.length} message${turns.length === 1 ? '' : 's'} from the person; there is no turn ${n}.`);
    return t;
  }
  const id = String(opts.to).replace(/^m/, '');
  const t = turns.find((x) => String(x.storedId) === id);
  if (!t) throw new DeskhandError('not_found', `No message ${opts.to} from the person in this conversation (ids are shown by \`deskhand conversations export\`, e.g. m12).`);
  return t;
}

/** What one turn's run changed: each path once, its state before the turn and after it. */
export function changesOfTurn(sets: readonly ChangeSet[], turn: Turn): ChangedPath[] {
  return netChanges(sets.filter((s) => s.runId !== null && s.runId === turn.runId));
}

/** Lines added and removed in a unified diff (its headers not counted). */
export function diffStat(diff: string | null): { added: number; removed: number } | null {
  if (diff === null) return null;
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

export interface RewindRequest {
  /** The person's message to go back to before; null: redo (take the last rewind back). */
  target: Turn | null;
  files: boolean;
  conversation: boolean;
  dryRun: boolean;
}

export interface RewindOutcome {
  dryRun: boolean;
  target: { turn: number; messageId: string } | { redo: string };
  files: RewindResult | null;
  conversation: { branch: string | null; from: string | null } | null;
}

/**
 * A rewind of one conversation: its files (the change sets since the target's message, or the last rewind for a
 * redo) through the ledger, and/or its conversation (the target and later messages become a kept branch). Refuses
 * while a run of the conversation is in progress.
 */
export async function rewindConversation(store: Records, ledger: ChangeLedger, conv: ConversationRow, req: RewindRequest): Promise<RewindOutcome> {
  const active = store.activeRunForConversation(conv.id);
  if (active?.status === 'running' && runOwnerAlive(active)) throw new DeskhandError('conflict', `Conversation ${conv.id} has a run in progress (${active.id}); stop it first.`);
  const roots = new PersistentConversationState(conv.folder, conv.state).workspaceRoots;
  const sets = ledger.setsOf(conv.id);
  let undo: ChangeSet[];
  let note: unknown;
  const target = req.target;
  if (!target) {
    const last = sets.findLast((s) => s.source === 'rewind');
    if (!last) throw new DeskhandError('not_found', 'This conversation has no rewind to undo.');
    undo = [last];
    note = { undid: last.id };
  } else {
    if (req.conversation) checkReplaceable(store, conv.id, target.storedId);
    undo = sets.filter((s) => s.createdAt >= target.at);
    note = { to: target.messageId, turn: target.turn };
  }
  const files = req.files || !target ? await ledger.rewind(conv.id, undo, { dryRun: req.dryRun, note, roots }) : null;
  let branch: string | null = null;
  if (req.conversation && target && !req.dryRun) {
    const from = target.storedId;
    branch = store.transaction(() => supersedeFrom(store, conv.id, from));
  }
  return {
    dryRun: req.dryRun,
    target: target ? { turn: target.turn, messageId: target.messageId } : { redo: (note as { undid: string }).undid },
    files,
    conversation: req.conversation && target ? { branch, from: target.messageId } : null,
  };
}

/** Per turn, at most this many paths are listed to the UI (the rest counted) and this many diffed for their +/-. */
const LISTED_PER_TURN = 500;
const COUNTED_PER_TURN = 100;

/**
 * The contract's change list and rewind. `ledger()` is the runtime's own (its watchers make the scans cheap), or one
 * opened for the store when the ledger is off for this process.
 */
export function changesGroup(ledger: () => ChangeLedger): HandlerGroup<'listChanges' | 'getChangeDiff' | 'rewind'> {
  return (ctx) => {
    const store = () => ctx.runtime.records;
    const conversation = (id: string) => {
      const row = store().getConversation(id);
      if (!row) throw new DeskhandError('not_found', `No conversation ${id}.`);
      return row;
    };
    return {
      async listChanges(p: ParsedParams<'listChanges'>): Promise<MethodResult<'listChanges'>> {
        conversation(p.conversationId);
        const l = ledger();
        const sets = l.setsOf(p.conversationId);
        const turns = turnsOf(store(), p.conversationId).map((t) => {
          const all = changesOfTurn(sets, t);
          return {
            turn: t.turn,
            messageId: t.messageId,
            runId: t.runId,
            total: all.length,
            changes: all.slice(0, LISTED_PER_TURN).map((c, i) => {
              const stat = i < COUNTED_PER_TURN ? diffStat(renderDiff(c.path, c.before, c.after, l.blobs)) : null;
              const ignored = c.before?.type === 'ignored' || c.after?.type === 'ignored';
              return { path: c.path, kind: c.kind, type: (c.after ?? c.before)?.type ?? 'file', restorable: c.restorable, ignored, added: stat?.added ?? null, removed: stat?.removed ?? null };
            }),
          };
        });
        const last = sets.findLast((s) => s.source === 'rewind');
        const lastNote = (last?.note ?? null) as { to?: string; undid?: string } | null;
        return {
          turns: turns.filter((t) => t.total > 0),
          lastRewind: last ? { id: last.id, at: last.createdAt, to: lastNote?.to ?? null, redo: !!lastNote?.undid, paths: last.changes.length, redoable: !lastNote?.undid && !sets.some((s) => s.source !== 'rewind' && s.createdAt > last.createdAt) } : null,
        };
      },

      async getChangeDiff(p: ParsedParams<'getChangeDiff'>): Promise<MethodResult<'getChangeDiff'>> {
        conversation(p.conversationId);
        const l = ledger();
        const turn = turnFor(turnsOf(store(), p.conversationId), { to: p.messageId });
        const change = changesOfTurn(l.setsOf(p.conversationId), turn).find((c) => c.path === p.path);
        if (!change) throw new DeskhandError('not_found', `${p.path} was not changed by the turn of message ${p.messageId}.`);
        const diff = renderDiff(change.path, change.before, change.after, l.blobs);
        const type = (change.after ?? change.before)?.type;
        const why =
          diff !== null
            ? null
            : type === 'ignored'
              ? 'An ignored folder (dependencies, build output): its contents are not kept.'
              : type === 'dir'
                ? `A folder, ${change.kind}.`
                : type === 'symlink'
                  ? `A link${change.after?.link ? ` to ${change.after.link}` : ''}, ${change.kind}.`
                  : change.kind === 'mode'
                    ? `Only its permissions changed (${(change.before?.mode ?? 0).toString(8)} → ${(change.after?.mode ?? 0).toString(8)}).`
                    : 'No text diff: a binary or large file, or its bytes were not kept.';
        const texts = p.texts && diff !== null ? { oldText: textOf(change.before, l.blobs), newText: textOf(change.after, l.blobs) } : {};
        return { path: change.path, kind: change.kind, diff, note: why, ...texts };
      },

      async rewind(p: ParsedParams<'rewind'>): Promise<MethodResult<'rewind'>> {
        const conv = conversation(p.conversationId);
        if (!p.redo && !p.to) throw new DeskhandError('usage', 'Name the message to rewind to (to: "m12"), or ask for a redo.');
        const target = p.redo ? null : turnFor(turnsOf(store(), conv.id), { to: p.to! });
        const outcome = await rewindConversation(store(), ledger(), conv, {
          target,
          files: p.redo || p.mode !== 'conversation',
          conversation: !p.redo && p.mode !== 'files',
          dryRun: p.dryRun,
        });
        if (!p.dryRun && outcome.conversation) ctx.markChanged('conversations');
        return {
          dryRun: outcome.dryRun,
          files: outcome.files ? { items: outcome.files.items.map((i) => ({ path: i.path, action: i.action, reason: i.reason ?? null })), setId: outcome.files.setId } : null,
          conversation: outcome.conversation,
        };
      },
    };
  };
}

/** A ledger for the store when the runtime has none (DESKHAND_LEDGER=off): listing and rewinding still work. */
export function ledgerFor(runtime: { changeLedger(dataDir: string): ChangeLedger }, dataDir: string): () => ChangeLedger {
  return () => runtime.changeLedger(dataDir);
}
