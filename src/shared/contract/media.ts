/**
 * The contract's part for the browser and media families: a browser_screenshot's PNG for its tool card, a
 * generate_media call's image or speech for its card, and the
 * companion model (analyze_media, generate_media) chosen in Settings. Kept beside contract.ts like contract-memory.ts.
 */
import { z } from 'zod';

export const companionProviderSchema = z.enum(['anthropic', 'openai', 'openai-compatible']);

export const companionConfigSchema = z.strictObject({
  provider: companionProviderSchema,
  /** A model with vision, for analyze_media. */
  model: z.string().trim().min(1, 'Name the vision model.').max(200),
  /** An image model (OpenAI-style /images/generations) for generate_media; null: none. */
  imageModel: z.string().trim().min(1).max(200).nullable(),
  baseURL: z.string().trim().url('The base URL is not a URL.').max(2000).nullable(),
  /** Speech to text (analyze_media on audio), text to speech (generate_media audio), more vision models per call. */
  transcriptionModel: z.string().trim().min(1).max(200).nullable().optional(),
  speechModel: z.string().trim().min(1).max(200).nullable().optional(),
  models: z.array(z.string().trim().min(1).max(200)).max(20).optional(),
  /** More image and speech models a generate_media call may pick with its `model` argument. */
  imageModels: z.array(z.string().trim().min(1).max(200)).max(20).optional(),
  speechModels: z.array(z.string().trim().min(1).max(200)).max(20).optional(),
});
export type CompanionConfigView = z.infer<typeof companionConfigSchema>;

const companionView = z.strictObject({
  companion: companionConfigSchema.nullable(),
  /** Where the companion's API key comes from, in one line (the provider's key in Settings, or its variable). */
  key: z.string(),
});

export const mediaMethods = {
  /**
   * The PNG a browser_screenshot call of this conversation saved, as a data URL for its tool card. Main reads only the
   * path that call printed, and only inside the data folder's `browser/screenshots/<conversation>/`.
   */
  readBrowserScreenshot: {
    params: z.strictObject({
      conversationId: z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id'),
      runId: z.string().regex(/^run_[A-Za-z0-9_-]{1,80}$/, 'not a run id'),
      callId: z.string().min(1).max(200),
    }),
    result: z.strictObject({ dataUrl: z.string(), path: z.string() }),
  },
  /**
   * What a generate_media call of this conversation made (an image or speech), as a data URL for its tool card: main
   * reads only the copy that call stored in the data folder's media store (named by its sha256 on the call's own result,
   * checked against the bytes), never a path the renderer names.
   */
  readMediaArtifact: {
    params: z.strictObject({
      conversationId: z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id'),
      runId: z.string().regex(/^run_[A-Za-z0-9_-]{1,80}$/, 'not a run id'),
      callId: z.string().min(1).max(200),
    }),
    result: z.strictObject({
      kind: z.enum(['image', 'audio']),
      mime: z.string(),
      dataUrl: z.string(),
      bytes: z.number().int().nonnegative(),
      sha256: z.string(),
      /** The model that made it and the file written where the path guard checked. */
      model: z.string(),
      path: z.string(),
    }),
  },
  /** The companion model of analyze_media and generate_media (also `deskhand media companion show`). */
  getCompanion: { params: z.strictObject({}), result: companionView },
  /** Sets it (null clears it); the same file `deskhand media companion set|clear` writes. */
  setCompanion: { params: z.strictObject({ companion: companionConfigSchema.nullable() }), result: companionView },
} as const;

export const MEDIA_METHOD_NAMES = ['readBrowserScreenshot', 'readMediaArtifact', 'getCompanion', 'setCompanion'] as const;
