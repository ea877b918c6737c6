/**
 * A file pick request (ask_file_picker). In the desktop app: "Choose…" opens the native dialog in main
 * (pickForRequest; the paths never pass through this window). In the browser: a folder browser over
 * browseForRequest (names only, only while this request waits) — breadcrumb and parent folder, folders and files as
 * buttons, the selection — and Submit sends the selected paths (answerRequest), which main checks again.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { MethodResult } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { useUi } from '../../state/ui';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

type Listing = MethodResult<'browseForRequest'>;

export interface PickData {
  prompt: string;
  pick: 'file' | 'folder' | 'any';
  multiple: boolean;
}

export function pickDataOf(data: unknown, fallbackPrompt: string): PickData {
  const d = (data ?? {}) as Partial<PickData>;
  return {
    prompt: typeof d.prompt === 'string' ? d.prompt : fallbackPrompt,
    pick: d.pick === 'folder' || d.pick === 'any' ? d.pick : 'file',
    multiple: d.multiple === true,
  };
}

const WHAT = { file: 'a file', folder: 'a folder', any: 'a file or folder' } as const;
const WHAT_MANY = { file: 'one or more files', folder: 'one or more folders', any: 'one or more files or folders' } as const;

export function FilePickCard({ approval, showConversation }: RequestCardProps) {
  const data = pickDataOf(approval.data, approval.preview ?? approval.description);
  const native = useUi((s) => s.host?.canPickPaths ?? false);
  const { busy, error, run } = useSubmit();
  const [reason, setReason] = useState('');

  async function choose() {
    await run(async () => {
      const result = await api().pickForRequest({ requestId: approval.approvalId });
      if (result.cancelled) throw new Error('Nothing was picked (the dialog was closed). Choose again, or decline.');
    });
  }

  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="file-pick-card"
      chips={<span className="chip">pick {data.multiple ? WHAT_MANY[data.pick] : WHAT[data.pick]}</span>}
      description={<p className="file-pick-prompt">{data.prompt}</p>}
      error={error}
    >
      <p className="muted small">What you pick becomes readable in this conversation without asking again; writing to it still asks.</p>
      {native ? (
        <div className="actions approval-actions">
          <button type="button" className="btn primary" disabled={busy} onClick={() => void choose()}>
            Choose…
          </button>
          <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} verb="Decline" />
        </div>
      ) : (
        <FolderBrowser
          requestId={approval.approvalId}
          data={data}
          busy={busy}
          onSubmit={(paths) => void run(() => api().answerRequest({ requestId: approval.approvalId, value: { paths } }))}
          decline={<DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} verb="Decline" />}
        />
      )}
    </RequestFrame>
  );
}

/** The separator a listed path uses (Windows paths from a Windows host, else "/"). */
function sepOf(path: string): string {
  return path.includes('\\') && !path.includes('/') ? '\\' : '/';
}

function joinPath(folder: string, name: string): string {
  const sep = sepOf(folder);
  return folder.endsWith(sep) ? `${folder}${name}` : `${folder}${sep}${name}`;
}

/** "/home/ann/proj" → [["/", "/"], ["home", "/home"], ["ann", "/home/ann"], ["proj", "/home/ann/proj"]]. */
function crumbs(path: string): { name: string; path: string }[] {
  const sep = sepOf(path);
  const parts = path.split(sep).filter(Boolean);
  const rootName = path.startsWith(sep) ? sep : '';
  const out: { name: string; path: string }[] = rootName ? [{ name: rootName, path: rootName }] : [];
  let acc = rootName;
  for (const [i, part] of parts.entries()) {
    acc = i === 0 && !rootName ? `${part}${sep}` : joinPath(acc, part);
    out.push({ name: part, path: acc });
  }
  return out;
}

function FolderBrowser(props: { requestId: string; data: PickData; busy: boolean; onSubmit: (paths: string[]) => void; decline: ReactNode }) {
  const { requestId, data, busy } = props;
  const [listing, setListing] = useState<Listing | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);
  const [typed, setTyped] = useState('');

  async function open(path?: string) {
    setLoading(true);
    setLoadError(null);
    try {
      const next = await api().browseForRequest({ requestId, ...(path ? { path } : {}) });
      setListing(next);
      setTyped(next.path);
    } catch (err) {
      setLoadError(errorText(err));
    } finally {
      setLoading(false);
    }
  }

  useEffect(() => {
    void open();
    // Opened once per request; navigation calls open() itself.
  }, [requestId]);

  function toggle(path: string) {
    setSelected((s) => (s.includes(path) ? s.filter((p) => p !== path) : data.multiple ? [...s, path] : [path]));
  }

  const canPickFolder = data.pick !== 'file';
  const canPickFile = data.pick !== 'folder';

  return (
    <div className="folder-browser" role="group" aria-label="Folder browser">
      <form
        className="browser-go"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.trim()) void open(typed.trim());
        }}
      >
        <input type="text" aria-label="Folder path" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} disabled={busy} spellCheck={false} />
        <button type="submit" className="btn" disabled={busy || loading}>
          Go
        </button>
      </form>
      {listing && (
        <>
          <nav className="breadcrumb" aria-label="Current folder">
            <button type="button" className="btn" disabled={busy || loading || listing.parent === null} onClick={() => listing.parent && void open(listing.parent)}>
              Parent folder
            </button>
            {crumbs(listing.path).map((c, i, all) => (
              <button
                key={c.path}
                type="button"
                className="link-button crumb"
                disabled={busy || loading}
                aria-current={i === all.length - 1 ? 'location' : undefined}
                aria-label={`Open ${c.path}`}
                onClick={() => void open(c.path)}
              >
                {c.name}
              </button>
            ))}
          </nav>
          {canPickFolder && (
            <button type="button" className="btn" disabled={busy || selected.includes(listing.path)} onClick={() => toggle(listing.path)}>
              Select this folder
            </button>
          )}
          <ul className="browser-list" aria-label={`Contents of ${listing.path}`} aria-busy={loading}>
            {listing.entries.length === 0 && <li className="muted small">This folder is empty.</li>}
            {listing.entries.map((e) => {
              const path = joinPath(listing.path, e.name);
              if (e.kind === 'folder') {
                return (
                  <li key={e.name}>
                    <button type="button" className="browser-entry is-folder" disabled={busy || loading} aria-label={`Open folder ${e.name}`} onClick={() => void open(path)}>
                      <span aria-hidden="true">▭ </span>
                      {e.name}/
                    </button>
                  </li>
                );
              }
              return (
                <li key={e.name}>
                  <button
                    type="button"
                    className="browser-entry is-file"
                    disabled={busy || !canPickFile}
                    aria-pressed={selected.includes(path)}
                    aria-label={`Select file ${e.name}`}
                    onClick={() => toggle(path)}
                  >
                    <span aria-hidden="true">▤ </span>
                    {e.name}
                  </button>
                </li>
              );
            })}
            {listing.truncated && <li className="muted small">Only the first entries are listed; type a path above to go further.</li>}
          </ul>
        </>
      )}
      {loadError && (
        <p role="alert" className="error-text">
          {loadError}
        </p>
      )}
      <div className="browser-selected">
        <span className="section-label">Selected</span>
        {selected.length === 0 ? (
          <p className="muted small">Nothing yet: {canPickFile ? 'click a file to select it' : 'open a folder and press “Select this folder”'}.</p>
        ) : (
          <ul aria-label="Selected paths">
            {selected.map((p) => (
              <li key={p}>
                <code>{p}</code>{' '}
                <button type="button" className="link-button" aria-label={`Remove ${p}`} disabled={busy} onClick={() => toggle(p)}>
                  remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="actions approval-actions">
        <button type="button" className="btn primary" disabled={busy || selected.length === 0} onClick={() => props.onSubmit(selected)}>
          Submit
        </button>
        {props.decline}
      </div>
    </div>
  );
}
