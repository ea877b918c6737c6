/**
 * First run: nothing is set up yet. A local model server that main found running (Ollama, LM Studio) is offered
 * first, then Anthropic, OpenAI and any OpenAI-compatible URL. "Test connection" makes one tiny real model call in
 * main and says what happened in plain words; the key goes to the OS keyring and is never sent back here.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { LocalModelServer, MethodResult } from '../../../shared/contract';
import type { ProviderName } from '../../../shared/contract/names';
import { api, errorText } from '../../api/client';
import { useSettings } from '../../state/settings';
import { useUi } from '../../state/ui';

type ChoiceId = `local:${number}` | 'anthropic' | 'openai' | 'compatible';

interface Choice {
  id: ChoiceId;
  provider: ProviderName;
  label: string;
  detail: string;
  server?: LocalModelServer;
}

const CLOUD: Choice[] = [
  { id: 'anthropic', provider: 'anthropic', label: 'Anthropic', detail: 'Claude models. Needs an API key from console.anthropic.com.' },
  { id: 'openai', provider: 'openai', label: 'OpenAI', detail: 'GPT models. Needs an API key from platform.openai.com.' },
  { id: 'compatible', provider: 'openai-compatible', label: 'OpenAI-compatible server', detail: 'vLLM, OpenRouter, a server elsewhere: anything with a /v1 API.' },
];

/** Why a typed base URL cannot be used, in words; null when it can (or nothing is typed yet). */
export function baseUrlProblem(value: string): string | null {
  const v = value.trim();
  if (!v) return null;
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return null;
  } catch {
    // not a URL at all
  }
  return 'This is not a web address: write it with http:// or https://, like http://127.0.0.1:8000/v1.';
}

export function FirstRunPanel() {
  const view = useSettings((s) => s.view)!;
  const [servers, setServers] = useState<LocalModelServer[] | null>(null);
  const [choiceId, setChoiceId] = useState<ChoiceId>('anthropic');
  const [model, setModel] = useState(view.settings.providers.anthropic.model);
  const [baseURL, setBaseURL] = useState('');
  const [hasKey, setHasKey] = useState(false);
  const [result, setResult] = useState<MethodResult<'testProvider'> | null>(null);
  const [busy, setBusy] = useState<'test' | 'save' | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Automatic memory extraction stays off until the person says yes here (or later in Settings → Memory).
  const [remember, setRemember] = useState(false);
  const keyField = useRef<HTMLInputElement>(null);
  const ids = { model: useId(), url: useId(), key: useId(), detail: useId() };

  const choices: Choice[] = [
    ...(servers ?? []).map((server, i) => ({
      id: `local:${i}` as const,
      provider: 'openai-compatible' as const,
      label: `${server.label} on this computer`,
      detail: `Running at ${server.baseURL.replace(/\/v1$/, '')} · ${server.models.length} model${server.models.length === 1 ? '' : 's'}. No key needed; nothing leaves this computer.`,
      server,
    })),
    ...CLOUD,
  ];
  const choice = choices.find((c) => c.id === choiceId) ?? CLOUD[0]!;

  function choose(id: ChoiceId, found: LocalModelServer[] = servers ?? []) {
    setChoiceId(id);
    setResult(null);
    setError(null);
    if (keyField.current) keyField.current.value = '';
    setHasKey(false);
    if (id.startsWith('local:')) {
      const server = found[Number(id.slice(6))];
      setModel(server?.models[0] ?? '');
      setBaseURL(server?.baseURL ?? '');
    } else {
      const provider = id === 'compatible' ? 'openai-compatible' : id;
      setModel(id === 'compatible' ? '' : view.settings.providers[provider as ProviderName].model);
      setBaseURL('');
    }
  }

  // Local servers: looked for when the panel opens, again on "Look again", and again whenever the window comes back
  // while none was found (the person started Ollama meanwhile). A server found later is chosen only if the person has
  // not picked anything yet.
  const picked = useRef(false);
  const looking = useRef(false);
  const live = useRef(true);
  const look = () => {
    if (looking.current) return;
    looking.current = true;
    setServers(null);
    api()
      .detectLocalModels({})
      .then(({ servers: found }) => {
        if (!live.current) return;
        setServers(found);
        if (found.length && !picked.current) choose('local:0', found);
      })
      .catch(() => live.current && setServers([]))
      .finally(() => (looking.current = false));
  };
  useEffect(() => {
    live.current = true;
    look();
    return () => {
      live.current = false;
    };
  }, []); // once, when the panel opens
  const noneFound = servers?.length === 0;
  useEffect(() => {
    if (!noneFound) return;
    window.addEventListener('focus', look);
    return () => window.removeEventListener('focus', look);
  }, [noneFound]);

  const needsKey = (choice.provider === 'anthropic' || choice.provider === 'openai') && !view.keys[choice.provider].set;
  const urlProblem = choice.provider === 'openai-compatible' && !choice.server ? baseUrlProblem(baseURL) : null;
  const ready = model.trim() !== '' && (choice.provider !== 'openai-compatible' || baseURL.trim() !== '') && !urlProblem && (!needsKey || hasKey);
  const typedKey = () => keyField.current?.value.trim() || undefined;

  const lastAction = useRef<'test' | 'save'>('test');

  async function test() {
    lastAction.current = 'test';
    setBusy('test');
    setResult(null);
    setError(null);
    try {
      const key = typedKey();
      setResult(await api().testProvider({ provider: choice.provider, model: model.trim(), baseURL: baseURL.trim() || null, ...(key ? { key } : {}) }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  }

  async function save() {
    lastAction.current = 'save';
    setBusy('save');
    setError(null);
    try {
      const key = typedKey();
      if (key) {
        await api().setApiKey({ provider: choice.provider, key });
        if (keyField.current) keyField.current.value = '';
      }
      const p = choice.provider;
      const next = await api().saveSettings({
        ...view.settings,
        activeProvider: p,
        providers: { ...view.settings.providers, [p]: { model: model.trim(), baseURL: baseURL.trim() || null } },
      });
      await api().setMemoryExtraction({ on: remember });
      useSettings.getState().set(next);
      useUi.getState().notify(`Deskhand will use ${choice.label} (${model.trim()}). Change it any time in Settings.`, 'info');
    } catch (err) {
      setError(errorText(err));
      setBusy(null);
    }
  }

  return (
    <main className="first-run" aria-label="Set up Deskhand">
      <div className="first-run-inner">
        <h1>Set up Deskhand</h1>
        <p className="muted">Choose the model Deskhand works with. You can change it later in Settings.</p>
        <fieldset className="card">
          <legend>Model provider</legend>
          {servers === null && (
            <p className="muted small" role="status">
              Looking for a model server on this computer (Ollama, LM Studio)…
            </p>
          )}
          {noneFound && (
            <p className="muted small">
              No local model server is running (Ollama on port 11434, LM Studio on port 1234).{' '}
              <button type="button" className="link-button" onClick={look}>
                Look again
              </button>
            </p>
          )}
          {choices.map((c) => (
            <label key={c.id} className={`choice ${c.id === choice.id ? 'chosen' : ''}`}>
              <input
                type="radio"
                name="first-run-provider"
                value={c.id}
                checked={c.id === choice.id}
                onChange={() => {
                  picked.current = true;
                  choose(c.id);
                }}
                aria-label={c.label}
                aria-describedby={`${ids.detail}-${c.id}`}
              />
              <span className="choice-text">
                <span className="choice-label">
                  {c.label}
                  {c.server && <span className="chip found">found</span>}
                </span>
                <span className="choice-detail" id={`${ids.detail}-${c.id}`}>
                  {c.detail}
                </span>
              </span>
            </label>
          ))}
        </fieldset>

        <form
          className="card first-run-details"
          aria-label={`${choice.label} settings`}
          autoComplete="off"
          onSubmit={(e) => {
            e.preventDefault();
            if (ready) void save();
          }}
        >
          <h2 className="details-title">{choice.label}</h2>
          {choice.provider === 'openai-compatible' && !choice.server && (
            <label className="field" htmlFor={ids.url}>
              <span>Base URL</span>
              <input
                id={ids.url}
                value={baseURL}
                placeholder="http://127.0.0.1:8000/v1"
                spellCheck={false}
                aria-invalid={urlProblem !== null && baseURL.trim() !== ''}
                aria-describedby={`${ids.url}-problem`}
                onChange={(e) => setBaseURL(e.target.value)}
              />
            </label>
          )}
          {choice.provider === 'openai-compatible' && !choice.server && (
            <p id={`${ids.url}-problem`} className={baseURL.trim() && urlProblem ? 'error-text small' : 'muted small'}>
              {baseURL.trim() && urlProblem ? urlProblem : 'The server\'s address, ending in /v1 for most servers.'}
            </p>
          )}
          <label className="field" htmlFor={ids.model}>
            <span>Model</span>
            {choice.server && choice.server.models.length > 0 ? (
              <select id={ids.model} value={model} onChange={(e) => setModel(e.target.value)}>
                {choice.server.models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            ) : (
              <input id={ids.model} value={model} spellCheck={false} placeholder="model name" onChange={(e) => setModel(e.target.value)} />
            )}
          </label>
          {!choice.server && (
            <label className="field" htmlFor={ids.key}>
              <span>
                API key {choice.provider === 'openai-compatible' ? '(if the server needs one)' : view.keys[choice.provider].set ? '(one is set; paste to replace)' : ''}
              </span>
              <input
                id={ids.key}
                ref={keyField}
                type="password"
                autoComplete="off"
                spellCheck={false}
                placeholder="Paste the key"
                onChange={(e) => setHasKey(e.currentTarget.value.trim().length > 0)}
              />
            </label>
          )}
          {!view.keyring.available && !choice.server && (
            <p className="muted small" role="note">
              The OS keyring is not available here ({view.keyring.message}): the key is used for this session only, not saved. To keep it, set{' '}
              {choice.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'} in the environment.
            </p>
          )}
          <label className="check first-run-memory">
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} aria-describedby={`${ids.detail}-memory`} />
            <span>
              Remember things from conversations (automatic memory)
              <span className="muted small" id={`${ids.detail}-memory`}>
                {' '}
                — after each turn Deskhand sends that turn&apos;s text to the model once more to propose memories for you to accept: one more model
                request per turn. Off unless you tick it; change it any time in Settings → Memory.
              </span>
            </span>
          </label>
          {result && (
            <div className="result-row">
              <p className={result.ok ? 'ok-text test-result' : 'error-text test-result'} role={result.ok ? 'status' : 'alert'}>
                {result.message}
              </p>
              {!result.ok && (
                <button type="button" className="btn small" disabled={!ready || busy !== null} onClick={() => void test()}>
                  Retry
                </button>
              )}
            </div>
          )}
          {error && (
            <div className="result-row">
              <p role="alert" className="error-text">
                {error}
              </p>
              <button type="button" className="btn small" disabled={!ready || busy !== null} onClick={() => void (lastAction.current === 'save' ? save() : test())}>
                Retry
              </button>
              <button type="button" className="btn small" onClick={() => useUi.getState().setView('settings')}>
                Open Settings
              </button>
            </div>
          )}
          <div className="actions">
            <button type="button" className="btn" disabled={!ready || busy !== null} onClick={() => void test()}>
              {busy === 'test' ? 'Testing…' : 'Test connection'}
            </button>
            <button type="submit" className="btn primary" disabled={!ready || busy !== null}>
              Save and start
            </button>
            <span className="spacer" />
            <button type="button" className="link-button" onClick={() => useUi.getState().dismissFirstRun()}>
              Set up later
            </button>
          </div>
        </form>
      </div>
    </main>
  );
}
