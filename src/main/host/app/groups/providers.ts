/**
 * The person's provider settings and API keys: what the settings page shows (whether a key is set, never the key),
 * and the provider each run uses. Provider flags the host was started with win over the saved settings; keys come
 * from the OS keyring, else the environment.
 */
import { PROVIDER_NAMES, type ParsedParams, type ProviderName, type Settings, type SettingsView, type MethodResult } from '../../../../shared/contract';
import { DeskhandError, errorMessage } from '../../../../shared/errors';
import { KEY_ENV, type ProviderConfig } from '../../../services/providers/config';
import type { SecretStore } from '../../../services/vault/secret-store';
import type { Logger } from '../../assembly/logger';
import { SettingsFile } from '../../assembly/settings-file';
import { detectLocalServers, probesFromEnv } from '../../../services/providers/local-servers';
import type { HandlerGroup } from '../handler-groups';
import { checkFamilies } from './tools';

const checkFamiliesOrNone = (names: readonly string[]): string[] => (names.length ? checkFamilies(names) : []);

/** Settings → Providers: the contract methods (a handler group, handler-groups.ts) over the service's settings. */
export const providerGroup =
  (providers: ProviderSettings): HandlerGroup<'getSettings' | 'saveSettings' | 'setApiKey' | 'clearApiKey' | 'detectLocalModels' | 'testProvider'> =>
  ({ runtime, env }) => ({
    getSettings: () => providers.view(),
    saveSettings: (p) => providers.save(p),
    setApiKey: (p) => providers.setKey(p.provider, p.key),
    clearApiKey: (p) => providers.clearKey(p.provider),
    detectLocalModels: async () => ({ servers: await detectLocalServers(probesFromEnv(env)) }),
    testProvider: (p) => providers.test(p, (cfg) => runtime.testProvider(cfg)),
  });

import { apiKeyName } from '../../assembly/provider-choice';

export { apiKeyName };

const PROVIDER_LABEL: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI', 'openai-compatible': 'the OpenAI-compatible server' };
const NO_BASE_URL = 'The OpenAI-compatible provider needs a base URL (for Ollama: http://127.0.0.1:11434/v1).';

export interface ProviderSettingsOptions {
  dataDir: string;
  secrets: SecretStore;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Provider flags the host was started with (`deskhand web --provider …`). */
  override: ProviderConfig | null;
}

/** The OS keyring's error in one sentence a person can act on (the raw text stays available as detail). */
export function keyringProblem(err: unknown): string {
  const raw = errorMessage(err);
  if (/org\.freedesktop\.secrets|Secret Service|ServiceUnknown|was not provided by any \.service/i.test(raw)) {
    return 'no Secret Service (such as gnome-keyring or KWallet) is running in this session';
  }
  if (/DBUS_SESSION_BUS_ADDRESS|Cannot autolaunch D-Bus|X11 \$DISPLAY|dbus-launch/i.test(raw)) return 'this session has no D-Bus, which the OS keyring needs';
  if (/locked|unlock|dismissed/i.test(raw)) return 'the OS keyring is locked; unlock it and try again';
  return raw.split('\n')[0]!.replace(/^Could not \w+ the secret in the OS keyring: /, '').slice(0, 200);
}

export class ProviderSettings {
  private readonly file: SettingsFile;
  private keyringWarned = false;
  /** Keys typed where no OS keyring runs: in this process's memory only, gone when it stops. */
  private readonly sessionKeys = new Map<ProviderName, string>();

  constructor(private readonly opts: ProviderSettingsOptions) {
    this.file = new SettingsFile(opts.dataDir, opts.env);
  }

  /** The saved settings as they are now (defaults where nothing is saved). */
  current(): Settings {
    return this.file.read();
  }

  async save(settings: Settings): Promise<SettingsView> {
    if (settings.activeProvider === 'openai-compatible' && !settings.providers['openai-compatible'].baseURL) throw new DeskhandError('usage', NO_BASE_URL);
    // Families for new conversations: unknown or always-loaded names are refused with the families named.
    if (settings.enableFamilies) settings = { ...settings, enableFamilies: checkFamiliesOrNone(settings.enableFamilies) };
    // A UI without the search section keeps the saved search backend.
    const saved = this.file.read();
    const next = settings.search === undefined ? { ...settings, search: saved.search ?? null } : settings;
    // The peer endpoint is changed only by setPeerEndpoint (Settings → Peers): a settings form of the other sections
    // never turns it on, off or moves it.
    // Hooks are edited in the file (docs/hooks.md): a save keeps them as written.
    const { hooks: _notFromForms, ...rest } = next;
    this.file.write({ ...rest, peerEndpoint: saved.peerEndpoint, ...(saved.hooks ? { hooks: saved.hooks } : {}) });
    return this.view();
  }

  /** One tiny real model call (`call`) with these settings; a missing key or base URL is said in words, not tried. */
  async test(p: ParsedParams<'testProvider'>, call: (cfg: ProviderConfig) => Promise<MethodResult<'testProvider'>>): Promise<MethodResult<'testProvider'>> {
    const key = p.key ?? (await this.keyFor(p.provider));
    if (KEY_ENV[p.provider] && !key) return { ok: false, message: `No API key for ${PROVIDER_LABEL[p.provider]} yet. Paste one first.`, ms: 0 };
    if (p.provider === 'openai-compatible' && !p.baseURL) return { ok: false, message: NO_BASE_URL, ms: 0 };
    return call({ provider: p.provider, model: p.model, baseURL: p.baseURL, apiKey: key ?? null });
  }

  /** What the settings page shows: the saved settings, whether each key is set (never the key), the flags in force. */
  async view(): Promise<SettingsView> {
    let stored: string[] = [];
    let keyring: SettingsView['keyring'] = { available: true, message: null };
    try {
      stored = await this.opts.secrets.list();
    } catch (err) {
      keyring = { available: false, message: keyringProblem(err), detail: errorMessage(err) };
    }
    const keys = {} as SettingsView['keys'];
    for (const provider of PROVIDER_NAMES) {
      const inKeyring = stored.includes(apiKeyName(provider));
      const inSession = this.sessionKeys.has(provider);
      const envName = KEY_ENV[provider];
      const inEnv = !!envName && !!this.opts.env[envName];
      keys[provider] = { set: inKeyring || inSession || inEnv, source: inKeyring ? 'keyring' : inSession ? 'session' : inEnv ? 'env' : null };
    }
    const o = this.opts.override;
    return {
      settings: this.file.read(),
      keys,
      keyring,
      override: o ? { provider: o.provider, model: o.model, baseURL: o.baseURL ?? null } : null,
      firstRun: !o && !this.file.exists() && !PROVIDER_NAMES.some((p) => keys[p].set),
    };
  }

  /**
   * Saves a key to the OS keyring; where none runs, keeps it for this session (memory only) and says so in the view,
   * so a person can still work without a keyring.
   */
  async setKey(provider: ProviderName, key: string): Promise<SettingsView> {
    try {
      await this.opts.secrets.set(apiKeyName(provider), key);
      this.sessionKeys.delete(provider);
    } catch (err) {
      this.opts.log.warn('the OS keyring is not available; the API key is kept for this session only', { error: keyringProblem(err) });
      this.sessionKeys.set(provider, key);
    }
    return this.view();
  }

  async clearKey(provider: ProviderName): Promise<SettingsView> {
    const hadSession = this.sessionKeys.delete(provider);
    try {
      await this.opts.secrets.delete(apiKeyName(provider));
    } catch (err) {
      if (!hadSession) throw err;
    }
    return this.view();
  }

  private async keyFor(provider: ProviderName): Promise<string | null> {
    const session = this.sessionKeys.get(provider);
    if (session) return session;
    try {
      const key = await this.opts.secrets.get(apiKeyName(provider));
      if (key) return key;
    } catch (err) {
      if (!this.keyringWarned) this.opts.log.warn('the OS keyring is not available; using keys from the environment only', { error: errorMessage(err) });
      this.keyringWarned = true;
    }
    const envName = KEY_ENV[provider];
    return envName ? (this.opts.env[envName] ?? null) : null;
  }

  private async complete(
    cfg: { provider: ProviderName; model: string; baseURL: string | null; fallbackModel?: string | null | undefined; thinking?: ProviderConfig['thinking'] | undefined; openaiApi?: ProviderConfig['openaiApi'] | undefined },
    key?: string | null,
  ): Promise<ProviderConfig> {
    const apiKey = key === undefined ? await this.keyFor(cfg.provider) : key || null;
    if (KEY_ENV[cfg.provider] && !apiKey) {
      throw new DeskhandError('usage', `No API key for ${PROVIDER_LABEL[cfg.provider]}. Open Settings → Providers to add one.`);
    }
    if (cfg.provider === 'openai-compatible' && !cfg.baseURL) {
      throw new DeskhandError('usage', 'The OpenAI-compatible provider has no base URL. Open Settings → Providers.');
    }
    return {
      provider: cfg.provider,
      model: cfg.model,
      baseURL: cfg.baseURL,
      apiKey: apiKey ?? null,
      ...(cfg.fallbackModel ? { fallbackModel: cfg.fallbackModel } : {}),
      ...(cfg.thinking != null ? { thinking: cfg.thinking } : {}),
      ...(cfg.provider === 'openai' && cfg.openaiApi ? { openaiApi: cfg.openaiApi } : {}),
    };
  }

  /** The provider a new run uses: the host's provider flags, else the saved settings. */
  async forNewRun(): Promise<ProviderConfig> {
    const o = this.opts.override;
    // Provider flags bring their key from the environment, as `deskhand run` does.
    if (o) return this.complete({ provider: o.provider, model: o.model, baseURL: o.baseURL ?? null, openaiApi: o.openaiApi }, o.apiKey ?? '');
    const s = this.file.read();
    const cfg = s.providers[s.activeProvider];
    return this.complete({ provider: s.activeProvider, model: cfg.model, baseURL: cfg.baseURL, fallbackModel: cfg.fallbackModel, thinking: cfg.thinking, openaiApi: cfg.openaiApi });
  }

  /** A parked run resumes on the provider and model it started with. */
  async forRun(run: { provider: string; model: string; base_url: string | null }): Promise<ProviderConfig> {
    const provider = (PROVIDER_NAMES as readonly string[]).includes(run.provider) ? (run.provider as ProviderName) : null;
    if (!provider) throw new DeskhandError('usage', `This run used the provider "${run.provider}", which this build does not know.`);
    const o = this.opts.override;
    const key = o && o.provider === provider && (o.baseURL ?? null) === run.base_url ? (o.apiKey ?? '') : undefined;
    // The fallback saved for that provider still applies (a run already on it stays there: model-step.ts).
    const saved = this.file.read().providers[provider];
    // The wire too: a Responses conversation's reasoning items go back only on the Responses wire.
    const openaiApi = o && o.provider === provider ? (o.openaiApi ?? saved?.openaiApi) : saved?.openaiApi;
    return this.complete({ provider, model: run.model, baseURL: run.base_url, fallbackModel: saved?.fallbackModel, thinking: saved?.thinking, openaiApi }, key);
  }
}
