/**
 * Which model provider, model and key a headless run uses: from the flags and the environment (`deskhand run`,
 * `deskhand web`), or, for a run Deskhand starts on its own (a fire, a wake-up), from the conversation's last run with
 * its key from the keyring, else the environment. Here, below the CLI and the web host, so both take it downward.
 */
import { DeskhandError } from '../../../shared/errors';
import { DEFAULT_MODELS, KEY_ENV, isOpenAIApi, isProviderName, type ProviderConfig, type ProviderName } from '../../services/providers/config';
import { KeytarSecretStore, keyringService } from '../../services/vault/secret-store';
import { parseThinking } from '../../runtime/loop/reasoning';

/** A command line the person must correct (exit code 2 in the CLI). */
export class UsageError extends Error {}

/** Where a provider's API key is kept in the keyring. */
export const apiKeyName = (provider: ProviderName): string => `apiKey.${provider}`;

export function providerFromFlags(
  values: { provider?: string | undefined; 'base-url'?: string | undefined; model?: string | undefined; 'fallback-model'?: string | undefined; thinking?: string | undefined; 'openai-api'?: string | undefined },
  run?: { provider: string; model: string; base_url: string | null },
): ProviderConfig {
  let provider: ProviderName;
  const requested = values.provider ?? run?.provider;
  if (requested !== undefined) {
    if (!isProviderName(requested)) throw new UsageError(`--provider must be anthropic, openai or openai-compatible (got "${requested}").`);
    provider = requested;
  } else if (values['base-url']) {
    provider = 'openai-compatible';
  } else if (process.env.ANTHROPIC_API_KEY) {
    provider = 'anthropic';
  } else if (process.env.OPENAI_API_KEY) {
    provider = 'openai';
  } else {
    throw new UsageError('No model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider openai-compatible --base-url URL.');
  }
  const baseURL = values['base-url'] ?? run?.base_url ?? null;
  if (baseURL !== null) {
    try {
      new URL(baseURL);
    } catch {
      throw new UsageError(`--base-url is not a URL: ${baseURL}`);
    }
  }
  if (provider === 'openai-compatible' && !baseURL) throw new UsageError('--provider openai-compatible needs --base-url URL.');
  const keyEnv = KEY_ENV[provider];
  const apiKey = keyEnv ? process.env[keyEnv] : (process.env.OPENAI_API_KEY ?? null);
  if (keyEnv && !apiKey) throw new UsageError(`${keyEnv} is not set.`);
  const fallback = values['fallback-model'];
  if (fallback !== undefined && !fallback.trim()) throw new UsageError('--fallback-model needs a model name (the model to use when the provider is overloaded).');
  let thinking: ProviderConfig['thinking'];
  if (values.thinking !== undefined) {
    try {
      thinking = parseThinking(values.thinking);
    } catch (err) {
      throw new UsageError(`--thinking: ${(err as Error).message}.`);
    }
  }
  const api = values['openai-api'];
  if (api !== undefined && !isOpenAIApi(api)) throw new UsageError(`--openai-api must be chat or responses (got "${api}").`);
  if (api !== undefined && provider !== 'openai') throw new UsageError(`--openai-api applies to --provider openai only (this run uses ${provider}).`);
  return {
    provider,
    model: values.model ?? run?.model ?? DEFAULT_MODELS[provider],
    baseURL,
    apiKey: apiKey ?? null,
    ...(fallback ? { fallbackModel: fallback.trim() } : {}),
    ...(thinking !== undefined ? { thinking } : {}),
    ...(api !== undefined ? { openaiApi: api } : {}),
  };
}

/** The provider a woken run uses: the conversation's last run's provider and model; its key from the keyring, else the environment. */
export async function fireProvider(run: { provider: string; model: string; base_url: string | null } | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ProviderConfig> {
  const name = run?.provider ?? (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : undefined);
  if (!name || !isProviderName(name)) throw new DeskhandError('usage', 'The conversation has no earlier run to take a model provider from; run it once first.');
  let apiKey: string | null = null;
  try {
    apiKey = await new KeytarSecretStore(keyringService(env)).get(apiKeyName(name));
  } catch {
    // No keyring here: the environment, if anything.
  }
  const keyEnv = KEY_ENV[name];
  apiKey ??= (keyEnv ? env[keyEnv] : env.OPENAI_API_KEY) ?? null;
  if (keyEnv && !apiKey) throw new DeskhandError('provider_auth', `No API key for ${name}: save one in Settings (it goes to the OS keyring, where a scheduled run finds it).`);
  return { provider: name, model: run?.model ?? DEFAULT_MODELS[name], baseURL: run?.base_url ?? null, apiKey };
}

/** The flags every long-running host takes (`deskhand web`, `deskhand acp`): the provider override and the data dir. */
export const HOST_FLAG_OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'openai-api': { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The provider a host was started with (its flags win over Settings), or null when no provider flag was given. */
export function hostProviderOverride(values: { provider?: string | undefined; 'base-url'?: string | undefined; model?: string | undefined; 'openai-api'?: string | undefined }): ProviderConfig | null {
  return values.provider !== undefined || values['base-url'] !== undefined || values.model !== undefined ? providerFromFlags(values) : null;
}
