/**
 * The change ledger in the transcript (docs/rewind.md): under each turn, what its run changed on disk — path, kind,
 * lines added and removed, the diff on click — and, above the composer, the rewind being prepared (what to take back,
 * its dry run, then confirm) or the last rewind with Redo.
 */
import { useState } from 'react';
import type { ChangedPathView, RewindItemView } from '../../../shared/contract/changes';
import { api, errorText } from '../../api/client';
import { useChanges, type RewindMode } from '../../state/changes';
import { useConversations } from '../../state/conversations';
import { useMessages } from '../../state/messages';
import { DiffView } from '../common/DiffView';

/** A path as the person knows it: relative to the conversation's folder when inside it. */
function shown(path: string, folder: string | undefined): string {
  if (folder && path.startsWith(folder.endsWith('/') ? folder : `${folder}/`)) return path.slice(folder.replace(/\/$/, '').length + 1);
  return path;
}

function useFolder(): string | undefined {
  return useConversations((s) => s.list.find((c) => c.id === s.selectedId)?.folder);
}

const KIND_WORD: Record<ChangedPathView['kind'], string> = { created: 'added', modified: 'modified', deleted: 'deleted', mode: 'permissions' };

/** "N files changed" under the turn of one of the person's messages, each path's diff on click. */
export function TurnChangeList({ messageId }: { messageId: string }) {
  const turn = useChanges((s) => s.byMessage[messageId]);
  const [open, setOpen] = useState(false);
  if (!turn || turn.total === 0) return null;
  const label = `${turn.total} file${turn.total === 1 ? '' : 's'} changed`;
  return (
    <section className="turn-changes" aria-label={`Changes of this turn: ${label}`}>
      <button type="button" className="turn-changes-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="chev" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        {label}
      </button>
      {open && (
        <ul className="turn-changes-list">
          {turn.changes.map((c) => (
            <ChangeRow key={c.path} messageId={messageId} change={c} />
          ))}
          {turn.total > turn.changes.length && <li className="muted small">… and {turn.total - turn.changes.length} more (deskhand changes lists them all)</li>}
        </ul>
      )}
    </section>
  );
}

function ChangeRow({ messageId, change }: { messageId: string; change: ChangedPathView }) {
  const conversationId = useMessages((s) => s.conversationId);
  const folder = useFolder();
  const [diff, setDiff] = useState<{ text: string | null; note: string | null } | null>(null);
  const [open, setOpen] = useState(false);
  const name = shown(change.path, folder) + (change.type === 'dir' ? '/' : '');
  async function toggle() {
    setOpen(!open);
    if (open || diff || !conversationId) return;
    try {
      const r = await api().getChangeDiff({ conversationId, messageId, path: change.path });
      setDiff({ text: r.diff, note: r.note });
    } catch (err) {
      setDiff({ text: null, note: errorText(err) });
    }
  }
  const counts = change.added !== null ? `+${change.added} −${change.removed ?? 0}` : '';
  const note = change.ignored ? 'changed, not kept' : !change.restorable ? 'cannot be restored' : '';
  return (
    <li className={`change-row change-${change.kind}`}>
      <button type="button" className="change-head" aria-expanded={open} aria-label={`${KIND_WORD[change.kind]} ${name}${counts ? ` ${counts}` : ''}`} onClick={() => void toggle()}>
        <span className="change-kind">{KIND_WORD[change.kind]}</span>
        <span className="change-path" title={change.path}>
          {name}
        </span>
        {counts && (
          <span className="change-counts" aria-hidden="true">
            <span className="diff-added">+{change.added}</span> <span className="diff-removed">−{change.removed}</span>
          </span>
        )}
        {note && <span className="muted small">{note}</span>}
      </button>
      {open && diff && (diff.text ? <DiffView text={diff.text} label={`Diff of ${name}`} /> : <p className="muted small">{diff.note}</p>)}
    </li>
  );
}

const MODES: { mode: RewindMode; label: string; help: string }[] = [
  { mode: 'both', label: 'Files and conversation', help: 'Files go back to before this message; it and the replies after it are kept aside as a branch.' },
  { mode: 'files', label: 'Files only', help: 'Files go back to before this message; the conversation stays as it is.' },
  { mode: 'conversation', label: 'Conversation only', help: 'This message and the replies after it are kept aside as a branch; files stay as they are.' },
];

const ACTION_WORD: Record<RewindItemView['action'], string> = {
  restored: 'restore',
  recreated: 'recreate',
  removed: 'remove',
  unchanged: 'already as before',
  kept: 'keep as it is now',
  'not-restorable': 'cannot restore',
};
const DONE_WORD: Record<RewindItemView['action'], string> = {
  restored: 'restored',
  recreated: 'recreated',
  removed: 'removed',
  unchanged: 'already as before',
  kept: 'kept as it is',
  'not-restorable': 'not restorable',
};

function ItemList({ items, words, label }: { items: readonly RewindItemView[]; words: Record<RewindItemView['action'], string>; label: string }) {
  const folder = useFolder();
  if (!items.length) return <p className="muted small">No file to put back.</p>;
  return (
    <ul className="rewind-items" aria-label={label}>
      {items.map((i) => (
        <li key={i.path} className={`rewind-item rewind-${i.action}`}>
          <span className="rewind-action">{words[i.action]}</span> <span className="change-path">{shown(i.path, folder)}</span>
          {i.reason && <span className="muted small"> — {i.reason}</span>}
        </li>
      ))}
    </ul>
  );
}

/** Above the composer: the rewind being prepared, what the last one did, or Redo for the last one. */
export function RewindPanel() {
  const draft = useChanges((s) => s.draft);
  const done = useChanges((s) => s.done);
  const last = useChanges((s) => s.lastRewind);
  const running = useMessages((s) => s.activeRun?.status === 'running');
  async function confirm() {
    if (await useChanges.getState().confirmRewind()) await useMessages.getState().reload();
  }
  if (draft) {
    const mode = MODES.find((m) => m.mode === draft.mode)!;
    const files = draft.mode !== 'conversation';
    return (
      <section className="rewind-panel" aria-label="Rewind">
        <div className="rewind-head">
          <strong>Rewind to before message {draft.messageId}</strong>
        </div>
        <div className="rewind-modes" role="radiogroup" aria-label="What to rewind">
          {MODES.map((m) => (
            <label key={m.mode}>
              <input type="radio" name="rewind-mode" checked={draft.mode === m.mode} onChange={() => useChanges.getState().setMode(m.mode)} /> {m.label}
            </label>
          ))}
        </div>
        <p className="muted small">{mode.help}</p>
        {files && (draft.preview === null ? <p className="muted small">Checking what would change…</p> : <ItemList items={draft.preview} words={ACTION_WORD} label="What the rewind will do" />)}
        {draft.error && (
          <p className="error-text small" role="alert">
            {draft.error}
          </p>
        )}
        <div className="rewind-buttons">
          <button type="button" className="btn primary" disabled={draft.busy || running || (files && draft.preview === null)} onClick={() => void confirm()}>
            {draft.busy ? 'Rewinding…' : 'Rewind'}
          </button>
          <button type="button" className="btn" onClick={() => useChanges.getState().cancelRewind()}>
            Cancel
          </button>
        </div>
      </section>
    );
  }
  const redoable = !!last?.redoable;
  if (!done && !redoable) return null;
  return (
    <section className="rewind-panel rewind-done" aria-label="Last rewind">
      {done && (
        <>
          <div role="status">
            {done.redo ? 'Redone: the files are as the rewind found them.' : done.items.length ? 'Rewound.' : done.conversation ? 'The conversation is rewound; later messages are kept as a branch.' : 'Nothing to put back.'}
          </div>
          {done.items.length > 0 && <ItemList items={done.items} words={DONE_WORD} label="What the rewind did" />}
        </>
      )}
      <div className="rewind-buttons">
        {redoable && (
          <button type="button" className="btn" disabled={running} title="Put the files back as they were before the last rewind" onClick={() => void useChanges.getState().redo()}>
            Redo
          </button>
        )}
        {done && (
          <button type="button" className="link-button small" onClick={() => useChanges.setState({ done: null })}>
            Dismiss
          </button>
        )}
      </div>
    </section>
  );
}
