/**
 * The companion model: a vision model that answers questions about an image (analyze_media) and an image model that
 * makes images (generate_media), through the AI SDK providers. Configured in `<dataDir>/companion.json` (Settings →
 * Companion model, or `deskhand media companion set`); the API key is the provider's key saved in Settings → Providers
 * (the OS keyring, through `keyFor`), else its environment variable (ANTHROPIC_API_KEY / OPENAI_API_KEY;
 * OPENAI_COMPATIBLE_API_KEY for openai-compatible).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import { KEY_ENV } from '../providers/config';
import type { Companion, CompanionConfig } from './index';

const schema = z.strictObject({
  provider: z.enum(['anthropic', 'openai', 'openai-compatible']),
  model: z.string().min(1).max(200),
  imageModel: z.string().min(1).max(200).nullable().default(null),
  baseURL: z.string().url().nullable().default(null),
});

export class CompanionModel implements Companion {
  private readonly path: string;
  constructor(
    dataDir: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** The provider's key saved in Settings (the keyring); null or a failure falls back to the environment. */
    private readonly keyFor?: (provider: CompanionConfig['provider']) => Promise<string | null>,
  ) {
    this.path = join(dataDir, 'companion.json');
  }

  config(): CompanionConfig | null {
    if (!existsSync(this.path)) return null;
    const raw = JSON.parse(readFileSync(this.path, 'utf8')) as unknown;
    if (raw === null) return null;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new DeskhandError('usage', `${this.path} does not parse (${parsed.error.issues[0]?.message}); set it again with \`deskhand media companion set\`.`);
    return parsed.data;
  }

  save(config: CompanionConfig | null): void {
    if (!config) {
      if (existsSync(this.path)) writeFileSync(this.path, 'null');
      return;
    }
    const valid = schema.parse(config);
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(`${this.path}.tmp`, JSON.stringify(valid, null, 2) + '\n', { mode: 0o600 });
    renameSync(`${this.path}.tmp`, this.path);
  }

  private async need(): Promise<CompanionConfig & { apiKey: string | null }> {
    let c: CompanionConfig | null = null;
    try {
      c = this.config();
    } catch {
      c = null;
    }
    if (!c) throw new DeskhandError('unsupported', 'No companion model is set up. The person chooses one in Settings → Companion model (or `deskhand media companion set --provider … --model …`).');
    const saved = this.keyFor && c.provider !== 'openai-compatible' ? await this.keyFor(c.provider).catch(() => null) : null;
    const keyVar = KEY_ENV[c.provider];
    return { ...c, apiKey: saved || (keyVar ? (this.env[keyVar] ?? null) : (this.env.OPENAI_COMPATIBLE_API_KEY ?? null)) };
  }

  async analyze(image: { bytes: Buffer; mime: string }, question: string, signal?: AbortSignal): Promise<string> {
    const c = await this.need();
    // The AI SDK loads with the first call that needs it (a command that only builds the tools never does).
    const [{ createModel }, { generateText }] = await Promise.all([import('../providers/providers'), import('ai')]);
    const model = createModel({ provider: c.provider, model: c.model, baseURL: c.baseURL, apiKey: c.apiKey });
    const res = await generateText({
      model,
      maxRetries: 1,
      ...(signal ? { abortSignal: signal } : {}),
      messages: [{ role: 'user', content: [{ type: 'text', text: question }, { type: 'image', image: image.bytes, mediaType: image.mime }] }],
    });
    return res.text;
  }

  async generateImage(prompt: string, size: string | null, signal?: AbortSignal): Promise<{ bytes: Buffer; mime: string }> {
    const c = await this.need();
    if (!c.imageModel) throw new DeskhandError('unsupported', 'The companion has no image model. The person adds one with `deskhand media companion set … --image-model NAME`.');
    if (c.provider === 'anthropic') throw new DeskhandError('unsupported', 'Anthropic has no image generation; set an OpenAI or OpenAI-compatible companion for generate_media.');
    const baseURL = c.baseURL ?? undefined;
    const [{ createOpenAI }, { createOpenAICompatible }, { generateImage }] = await Promise.all([import('@ai-sdk/openai'), import('@ai-sdk/openai-compatible'), import('ai')]);
    const model =
      c.provider === 'openai'
        ? createOpenAI({ apiKey: c.apiKey ?? '', baseURL }).image(c.imageModel)
        : createOpenAICompatible({ name: 'companion', baseURL: baseURL ?? '', apiKey: c.apiKey ?? undefined }).imageModel(c.imageModel);
    const res = await generateImage({ model, prompt, n: 1, maxRetries: 1, ...(size ? { size: size as `${number}x${number}` } : {}), ...(signal ? { abortSignal: signal } : {}) });
    const img = res.images[0];
    if (!img) throw new DeskhandError('internal', 'The image model returned no image.');
    return { bytes: Buffer.from(img.uint8Array), mime: img.mediaType ?? 'image/png' };
  }
}
