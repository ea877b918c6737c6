/**
 * The settings file's schema (`settings.json`, read by main's SettingsFile): apart from the rest of the settings area
 * (settings.ts, which re-exports it), so a run that reads its settings builds only these schemas, not the area's views
 * and methods nor the tools area's (docs/performance.md, issue 54 fifth round). Pure.
 */
import { z } from 'zod';
import { parseKeptSite } from '../browser-sites';
import { peerEndpointSettingsSchema } from '../peers';
import { familyNameSchema, policySchema, providerNameSchema, sandboxModeSchema } from './ids';

export const baseURLSchema = z
  .string()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

export const providerSettingsSchema = z.strictObject({
  model: z.string().trim().min(1).max(200),
  baseURL: baseURLSchema.nullable(),
  /** The model a run switches to when the provider answers overloaded (429, 503, 529); absent or null: none. */
  fallbackModel: z.string().trim().min(1).max(200).nullable().optional(),
  /**
   * How much a reasoning model thinks: off, an effort level, or a budget in tokens (Anthropic, at least 1024); absent
   * or null: the provider's default (src/main/runtime/loop/reasoning.ts).
   */
  thinking: z.union([z.enum(['off', 'low', 'medium', 'high', 'max']), z.number().int().min(1024).max(200_000)]).nullable().optional(),
  /**
   * OpenAI only: `chat` (Chat Completions, the default) or `responses` (the Responses API: reasoning summaries shown,
   * reasoning items replayed encrypted); absent or null: chat. Ignored for the other providers.
   */
  openaiApi: z.enum(['chat', 'responses']).nullable().optional(),
});

/** web_search's backend: SearXNG (self-hosted JSON API, no key), Brave Search API or Tavily; keys are vault secrets. */
export const searchBackendSchema = z.enum(['searxng', 'brave', 'tavily']);
export type SearchBackend = z.infer<typeof searchBackendSchema>;
export const searchSettingsSchema = z.strictObject({
  backend: searchBackendSchema,
  /** The endpoint's base URL (required for SearXNG; Brave and Tavily default to their public APIs). */
  url: z.string().url().nullable(),
  /** The vault secret holding the API key (`deskhand secrets set NAME`); never the key itself. */
  keySecret: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/).nullable(),
});
export type SearchSettings = z.infer<typeof searchSettingsSchema>;

export const settingsSchema = z.strictObject({
  activeProvider: providerNameSchema,
  providers: z.strictObject({
    anthropic: providerSettingsSchema,
    openai: providerSettingsSchema,
    'openai-compatible': providerSettingsSchema,
  }),
  defaultPolicy: policySchema,
  /** How a new conversation's commands run, until changed in its header (default: the workspace sandbox). */
  defaultSandbox: sandboxModeSchema.optional(),
  /** Folders offered when starting a conversation (Settings → General). */
  workspaceFolders: z.array(z.string().min(1).max(4096)).max(50).optional(),
  /** The window's colours: follow the OS (`system`, the default) or always light or dark. */
  theme: z.enum(['system', 'light', 'dark']).optional(),
  /** Compact a conversation's context when it reaches this share of the model's window, in percent (default 80). */
  compactAtPercent: z.number().int().min(10).max(95).optional(),
  /** Days the output logs of ended background commands are kept before deletion (default 7; rows stay). */
  logRetentionDays: z.number().int().min(1).max(3650).optional(),
  search: searchSettingsSchema.nullable().optional(),
  /** The change ledger's retention (`deskhand changes prune`; docs/rewind.md): default 1024 MB and 30 days. */
  changeRetention: z.strictObject({ maxMegabytes: z.number().int().min(1).max(1_000_000).optional(), maxDays: z.number().int().min(1).max(3650).optional() }).optional(),
  /** Tool families loaded from a new conversation's first request (browser, computer use…; its header can change them). */
  enableFamilies: z.array(familyNameSchema).max(40).optional(),
  /** The browser family: a visible window or not, an explicit browser path, the person's own browser for adopting a tab. */
  browser: z
    .strictObject({
      headless: z.boolean().optional(),
      executable: z.string().max(4096).nullable().optional(),
      endpoint: z.string().max(200).nullable().optional(),
      /**
       * Sites whose cookies and storage survive `browser_close` (a signed-in profile the person wants kept); every
       * other site's are discarded when a browser session ends.
       */
      keepSignedIn: z
        .array(
          z.string().max(300).refine((s) => parseKeptSite(s).ok, { message: 'not a host name such as example.com' }),
        )
        .max(100)
        .optional(),
    })
    .optional(),
  /** The A2A endpoint inside this host (Settings → Peers; changed only by setPeerEndpoint, never by saveSettings). */
  peerEndpoint: peerEndpointSettingsSchema.optional(),
  /**
   * The person's lifecycle hooks in Claude Code's schema (docs/hooks.md), edited in the file: read by services/hooks,
   * kept as written by every save (never changed by saveSettings).
   */
  hooks: z.record(z.string(), z.unknown()).optional(),
});
export type Settings = z.infer<typeof settingsSchema>;
