/**
 * Settings → Tools: the families a new conversation loads from its first request (the others wait for search_tools
 * or its header's toggles), saved with the Settings form; and Settings → System prompt: the full prompt a new
 * conversation's first request carries under the saved settings (`deskhand prompt show`), read-only, with the
 * project instructions it loads.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { Settings } from '../../../shared/contract';
import type { MethodResult } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { familyLabel } from '../../state/conversation-tools';
import { useSettings } from '../../state/settings';
import { Instructions } from './ToolsPanel';
import './tools.css';

type PromptView = MethodResult<'getSystemPrompt'>;

/** The saved settings' prompt preview, fetched again whenever the settings change. */
function usePromptPreview(): { view: PromptView | null; error: string | null } {
  const settings = useSettings((s) => s.view);
  const [view, setView] = useState<PromptView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api()
      .getSystemPrompt({})
      .then((v) => live && (setView(v), setError(null)))
      .catch((err: unknown) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [settings]);
  return { view, error };
}

/** Part of the Settings draft; `footer` is the section's own Save row. */
export function ToolFamilySettings({ draft, setDraft, footer }: { draft: Settings; setDraft(s: Settings): void; footer?: ReactNode }) {
  const { view } = usePromptPreview();
  const chosen = draft.enableFamilies ?? [];
  const families = (view?.families ?? []).filter((f) => f.loads !== 'always');
  return (
    <fieldset className="card">
      <legend>Tools for new conversations</legend>
      <p className="muted small">
        Files, shell, tasks, todos, context, interaction and web are always loaded. The other families are listed to the model by name and load when it
        searches for them; browser and computer use stay off until enabled. Families checked here are loaded from a new conversation&apos;s first request
        (its header can still turn them off).
      </p>
      {families.length === 0 && <p className="muted small">Loading the families…</p>}
      <div className="family-settings-list" role="group" aria-label="Families loaded in new conversations">
        {families.map((f) => (
          <label key={f.name} className="family-switch" title={f.summary}>
            <input
              type="checkbox"
              checked={chosen.includes(f.name)}
              onChange={(e) => setDraft({ ...draft, enableFamilies: e.target.checked ? [...chosen, f.name] : chosen.filter((n) => n !== f.name) })}
            />
            {familyLabel(f.name)} <span className="muted small">({f.loads === 'off' ? 'off by default' : 'on demand'}; {f.summary})</span>
          </label>
        ))}
      </div>
      {footer}
    </fieldset>
  );
}

export function SystemPromptSettings() {
  const { view, error } = usePromptPreview();
  return (
    <section className="card" aria-label="System prompt">
      <h2 className="card-title">System prompt</h2>
      <p className="muted small">
        What a new conversation&apos;s first request carries under these settings
        {view ? ` (folder ${view.folder}, policy ${view.policy}, provider ${view.provider})` : ''}. It is built from the sections in
        src/main/runtime/prompt/; `deskhand prompt show` prints the same text. Read-only.
      </p>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {view ? (
        <>
          <Instructions instructions={view.instructions} />
          <pre className="prompt-text" aria-label="System prompt text" tabIndex={0}>
            {view.prompt}
          </pre>
        </>
      ) : (
        !error && <p className="muted small">Loading the system prompt…</p>
      )}
    </section>
  );
}
