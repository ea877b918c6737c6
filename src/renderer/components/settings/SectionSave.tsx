/**
 * One save model for Settings (issue 52): every section that holds a form saves itself with its own Save button, and
 * says "Unsaved changes" until then. Sections of the settings file (the provider, each provider, new conversations,
 * appearance and storage, tools, browser) share one draft; saving one sends the saved settings with only that
 * section's part taken from the draft, so another section's unsaved edits are neither saved nor lost. List sections
 * (rules, memory, reminders, MCP servers, peers…) act per row at once, as before.
 */
import { useState } from 'react';
import type { Settings } from '../../../shared/contract';
import type { ProviderName } from '../../../shared/contract/names';
import { api, errorText } from '../../api/client';
import { useSettings } from '../../state/settings';
import { Feedback } from '../common/Feedback';

/** A section's part of the settings: read it, and copy it from one settings object onto another. */
export interface SettingsPart {
  title: string;
  read(s: Settings): unknown;
  apply(onto: Settings, from: Settings): Settings;
}

function keysPart(title: string, keys: (keyof Settings)[]): SettingsPart {
  return {
    title,
    read: (s) => keys.map((k) => s[k] ?? null),
    apply: (onto, from) => {
      const next = { ...onto } as Record<string, unknown>;
      for (const k of keys) next[k] = from[k];
      return next as unknown as Settings;
    },
  };
}

export function providerPart(title: string, p: ProviderName): SettingsPart {
  return {
    title,
    read: (s) => s.providers[p],
    apply: (onto, from) => ({ ...onto, providers: { ...onto.providers, [p]: from.providers[p] } }),
  };
}

export const PARTS = {
  activeProvider: keysPart('Provider for new messages', ['activeProvider']),
  newConversations: keysPart('New conversations', ['defaultPolicy', 'defaultSandbox', 'workspaceFolders']),
  appearance: keysPart('Appearance and storage', ['theme', 'logRetentionDays']),
  context: keysPart('Context', ['compactAtPercent']),
  tools: keysPart('Tools for new conversations', ['enableFamilies']),
  browser: keysPart('Browser', ['browser']),
} satisfies Record<string, SettingsPart>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The Save row at the end of a section: "Unsaved changes" and Save while the draft differs, "Saved." after. */
export function SectionSave({ part, draft, setDraft }: { part: SettingsPart; draft: Settings; setDraft(f: (d: Settings) => Settings): void }) {
  const saved = useSettings((s) => s.view?.settings);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const dirty = !!saved && !same(part.read(draft), part.read(saved));

  async function save() {
    if (!saved) return;
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      // The web search backend has its own form (WebSettings.tsx): leaving it out keeps what that form saved.
      const { search: _search, ...rest } = part.apply(saved, draft);
      void _search;
      const next = await api().saveSettings(rest);
      useSettings.getState().set(next);
      setDraft((d) => part.apply(d, next.settings));
      setStatus('Saved.');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="actions section-save">
      {dirty && <span className="muted small">Unsaved changes</span>}
      {!dirty && <Feedback status={status} />}
      <Feedback error={error} />
      <button type="button" className="btn primary" aria-label={`Save ${part.title}`} disabled={!dirty || busy} onClick={() => void save()}>
        Save
      </button>
    </div>
  );
}
