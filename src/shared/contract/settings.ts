/**
 * The contract's settings area: providers and keys (never a key's value), local model servers, web search, URL
 * grants and always-allow rules, as Settings and the first-run panel show and save them. Pure.
 */
import { z } from 'zod';
import { GRANT_SCOPES } from '../rules';
import { providerNameSchema } from './ids';
import { baseURLSchema, searchBackendSchema, searchSettingsSchema, settingsSchema } from './settings-schema';
import { noParams as none } from './ids';

export { providerSettingsSchema, searchBackendSchema, searchSettingsSchema, settingsSchema, type SearchBackend, type SearchSettings, type Settings } from './settings-schema';

/** A local model server main found running (Ollama, LM Studio), offered first on the first-run panel. */
export const localModelServerSchema = z.strictObject({
  kind: z.enum(['ollama', 'lmstudio']),
  label: z.string(),
  /** The OpenAI-compatible base URL to save (…/v1). */
  baseURL: z.string(),
  models: z.array(z.string()),
});
export type LocalModelServer = z.infer<typeof localModelServerSchema>;

/** What Settings → Web search shows: the backend, whether its key is in the vault (never the key), and what it means. */
export const webSearchViewSchema = z.strictObject({
  search: searchSettingsSchema.nullable(),
  /** Whether the backend's key secret is saved in the vault; null when the backend needs no key. */
  keySaved: z.boolean().nullable(),
  /** Whether a typed key can be saved here (the OS keyring answers). */
  vault: z.strictObject({ available: z.boolean(), message: z.string().nullable() }),
  /** In plain words: what web_search does now, or how to configure it when it cannot. */
  message: z.string(),
});
export type WebSearchView = z.infer<typeof webSearchViewSchema>;

export const urlGrantIdSchema = z.string().regex(/^urlg_[0-9a-f]{8}$/, 'not a URL grant id');
/** One URL grant as Settings lists it: the pattern and, in words, what it covers. */
export const urlGrantViewSchema = z.strictObject({
  id: urlGrantIdSchema,
  pattern: z.string(),
  createdAt: z.number(),
  /** The pattern names a private destination (loopback, LAN…): covered only at that exact host and port. */
  private: z.boolean(),
  covers: z.string(),
});
export type UrlGrantView = z.infer<typeof urlGrantViewSchema>;

/** An always-allow rule as Settings → Rules and `deskhand rules list` show it. */
export const ruleViewSchema = z.strictObject({
  id: z.string(),
  tool: z.string(),
  pattern: z.string(),
  /** The pattern in words ("`npm test` with any further arguments"). */
  covers: z.string(),
  /** Where it applies; `task`: a conversation rule for one run only. */
  scope: z.enum(GRANT_SCOPES),
  /** When it ends (ms), or null: until revoked (a task's grant ends with its run). */
  expiresAt: z.number().nullable(),
  /** It has ended (its lifetime passed): it matches nothing and calls ask again. */
  expired: z.boolean(),
  /** Where it applies, in words ("in every conversation in /home/me/proj"). */
  where: z.string(),
  /** The conversation of a conversation rule (its title), when it still exists. */
  conversationTitle: z.string().nullable(),
  source: z.string().nullable(),
  matchCount: z.number(),
  lastMatchedAt: z.number().nullable(),
  createdAt: z.number(),
});
export type RuleView = z.infer<typeof ruleViewSchema>;


const keyStatusSchema = z.strictObject({
  /** Only whether a key is there: the key itself never leaves main. */
  set: z.boolean(),
  /** `session`: typed where no OS keyring runs; held in memory until this Deskhand stops, never written anywhere. */
  source: z.enum(['keyring', 'env', 'session']).nullable(),
});

export const settingsViewSchema = z.strictObject({
  settings: settingsSchema,
  keys: z.strictObject({ anthropic: keyStatusSchema, openai: keyStatusSchema, 'openai-compatible': keyStatusSchema }),
  /** `message`: why there is no keyring, in one sentence; `detail`: the error as the keyring library gave it. */
  keyring: z.strictObject({ available: z.boolean(), message: z.string().nullable(), detail: z.string().nullable().optional() }),
  /** Provider flags the host was started with; they win over the saved settings until it restarts without them. */
  override: z.strictObject({ provider: providerNameSchema, model: z.string(), baseURL: z.string().nullable() }).nullable(),
  /** Nothing is set up yet (no saved settings, no key, no provider flags): the UI shows the first-run panel. */
  firstRun: z.boolean(),
});
export type SettingsView = z.infer<typeof settingsViewSchema>;

export const settingsMethods = {
  getSettings: { params: none, result: settingsViewSchema },
  saveSettings: { params: settingsSchema, result: settingsViewSchema },
  setApiKey: { params: z.strictObject({ provider: providerNameSchema, key: z.string().trim().min(1).max(4096) }), result: settingsViewSchema },
  clearApiKey: { params: z.strictObject({ provider: providerNameSchema }), result: settingsViewSchema },
  /** Local model servers running on this machine (Ollama on 11434, LM Studio on 1234), probed with a short timeout. */
  detectLocalModels: { params: none, result: z.strictObject({ servers: z.array(localModelServerSchema) }) },
  /**
   * One tiny real model call with these settings. `key` is a key typed but not saved yet (it goes one way, like
   * setApiKey); without it the saved key is used. Failures come back as `ok: false` with the reason in plain words.
   */
  testProvider: {
    params: z.strictObject({
      provider: providerNameSchema,
      model: z.string().trim().min(1).max(200),
      baseURL: baseURLSchema.nullable(),
      key: z.string().trim().min(1).max(4096).optional(),
    }),
    result: z.strictObject({ ok: z.boolean(), message: z.string(), ms: z.number() }),
  },
  /** web_search's backend as Settings shows it (getWebSearch) and sets it (setWebSearch). */
  getWebSearch: { params: none, result: webSearchViewSchema },
  /**
   * Sets web_search's backend, or none. `key` is an API key typed in Settings: it goes one way, into the vault (OS
   * keyring) under `keySecret`, and is never sent back to any UI.
   */
  setWebSearch: {
    params: z.strictObject({
      backend: z.enum(['none', ...searchBackendSchema.options]),
      url: baseURLSchema.nullable().default(null),
      keySecret: searchSettingsSchema.shape.keySecret.default(null),
      key: z.string().trim().min(1, 'The API key is empty.').max(4096).optional(),
    }),
    result: webSearchViewSchema,
  },
  /** URL grants (also `deskhand grants add-url | list | revoke`): matching requests run unattended. */
  listUrlGrants: { params: none, result: z.strictObject({ grants: z.array(urlGrantViewSchema) }) },
  /** Adds a grant; a pattern that does not parse comes back as a 'usage' error that says why. */
  addUrlGrant: {
    params: z.strictObject({ pattern: z.string().trim().min(1, 'The pattern is empty.').max(2000) }),
    result: z.strictObject({ grant: urlGrantViewSchema, grants: z.array(urlGrantViewSchema) }),
  },
  revokeUrlGrant: { params: z.strictObject({ id: urlGrantIdSchema }), result: z.strictObject({ grants: z.array(urlGrantViewSchema) }) },
  /** Always-allow rules (also `deskhand rules list | rm ID`), with where they apply and how often they matched. */
  listRules: { params: none, result: z.strictObject({ rules: z.array(ruleViewSchema) }) },
  revokeRule: { params: z.strictObject({ id: z.string().regex(/^rule_[\w-]{1,80}$/, 'Not a rule id.') }), result: z.strictObject({ rules: z.array(ruleViewSchema) }) },
};
