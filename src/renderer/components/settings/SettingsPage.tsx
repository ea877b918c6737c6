/**
 * Settings: the provider new runs use, each provider's model and base URL, API keys (sent once to main, which puts them
 * in the OS keyring; the page only ever learns whether a key is set), the default policy for new conversations, and
 * (WebSettings.tsx) web_search's backend and the URL grants. Each section saves itself (SectionSave.tsx).
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { MethodResult, Settings, SettingsView } from '../../../shared/contract';
import { PROVIDER_NAMES, type ProviderName } from '../../../shared/contract/names';
import { api, errorText } from '../../api/client';
import { useSettings } from '../../state/settings';
import { useUi } from '../../state/ui';
import { UrlGrantsSettings, WebSearchSettings } from './WebSettings';
import { RulesSettings } from './RulesSettings';
import { MemorySettings } from './MemorySettings';
import { ScheduleSettings } from './ScheduleSettings';
import { McpSettings } from './McpSettings';
import { PluginsSettings } from './PluginsSettings';
import { AppGrantsSettings } from '../computer/ComputerUse';
import { BrowserSettings } from './BrowserSettings';
import { GeneralSettings } from './GeneralSettings';
import { CompanionSettings } from './CompanionSettings';
import { PeersSettings } from './PeersSettings';
import { DevicesSettings } from './DevicesSettings';
import { PARTS, providerPart, SectionSave, type SettingsPart } from './SectionSave';
import { Feedback } from '../common/Feedback';
import { SystemPromptSettings, ToolFamilySettings } from '../tools/ToolsSettings';

const LABEL: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI', 'openai-compatible': 'OpenAI-compatible (Ollama, LM Studio, vLLM…)' };

export function SettingsPage() {
  const view = useSettings((s) => s.view);
  const [draft, setDraft] = useState<Settings | null>(view?.settings ?? null);
  const body = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!view) void api().getSettings({}).then((v) => useSettings.getState().set(v));
  }, [view]);
  useEffect(() => {
    if (view && !draft) setDraft(view.settings);
  }, [view, draft]);

  if (!view || !draft) return <main className="settings" aria-label="Settings"><p className="center-note">Loading settings…</p></main>;

  const setProvider = (p: ProviderName, patch: Partial<Settings['providers'][ProviderName]>) =>
    setDraft({ ...draft, providers: { ...draft.providers, [p]: { ...draft.providers[p], ...patch } } });

  const update = (f: (d: Settings) => Settings) => setDraft((d) => (d ? f(d) : d));
  const saveRow = (part: SettingsPart) => <SectionSave part={part} draft={draft} setDraft={update} />;

  return (
    <main className="settings" aria-label="Settings">
      <SettingsIndex body={body} />
      <div className="settings-body" ref={body}>
      <header className="settings-head">
        <h1>Settings</h1>
        <button type="button" className="btn" onClick={() => useUi.getState().setView('chat')}>
          Back to conversations
        </button>
      </header>
      {view.override && (
        <p className="banner" role="status">
          This Deskhand was started with provider flags ({view.override.provider} · {view.override.model}
          {view.override.baseURL ? ` at ${view.override.baseURL}` : ''}); they win over these settings until it starts without them.
        </p>
      )}
      {!view.keyring.available && <KeyringNotice keyring={view.keyring} />}
      <div className="settings-form">
        <fieldset className="card">
          <legend>Provider for new messages</legend>
          {PROVIDER_NAMES.map((p) => (
            <label key={p} className="radio">
              <input type="radio" name="provider" value={p} checked={draft.activeProvider === p} onChange={() => setDraft({ ...draft, activeProvider: p })} />
              {LABEL[p]}
            </label>
          ))}
          {saveRow(PARTS.activeProvider)}
        </fieldset>
        {PROVIDER_NAMES.map((p) => (
          <fieldset key={p} className="card">
            <legend>{LABEL[p]}</legend>
            <label className="field">
              <span>Model</span>
              <input aria-label={`Model for ${LABEL[p]}`} value={draft.providers[p].model} onChange={(e) => setProvider(p, { model: e.target.value })} spellCheck={false} />
            </label>
            <label className="field">
              <span>Base URL {p === 'openai-compatible' ? '(required)' : '(optional)'}</span>
              <input
                aria-label={`Base URL for ${LABEL[p]}`}
                value={draft.providers[p].baseURL ?? ''}
                placeholder={p === 'openai-compatible' ? 'http://127.0.0.1:11434/v1' : 'default'}
                onChange={(e) => setProvider(p, { baseURL: e.target.value.trim() ? e.target.value.trim() : null })}
                spellCheck={false}
              />
            </label>
            <label className="field">
              <span>Fallback model (optional, used when the provider is overloaded)</span>
              <input
                aria-label={`Fallback model for ${LABEL[p]}`}
                value={draft.providers[p].fallbackModel ?? ''}
                placeholder="none"
                onChange={(e) => setProvider(p, { fallbackModel: e.target.value.trim() ? e.target.value : null })}
                spellCheck={false}
              />
            </label>
            <label className="field">
              <span>Thinking (off, an effort level, or a budget in tokens)</span>
              <select
                aria-label={`Thinking for ${LABEL[p]}`}
                value={draft.providers[p].thinking == null ? '' : String(draft.providers[p].thinking)}
                onChange={(e) => {
                  const v = e.target.value;
                  setProvider(p, { thinking: v === '' ? null : /^\d+$/.test(v) ? Number(v) : (v as 'off' | 'low' | 'medium' | 'high' | 'max') });
                }}
              >
                <option value="">the provider's default</option>
                {['off', 'low', 'medium', 'high', 'max'].map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
                <option value="8000">budget: 8,000 tokens</option>
                <option value="32000">budget: 32,000 tokens</option>
                {typeof draft.providers[p].thinking === 'number' && ![8000, 32000].includes(draft.providers[p].thinking) && (
                  <option value={String(draft.providers[p].thinking)}>budget: {draft.providers[p].thinking} tokens</option>
                )}
              </select>
            </label>
            {p === 'openai' && (
              <label className="field">
                <span>API (Responses: reasoning summaries shown, reasoning kept across tool calls)</span>
                <select
                  aria-label="API for OpenAI"
                  value={draft.providers.openai.openaiApi ?? 'chat'}
                  onChange={(e) => setProvider('openai', { openaiApi: e.target.value === 'responses' ? 'responses' : null })}
                >
                  <option value="chat">Chat Completions</option>
                  <option value="responses">Responses</option>
                </select>
              </label>
            )}
            <KeyField provider={p} />
            <TestConnection provider={p} model={draft.providers[p].model} baseURL={draft.providers[p].baseURL} />
            {saveRow(providerPart(LABEL[p], p))}
          </fieldset>
        ))}
        <GeneralSettings draft={draft} setDraft={setDraft} saveRow={saveRow} />
        <ToolFamilySettings draft={draft} setDraft={setDraft} footer={saveRow(PARTS.tools)} />
        <BrowserSettings draft={draft} setDraft={setDraft} footer={saveRow(PARTS.browser)} />
      </div>
      <SystemPromptSettings />
      <WebSearchSettings />
      <UrlGrantsSettings />
      <RulesSettings />
      <MemorySettings />
      <ScheduleSettings />
      <McpSettings />
      <PluginsSettings />
      <AppGrantsSettings />
      <CompanionSettings />
      <PeersSettings />
      <DevicesSettings />
      </div>
    </main>
  );
}

interface IndexEntry {
  id: string;
  title: string;
}

/** The page's sections (each `.card` with its legend or heading), read from the page as it renders. */
function readSections(root: HTMLElement): { cards: HTMLElement[]; entries: IndexEntry[] } {
  const cards = [...root.querySelectorAll<HTMLElement>('.card')].filter((c) => !c.parentElement?.closest('.card'));
  const entries: IndexEntry[] = [];
  cards.forEach((c, i) => {
    const title = (c.querySelector(':scope > legend, :scope > h2, :scope > header h2, :scope > div > h2')?.textContent ?? '').trim();
    if (!title) return;
    if (!c.id) c.id = `settings-section-${i}`;
    entries.push({ id: c.id, title });
  });
  return { cards, entries };
}

/**
 * The section list and search (issue 52): every section by its title, a click brings it into view; typed words keep
 * only the sections whose text holds them.
 */
function SettingsIndex({ body }: { body: RefObject<HTMLDivElement | null> }) {
  const [entries, setEntries] = useState<IndexEntry[]>([]);
  const [query, setQuery] = useState('');
  const [shown, setShown] = useState<Set<string> | null>(null);
  useEffect(() => {
    const root = body.current;
    if (!root) return;
    const read = () => {
      const next = readSections(root).entries;
      setEntries((prev) => (prev.length === next.length && prev.every((e, i) => e.id === next[i]!.id && e.title === next[i]!.title) ? prev : next));
    };
    read();
    const mo = new MutationObserver(read);
    mo.observe(root, { childList: true, subtree: true });
    return () => mo.disconnect();
  }, [body]);
  useEffect(() => {
    const root = body.current;
    if (!root) return;
    const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const visible = new Set<string>();
    for (const card of readSections(root).cards) {
      const text = (card.textContent ?? '').toLowerCase();
      const match = words.every((w) => text.includes(w));
      card.hidden = !match;
      if (match && card.id) visible.add(card.id);
    }
    setShown(words.length ? visible : null);
  }, [query, entries, body]);
  const list = shown ? entries.filter((e) => shown.has(e.id)) : entries;
  return (
    <nav className="settings-index" aria-label="Settings sections">
      <input type="search" aria-label="Search settings" placeholder="Search settings" value={query} onChange={(e) => setQuery(e.target.value)} />
      {shown && list.length === 0 && <p className="muted small">No setting matches “{query.trim()}”.</p>}
      <ul>
        {list.map((e) => (
          <li key={e.id}>
            <button type="button" className="link-button" onClick={() => document.getElementById(e.id)?.scrollIntoView({ block: 'start' })}>
              {e.title}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

const KEY_SOURCE = {
  keyring: 'Set (in the OS keyring)',
  env: 'Set from the environment',
  session: 'Set for this session only (no OS keyring: forgotten when Deskhand stops)',
} as const;

/** Said once for the page: why keys cannot be saved, and what still works. */
function KeyringNotice({ keyring }: { keyring: SettingsView['keyring'] }) {
  return (
    <div className="banner" role="note" aria-label="No OS keyring">
      <p>
        The OS keyring is not available here: {keyring.message}. Keys you enter are used for this session only and are not saved; set them in the
        environment (ANTHROPIC_API_KEY, OPENAI_API_KEY) to keep them, or start a keyring and reload.
      </p>
      {keyring.detail && (
        <details>
          <summary>Technical detail</summary>
          <code className="small">{keyring.detail}</code>
        </details>
      )}
    </div>
  );
}

function KeyField({ provider }: { provider: ProviderName }) {
  const view = useSettings((s) => s.view)!;
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const status = view.keys[provider];
  const label = LABEL[provider].split(' ')[0];

  async function saveKey() {
    setError(null);
    try {
      const next = await api().setApiKey({ provider, key: value });
      setValue('');
      useSettings.getState().set(next);
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function clearKey() {
    setError(null);
    try {
      useSettings.getState().set(await api().clearApiKey({ provider }));
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <div className="field">
      <span>API key</span>
      <p className="key-status" role="status" aria-label={`API key for ${label}`}>
        {status.set ? KEY_SOURCE[status.source ?? 'keyring'] : 'Not set'}
      </p>
      <span className="field-row">
        <input
          type="password"
          autoComplete="off"
          aria-label={`New API key for ${label}`}
          placeholder={status.set ? 'Replace the key' : 'Paste a key'}
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="button" className="btn" disabled={!value.trim()} onClick={() => void saveKey()}>
          {view.keyring.available ? 'Save key' : 'Use for this session'}
        </button>
        {(status.source === 'keyring' || status.source === 'session') && (
          <button type="button" className="btn" onClick={() => void clearKey()}>
            Remove key
          </button>
        )}
      </span>
      <Feedback error={error} />
    </div>
  );
}

/** One tiny real model call with what the form says now (the saved key), and its outcome in plain words. */
function TestConnection({ provider, model, baseURL }: { provider: ProviderName; model: string; baseURL: string | null }) {
  const [result, setResult] = useState<MethodResult<'testProvider'> | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const label = LABEL[provider].split(' ')[0];

  async function test() {
    setBusy(true);
    setResult(null);
    setError(null);
    try {
      setResult(await api().testProvider({ provider, model: model.trim(), baseURL }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="field test-connection">
      <span className="field-row">
        <button type="button" className="btn" disabled={busy || !model.trim()} onClick={() => void test()} aria-label={`Test connection to ${label}`}>
          {busy ? 'Testing…' : 'Test connection'}
        </button>
        {result && (
          <span className={result.ok ? 'ok-text' : 'error-text'} role={result.ok ? 'status' : 'alert'}>
            {result.message}
          </span>
        )}
        {error && (
          <span role="alert" className="error-text">
            {error}
          </span>
        )}
      </span>
    </div>
  );
}
