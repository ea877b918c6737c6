/**
 * The web New-conversation dialog's folder picker (issue 34 item 7): the desktop app opens the system's folder dialog;
 * in a browser this lists one folder's sub-folders (listFolders, through the path guard on the host), opens one by a
 * click, goes up, shows hidden folders on request, and hands the folder back with "Use this folder".
 */
import { useEffect, useState } from 'react';
import type { FolderListingView } from '../../../shared/contract/folders';
import { api, errorText } from '../../api/client';

export function FolderBrowser({ start, onPick, onClose }: { start: string; onPick(folder: string): void; onClose(): void }) {
  const [path, setPath] = useState(start);
  const [hidden, setHidden] = useState(false);
  const [listing, setListing] = useState<FolderListingView | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What the shown listing answers: until the requested folder's listing arrives, the shown one is stale, and a move
  // from it (Up, a folder, "Use this folder") would start from where the person no longer is. Quick clicks on Up
  // went up once, not three times.
  const [shownFor, setShownFor] = useState<string | null>(null);
  const settled = shownFor === `${hidden}:${path}`;

  useEffect(() => {
    let live = true;
    setError(null);
    api()
      .listFolders({ path, hidden })
      .then((l) => {
        if (!live) return;
        setListing(l);
        setShownFor(`${hidden}:${path}`);
      })
      .catch((err: unknown) => {
        if (!live) return;
        setError(errorText(err));
        setShownFor(`${hidden}:${path}`);
      });
    return () => {
      live = false;
    };
  }, [path, hidden]);

  return (
    <section className="folder-browser" aria-label="Choose a folder">
      <div className="folder-browser-head">
        <button type="button" className="btn small" disabled={!settled || !listing?.parent} onClick={() => listing?.parent && setPath(listing.parent)} aria-label="Up one folder">
          ↑ Up
        </button>
        <span className="mono small folder-browser-path" aria-label="Folder shown">
          {listing?.path ?? path}
        </span>
        <label className="small">
          <input type="checkbox" checked={hidden} onChange={(e) => setHidden(e.target.checked)} /> Show hidden folders
        </label>
      </div>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      {listing && (
        <ul className="folder-browser-list" aria-label={`Folders in ${listing.path}`}>
          {listing.folders.length === 0 && <li className="muted small">No folders here.</li>}
          {listing.folders.map((f) => (
            <li key={f.path}>
              <button type="button" className="link-button" disabled={!settled} onClick={() => setPath(f.path)}>
                📁 {f.name}
              </button>
            </li>
          ))}
          {listing.truncated && <li className="muted small">More folders than shown: type the path to go further.</li>}
        </ul>
      )}
      <div className="folder-browser-actions">
        <button type="button" className="btn primary small" disabled={!settled || !listing} onClick={() => listing && onPick(listing.path)}>
          Use this folder
        </button>
        <button type="button" className="btn small" onClick={onClose}>
          Cancel
        </button>
      </div>
    </section>
  );
}
