/** What the CLI's commands share: exit codes, the usage error, and the flags several commands parse the same way. */
import { isPolicy, type Policy } from '../../../shared/tools';
import { isSandboxMode, type SandboxMode } from '../../../shared/sandbox';
import { errorMessage } from '../../../shared/errors';
import { DEFAULT_MODELS, KEY_ENV, isProviderName, type ProviderConfig, type ProviderName } from '../../services/providers/config';
import { parseFamilies } from '../../runtime/tool-families';

export const EXIT = { finished: 0, failed: 1, usage: 2, parked: 3 } as const;

export class UsageError extends Error {}

export const PROVIDER_OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function parseSandbox(value: string | undefined): SandboxMode | undefined {
  if (value === undefined) return undefined;
  if (!isSandboxMode(value)) throw new UsageError(`--sandbox must be one of workspace-write, read-only, off (got "${value}").`);
  return value;
}

export function parsePolicy(value: string | undefined): Policy | undefined {
  if (value === undefined) return undefined;
  if (!isPolicy(value)) throw new UsageError(`--policy must be one of none, read-only, low-risk, high-risk (got "${value}").`);
  return value;
}

export function providerFromFlags(
  values: { provider?: string | undefined; 'base-url'?: string | undefined; model?: string | undefined },
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
  return { provider, model: values.model ?? run?.model ?? DEFAULT_MODELS[provider], baseURL, apiKey: apiKey ?? null };
}

/** `--enable browser,computer`: tool families loaded from the conversation's first request (tool-families.ts). */
export function enableFlag(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    return parseFamilies(value);
  } catch (err) {
    throw new UsageError(`--enable: ${errorMessage(err)}`);
  }
}

export function isParseArgsError(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && String((err as { code: string }).code).startsWith('ERR_PARSE_ARGS');
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
