/**
 * Settings → General: what new conversations start with (policy, sandbox, folders offered), the theme, and how long
 * command logs are kept. Each of its two sections has its own Save (SectionSave.tsx).
 */
import { useState, type ReactNode } from 'react';
import type { Settings } from '../../../shared/contract';
import { SANDBOX_MODES, type SandboxMode } from '../../../shared/sandbox';
import { POLICIES, type Policy } from '../../../shared/tools';
import { PARTS, type SettingsPart } from './SectionSave';

const SANDBOX_LABEL: Record<SandboxMode, string> = {
  'workspace-write': 'Workspace sandbox (writes only in the folder)',
  'read-only': 'Read-only sandbox',
  off: 'No sandbox (commands ask)',
};

type Theme = NonNullable<Settings['theme']>;
const THEME_LABEL: Record<Theme, string> = { system: 'Follow the system', light: 'Light', dark: 'Dark' };

export function GeneralSettings({ draft, setDraft, saveRow }: { draft: Settings; setDraft(s: Settings): void; saveRow(part: SettingsPart): ReactNode }) {
  const [folder, setFolder] = useState('');
  const folders = draft.workspaceFolders ?? [];
  const addFolder = () => {
    const f = folder.trim();
    if (!f || folders.includes(f)) return;
    setDraft({ ...draft, workspaceFolders: [...folders, f] });
    setFolder('');
  };

  return (
    <>
      <fieldset className="card">
        <legend>New conversations</legend>
        <label className="field">
          <span>Default policy</span>
          <select value={draft.defaultPolicy} onChange={(e) => setDraft({ ...draft, defaultPolicy: e.target.value as Policy })}>
            {POLICIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Default sandbox</span>
          <select value={draft.defaultSandbox ?? 'workspace-write'} onChange={(e) => setDraft({ ...draft, defaultSandbox: e.target.value as SandboxMode })}>
            {SANDBOX_MODES.map((m) => (
              <option key={m} value={m}>
                {SANDBOX_LABEL[m]}
              </option>
            ))}
          </select>
        </label>
        <div className="field">
          <span id="workspace-folders-label">Workspace folders (offered when you start a conversation)</span>
          <ul className="folder-list" aria-labelledby="workspace-folders-label">
            {folders.map((f) => (
              <li key={f}>
                <code>{f}</code>
                <button type="button" className="link-button" aria-label={`Remove workspace folder ${f}`} onClick={() => setDraft({ ...draft, workspaceFolders: folders.filter((x) => x !== f) })}>
                  Remove
                </button>
              </li>
            ))}
            {!folders.length && <li className="muted small">None yet.</li>}
          </ul>
          <span className="field-row">
            <input
              aria-label="Add workspace folder"
              value={folder}
              placeholder="/home/you/project"
              spellCheck={false}
              onChange={(e) => setFolder(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addFolder();
                }
              }}
            />
            <button type="button" className="btn" disabled={!folder.trim()} onClick={addFolder}>
              Add folder
            </button>
          </span>
        </div>
        {saveRow(PARTS.newConversations)}
      </fieldset>
      <fieldset className="card">
        <legend>Appearance and storage</legend>
        <label className="field">
          <span>Theme</span>
          <select value={draft.theme ?? 'system'} onChange={(e) => setDraft({ ...draft, theme: e.target.value as Theme })}>
            {(Object.keys(THEME_LABEL) as Theme[]).map((t) => (
              <option key={t} value={t}>
                {THEME_LABEL[t]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Keep background command logs (days)</span>
          <input
            type="number"
            min={1}
            max={3650}
            value={draft.logRetentionDays ?? 7}
            onChange={(e) => {
              const n = Math.round(Number(e.target.value));
              if (Number.isFinite(n) && n >= 1 && n <= 3650) setDraft({ ...draft, logRetentionDays: n });
            }}
          />
          <span className="muted small">Output logs of ended commands are deleted after this many days; the commands stay listed.</span>
        </label>
        {saveRow(PARTS.appearance)}
      </fieldset>
      <fieldset className="card">
        <legend>Context</legend>
        <label className="field">
          <span>Compact the context at (% of the model's window)</span>
          <input
            type="number"
            min={10}
            max={95}
            value={draft.compactAtPercent ?? 80}
            onChange={(e) => {
              const n = Math.round(Number(e.target.value));
              if (Number.isFinite(n) && n >= 10 && n <= 95) setDraft({ ...draft, compactAtPercent: n });
            }}
          />
          <span className="muted small">
            Older messages are then summarized for the model; the transcript shows a notice and what was dropped, and your own messages stay in the model's view word for word.
          </span>
        </label>
        {saveRow(PARTS.context)}
      </fieldset>
    </>
  );
}
