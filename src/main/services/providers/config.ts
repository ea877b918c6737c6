/**
 * The providers by name: their default models and key variables, and a provider's configuration. Imports nothing, so
 * a command that only names a provider (the CLI's flags, settings) does not load the AI SDK (providers.ts does).
 */
export const PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ProviderConfig {
  provider: ProviderName;
  model: string;
  baseURL?: string | null;
  apiKey?: string | null;
  /** Used for the rest of a run when the provider answers overloaded (429, 503, 529); null or absent: none. */
  fallbackModel?: string | null;
  /**
   * How much a reasoning model thinks (runtime/loop/reasoning.ts): off, an effort level, or a budget in tokens (Anthropic);
   * null or absent: the provider's default.
   */
  thinking?: 'off' | 'low' | 'medium' | 'high' | 'max' | number | null;
  /**
   * OpenAI only: the wire. `chat` (Chat Completions, the default: what every OpenAI-compatible server also speaks) or
   * `responses` (the Responses API: reasoning summaries shown, reasoning items replayed encrypted across tool calls).
   */
  openaiApi?: OpenAIApi | null;
}

export const OPENAI_APIS = ['chat', 'responses'] as const;
export type OpenAIApi = (typeof OPENAI_APIS)[number];

export function isOpenAIApi(value: unknown): value is OpenAIApi {
  return typeof value === 'string' && (OPENAI_APIS as readonly string[]).includes(value);
}

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-5',
  'openai-compatible': 'llama3.1',
};

export const KEY_ENV: Record<ProviderName, string | null> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': null,
};

export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}
