/**
 * The viewer's exports of the shown version (issue 34 item 16): Download (its own file), Print and Save as PDF (the PDF
 * create_pdf makes, printed by main with no model turn and no approval: the person asked) and Export zip (as
 * `deskhand compositions export`).
 */
import { useState } from 'react';
import { api, errorText } from '../../api/client';
import { base64Blob, printUrl, saveBlob } from '../../lib/save-bytes';
import { useUi } from '../../state/ui';

type Action = 'download' | 'print' | 'pdf' | 'zip';
const AS = { download: 'file', pdf: 'pdf', zip: 'zip' } as const;
const BUSY = { download: 'Preparing the file…', print: 'Printing to PDF…', pdf: 'Printing to PDF…', zip: 'Zipping…' } as const;

export function CompositionExports({ id, version }: { id: string; version: number }) {
  const [busy, setBusy] = useState<Action | null>(null);
  async function run(action: Action) {
    setBusy(action);
    try {
      if (action === 'print') printUrl((await api().printComposition({ id, version })).url);
      else {
        const r = await api().exportComposition({ id, version, as: AS[action] });
        saveBlob(base64Blob(r.base64, r.mime), r.name);
      }
    } catch (err) {
      useUi.getState().notify(errorText(err));
    } finally {
      setBusy(null);
    }
  }
  const button = (action: Action, label: string, title: string) => (
    <button type="button" className="btn small" disabled={busy !== null} title={title} onClick={() => void run(action)}>
      {label}
    </button>
  );
  return (
    <div className="comp-exports" role="group" aria-label={`Export version ${version}`}>
      {button('download', 'Download', `Save version ${version}'s own file`)}
      {button('print', 'Print', `Print version ${version} (as its PDF)`)}
      {button('pdf', 'Save as PDF', `Save version ${version} as a PDF, as create_pdf prints it`)}
      {button('zip', 'Export zip', `Save version ${version} as a zip, as deskhand compositions export writes it`)}
      {busy && (
        <span className="muted small" role="status">
          {BUSY[busy]}
        </span>
      )}
    </div>
  );
}
