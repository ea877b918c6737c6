/** Modal dialogs: new conversation (folder, title, policy) and delete confirmation. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { POLICIES, type Policy } from '../../../shared/tools';
import type { ConversationSummary } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';
import { useMessages } from '../../state/messages';
import { useSettings } from '../../state/settings';
import { selectConversation } from '../../state/sync';
import { useUi } from '../../state/ui';
import { FolderBrowser } from './FolderBrowser';

export function Dialogs() {
  const dialog = useUi((s) => s.dialog);
  const hostKnown = useUi((s) => !!s.host);
  if (!dialog) return null;
  // Opened once the host has said where new conversations start, so the folder is filled in once, at open, and never
  // changes under the person's typing.
  if (dialog.kind === 'new') return hostKnown ? <NewConversationDialog /> : null;
  return <DeleteDialog conversationId={dialog.conversationId} title={dialog.title} />;
}

function Modal({ label, role = 'dialog', children, onClose }: { label: string; role?: 'dialog' | 'alertdialog'; children: ReactNode; onClose(): void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>('[data-autofocus], input, select, button');
    first?.focus();
    return () => previous?.focus?.();
  }, []);
  return (
    <div className="backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        className="modal"
        role={role}
        aria-modal="true"
        aria-label={label}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onClose();
          if (e.key === 'Tab') trapFocus(e.nativeEvent, ref.current);
        }}
      >
        {children}
      </div>
    </div>
  );
}

function trapFocus(e: KeyboardEvent, root: HTMLElement | null): void {
  if (!root) return;
  const focusable = [...root.querySelectorAll<HTMLElement>('input, select, textarea, button, [tabindex]:not([tabindex="-1"])')].filter((el) => !el.hasAttribute('disabled'));
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

const close = () => useUi.getState().openDialog(null);

const NO_FOLDERS: string[] = [];

/** The working folder of the conversation that changed last (subagents' conversations aside), or null. */
export function lastUsedFolder(list: readonly ConversationSummary[]): string | null {
  let best: ConversationSummary | null = null;
  for (const c of list) if (!c.subagentOf && (!best || c.updatedAt > best.updatedAt)) best = c;
  return best?.folder ?? null;
}

/** Why the new-conversation dialog offers its folder, in a sentence. */
export function folderReason(from: 'last' | 'workspace' | 'host' | 'deskhand' | 'deskhand-new'): string {
  if (from === 'last') return 'The folder of your last conversation.';
  if (from === 'workspace') return 'Your first workspace folder (Settings → General).';
  const deskhand = 'A folder for Deskhand’s work, so it does not happen in your home folder, where every change would ask.';
  if (from === 'deskhand') return `${deskhand} Choose a project folder to work on a project.`;
  if (from === 'deskhand-new') return `${deskhand} It does not exist yet: Create makes it. Choose another folder if you would rather not.`;
  return 'Where Deskhand was started. Choose a project folder for the work: outside it, the agent’s tools ask before every change.';
}

function NewConversationDialog() {
  const host = useUi((s) => s.host);
  const defaultPolicy = useSettings((s) => s.view?.settings.defaultPolicy ?? 'read-only');
  const workspaces = useSettings((s) => s.view?.settings.workspaceFolders ?? NO_FOLDERS);
  // The folder of the conversation used last, else the first workspace folder, else what main offers (where
  // `deskhand web` was started, or the Deskhand folder instead of the home folder or Deskhand's own checkout).
  const lastFolder = useConversations((s) => lastUsedFolder(s.list));
  const initial = lastFolder ?? workspaces[0] ?? host?.defaultFolder ?? '';
  const [folder, setFolder] = useState(initial);
  // Why this folder is offered, said under the field while it is still the one offered.
  const deskhandFolder = host?.deskhandFolder;
  const offersDeskhand = !lastFolder && !workspaces[0] && !!deskhandFolder && initial === deskhandFolder.path;
  // The Deskhand folder is created on Create only while it is the folder offered and the dialog has said so.
  const createFolder = offersDeskhand && folder === initial && !deskhandFolder.exists;
  // Browsing starts in the folder typed, or in the parent of a Deskhand folder not made yet (nothing to list there).
  const typed = folder.trim() || host?.defaultFolder || '';
  const browseFrom = deskhandFolder && !deskhandFolder.exists && typed === deskhandFolder.path ? typed.replace(/[\\/][^\\/]+[\\/]?$/, '') || '/' : typed;
  const why =
    folder !== initial || !initial
      ? null
      : folderReason(lastFolder ? 'last' : workspaces[0] ? 'workspace' : offersDeskhand ? (deskhandFolder.exists ? 'deskhand' : 'deskhand-new') : 'host');
  const [title, setTitle] = useState('');
  const [policy, setPolicy] = useState<Policy>(defaultPolicy);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [browsing, setBrowsing] = useState(false);

  async function pick() {
    try {
      const { folder: picked } = await api().pickFolder({});
      if (picked) setFolder(picked);
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function create() {
    setBusy(true);
    setError(null);
    try {
      const summary = await api().createConversation({ folder: folder.trim(), policy, ...(title.trim() ? { title: title.trim() } : {}), ...(createFolder ? { createFolder } : {}) });
      useConversations.getState().upsert(summary);
      close();
      selectConversation(summary.id);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <Modal label="New conversation" onClose={close}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <h2>New conversation</h2>
        <p className="muted small">The agent works in this folder. Its tools ask before they touch anything your policy does not allow.</p>
        <label className="field">
          <span>Working folder</span>
          <span className="field-row">
            <input value={folder} onChange={(e) => setFolder(e.target.value)} required spellCheck={false} placeholder="/home/you/project" data-autofocus list="workspace-folders" />
            <datalist id="workspace-folders">
              {workspaces.map((f) => (
                <option key={f} value={f} />
              ))}
            </datalist>
            {host?.canPickFolder ? (
              <button type="button" className="btn" onClick={() => void pick()}>
                Choose folder…
              </button>
            ) : (
              <button type="button" className="btn" aria-expanded={browsing} onClick={() => setBrowsing(!browsing)}>
                Browse…
              </button>
            )}
          </span>
        </label>
        {why && <p className="muted small folder-why">{why}</p>}
        {browsing && (
          <FolderBrowser
            start={browseFrom}
            onPick={(f) => {
              setFolder(f);
              setBrowsing(false);
            }}
            onClose={() => setBrowsing(false)}
          />
        )}
        {workspaces.length > 1 && (
          <div className="field-row workspace-picks" role="group" aria-label="Workspace folders">
            {workspaces.map((f) => (
              <button key={f} type="button" className={`chip ${f === folder ? 'on' : ''}`} aria-pressed={f === folder} onClick={() => setFolder(f)} title={f}>
                {f.split('/').filter(Boolean).pop() ?? f}
              </button>
            ))}
          </div>
        )}
        <label className="field">
          <span>Title (optional)</span>
          <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} placeholder="Taken from your first message" />
        </label>
        <label className="field">
          <span>Policy</span>
          <select value={policy} onChange={(e) => setPolicy(e.target.value as Policy)}>
            {POLICIES.map((p) => (
              <option key={p} value={p}>
                {p === 'none' ? 'none — ask for everything' : `${p} — allow up to ${p}`}
              </option>
            ))}
          </select>
        </label>
        {error && (
          <p role="alert" className="error-text">
            {error}
          </p>
        )}
        <div className="actions end">
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={busy || !folder.trim()}>
            Create
          </button>
        </div>
      </form>
    </Modal>
  );
}

function DeleteDialog({ conversationId, title }: { conversationId: string; title: string }) {
  const [error, setError] = useState<string | null>(null);
  async function remove() {
    try {
      await api().deleteConversation({ conversationId });
      if (useConversations.getState().selectedId === conversationId) {
        useConversations.getState().select(null);
        void useMessages.getState().open(null);
      }
      close();
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <Modal label="Delete conversation" role="alertdialog" onClose={close}>
      <h2>Delete “{title}”?</h2>
      <p>Its messages, runs and waiting approvals are removed for good. Files the agent changed stay as they are.</p>
      {error && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
      <div className="actions end">
        <button type="button" className="btn" onClick={close} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn danger" onClick={() => void remove()}>
          Delete
        </button>
      </div>
    </Modal>
  );
}
