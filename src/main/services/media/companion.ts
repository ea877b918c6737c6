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
import { imageChoices, speechChoices, visionModels, type AnalyzeInput, type Companion, type CompanionUsage, type CompanionConfig } from './index';

const schema = z.strictObject({
  provider: z.enum(['anthropic', 'openai', 'openai-compatible']),
  model: z.string().min(1).max(200),
  imageModel: z.string().min(1).max(200).nullable().default(null),
  baseURL: z.string().url().nullable().default(null),
  transcriptionModel: z.string().min(1).max(200).nullable().default(null),
  speechModel: z.string().min(1).max(200).nullable().default(null),
  models: z.array(z.string().min(1).max(200)).max(20).default([]),
  imageModels: z.array(z.string().min(1).max(200)).max(20).default([]),
  speechModels: z.array(z.string().min(1).max(200)).max(20).default([]),
});

/** The model a call chose, checked against the ones the person configured (`what` names the kind in the message). */
function pick(allowed: string[], chosen: string | undefined, what: string): string {
  const model = chosen ?? allowed[0];
  if (!model) throw new DeskhandError('unsupported', `The companion has no ${what} model.`);
  if (!allowed.includes(model)) throw new DeskhandError('usage', `${model} is not one of the ${what} models the person set up for the companion (${allowed.join(', ')}); choose one of those, or leave model out.`);
  return model;
}

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

  async analyze(input: AnalyzeInput, signal?: AbortSignal): Promise<{ text: string; model: string; usage: CompanionUsage }> {
    const c = await this.need();
    const allowed = visionModels(c);
    const chosen = input.model ?? c.model;
    if (!allowed.includes(chosen)) throw new DeskhandError('usage', `${chosen} is not one of the companion models the person set up (${allowed.join(', ')}); choose one of those, or leave model out.`);
    // The AI SDK loads with the first call that needs it (a command that only builds the tools never does).
    const [{ createModel }, { generateText }] = await Promise.all([import('../providers/providers'), import('ai')]);
    const model = createModel({ provider: c.provider, model: chosen, baseURL: c.baseURL, apiKey: c.apiKey });
    const res = await generateText({
      model,
      maxRetries: 1,
      ...(signal ? { abortSignal: signal } : {}),
      messages: [{ role: 'user', content: [{ type: 'text', text: input.prompt }, ...input.images.map((im) => ({ type: 'image' as const, image: im.bytes, mediaType: im.mime }))] }],
    });
    const u = res.totalUsage;
    const usage: CompanionUsage = {
      provider: c.provider,
      model: chosen,
      inputTokens: u.inputTokens ?? 0,
      outputTokens: u.outputTokens ?? 0,
      cacheReadTokens: u.inputTokenDetails?.cacheReadTokens ?? 0,
      cacheWriteTokens: u.inputTokenDetails?.cacheWriteTokens ?? 0,
      reasoningTokens: u.outputTokenDetails?.reasoningTokens ?? 0,
    };
    return { text: res.text, model: chosen, usage };
  }

  /** The OpenAI-style provider for the audio APIs (Anthropic has none). */
  private async audioProvider(c: CompanionConfig & { apiKey: string | null }, what: string) {
    if (c.provider === 'anthropic') throw new DeskhandError('unsupported', `Anthropic has no ${what} API; set an OpenAI or OpenAI-compatible companion (with --${what === 'speech' ? 'speech' : 'transcription'}-model) for this.`);
    const { createOpenAI } = await import('@ai-sdk/openai');
    // OpenAI-compatible servers (LocalAI, vLLM, speaches…) speak OpenAI's /audio routes: the OpenAI provider at their address.
    return createOpenAI({ apiKey: c.apiKey ?? '', ...(c.baseURL ? { baseURL: c.baseURL } : {}) });
  }

  async transcribe(audio: { bytes: Buffer; mime: string }, signal?: AbortSignal): Promise<{ text: string; model: string; language: string | null }> {
    const c = await this.need();
    if (!c.transcriptionModel) throw new DeskhandError('unsupported', 'The companion has no transcription model, so sound cannot be analysed. The person adds one with `deskhand media companion set … --transcription-model NAME` (e.g. whisper-1).');
    const provider = await this.audioProvider(c, 'transcription');
    const { experimental_transcribe: transcribe } = await import('ai');
    const res = await transcribe({ model: provider.transcription(c.transcriptionModel), audio: new Uint8Array(audio.bytes), maxRetries: 1, ...(signal ? { abortSignal: signal } : {}) });
    return { text: res.text, model: c.transcriptionModel, language: res.language ?? null };
  }

  async speak(text: string, opts: { voice?: string; format: 'mp3' | 'wav'; model?: string }, signal?: AbortSignal): Promise<{ bytes: Buffer; mime: string; model: string }> {
    const c = await this.need();
    if (!speechChoices(c).length) throw new DeskhandError('unsupported', 'The companion has no speech model. The person adds one with `deskhand media companion set … --speech-model NAME` (e.g. gpt-4o-mini-tts).');
    const chosen = pick(speechChoices(c), opts.model, 'speech');
    const provider = await this.audioProvider(c, 'speech');
    const { experimental_generateSpeech: generateSpeech } = await import('ai');
    const res = await generateSpeech({
      model: provider.speech(chosen),
      text,
      outputFormat: opts.format,
      // OpenAI's speech API needs a voice: alloy unless the call names one.
      voice: opts.voice ?? 'alloy',
      maxRetries: 1,
      ...(signal ? { abortSignal: signal } : {}),
    });
    return { bytes: Buffer.from(res.audio.uint8Array), mime: res.audio.mediaType ?? (opts.format === 'wav' ? 'audio/wav' : 'audio/mpeg'), model: chosen };
  }

  async generateImage(prompt: string, opts: { size: string | null; model?: string }, signal?: AbortSignal): Promise<{ bytes: Buffer; mime: string; model: string }> {
    const c = await this.need();
    const size = opts.size;
    if (!imageChoices(c).length) throw new DeskhandError('unsupported', 'The companion has no image model. The person adds one with `deskhand media companion set … --image-model NAME`.');
    if (c.provider === 'anthropic') throw new DeskhandError('unsupported', 'Anthropic has no image generation; set an OpenAI or OpenAI-compatible companion for generate_media.');
    const chosen = pick(imageChoices(c), opts.model, 'image');
    const baseURL = c.baseURL ?? undefined;
    const [{ createOpenAI }, { createOpenAICompatible }, { generateImage }] = await Promise.all([import('@ai-sdk/openai'), import('@ai-sdk/openai-compatible'), import('ai')]);
    const model =
      c.provider === 'openai'
        ? createOpenAI({ apiKey: c.apiKey ?? '', baseURL }).image(chosen)
        : createOpenAICompatible({ name: 'companion', baseURL: baseURL ?? '', apiKey: c.apiKey ?? undefined }).imageModel(chosen);
    const res = await generateImage({ model, prompt, n: 1, maxRetries: 1, ...(size ? { size: size as `${number}x${number}` } : {}), ...(signal ? { abortSignal: signal } : {}) });
    const img = res.images[0];
    if (!img) throw new DeskhandError('internal', 'The image model returned no image.');
    return { bytes: Buffer.from(img.uint8Array), mime: img.mediaType ?? 'image/png', model: chosen };
  }
}
