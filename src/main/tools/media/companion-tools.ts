/**
 * analyze_media and generate_media through the companion model the person set up. analyze_media sends an image
 * (downscaled), a video's sampled frames, or a recording's sound (to the transcription model, then the transcript to
 * the vision model) with the question to that provider; generate_media sends a prompt (an image) or a text (speech)
 * and writes the result where the path guard checked. Both send material off the machine to a third party, so both
 * are high-risk egress with an approval pair (Spec I): the proposal names the file (its size) or the prompt, and the
 * provider, host and models it would go to; nothing is read for sending, and nothing is sent, before the call is
 * approved (by a person, or by the high-risk policy).
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { openCheckedFile } from '../../runtime/decision/path-guard';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool, type Proposal, type ToolContext } from '../../runtime/tool';
import {
  artifactLine,
  FRAME_MAX_EDGE,
  FRAMES_DEFAULT,
  MEDIA_MAX_BYTES,
  imageChoices,
  sniffMedia,
  speechChoices,
  visionModels,
  type AvTools,
  type Companion,
  type CompanionConfig,
  type CompanionUsage,
  type MediaService,
} from '../../services/media/index';
import { frameTimes } from './read-media-file';

type ModelSlot = 'model' | 'imageModel' | 'transcriptionModel' | 'speechModel';

/** Where a companion call goes, in words a person can check: provider, host and model. */
function destination(c: CompanionConfig | null, model: ModelSlot, chosen?: string): string {
  if (!c) return 'no companion model is set up (the call will fail without sending anything)';
  const fallback = c.provider === 'anthropic' ? 'api.anthropic.com' : c.provider === 'openai' ? 'api.openai.com' : 'its configured address';
  let host = fallback;
  if (c.baseURL) {
    try {
      host = new URL(c.baseURL).host;
    } catch {
      host = c.baseURL;
    }
  }
  return `${c.provider} at ${host}, model ${chosen ?? c[model] ?? '(none set)'}`;
}

async function describeFile(path: string, ctx: ToolContext): Promise<string> {
  const abs = resolvePath(path, ctx.state.cwd);
  try {
    const st = await stat(abs);
    return `${abs} (${st.size} bytes)`;
  } catch {
    return `${abs} (not readable now)`;
  }
}

export function analyzeProposal(companion: Companion, args: { path: string; question: string; model?: string | undefined }, file: string): Proposal {
  const c = companion.config();
  const to = destination(c, 'model', args.model);
  const sound = c?.transcriptionModel ? destination(c, 'transcriptionModel') : null;
  return {
    description: `Send ${file} to ${to}`,
    preview: [
      `File: ${file} (an image downscaled to at most 1568 px; a video as ${FRAMES_DEFAULT} frames; a recording's sound for transcription)`,
      `Sent to: ${to}`,
      ...(sound ? [`Sound sent to: ${sound} (the transcript then goes to the model above)`] : []),
      `Question: ${args.question}`,
    ].join('\n'),
  };
}

/** The models a generate_media call of this kind may choose, with the default first (none: no companion, or none of that kind). */
const generateChoices = (c: CompanionConfig | null, kind: 'image' | 'audio'): string[] => (c ? (kind === 'audio' ? speechChoices(c) : imageChoices(c)) : []);

/** A `model` the person did not configure for this kind is refused, naming the ones they did (before asking, and again before sending). */
function checkGenerateModel(c: CompanionConfig | null, args: { kind: 'image' | 'audio'; model?: string | undefined }): void {
  if (!c || !args.model) return;
  const choices = generateChoices(c, args.kind);
  if (choices.includes(args.model)) return;
  const what = args.kind === 'audio' ? 'speech' : 'image';
  throw new ToolError(
    choices.length
      ? `${args.model} is not one of the ${what} models the person set up for the companion (${choices.join(', ')}); choose one of those, or leave model out.`
      : `The companion has no ${what} model, so ${args.model} cannot be used; the person adds ${what} models in Settings → Companion model.`,
  );
}

export function generateProposal(
  companion: Companion,
  args: { prompt: string; path: string; size?: string | undefined; kind: 'image' | 'audio'; voice?: string | undefined; model?: string | undefined },
  ctx: ToolContext,
): Proposal {
  const c = companion.config();
  checkGenerateModel(c, args);
  const to = destination(c, args.kind === 'audio' ? 'speechModel' : 'imageModel', args.model ?? generateChoices(c, args.kind)[0]);
  const where = resolvePath(args.path, ctx.state.cwd);
  const what = args.kind === 'audio' ? 'a text to speak' : 'an image prompt';
  return {
    description: `Send ${what} to ${to}; write ${where}`,
    preview: [`Sent to: ${to}`, `${args.kind === 'audio' ? 'Text' : 'Prompt'}: ${args.prompt}`, ...(args.size ? [`Size: ${args.size}`] : []), ...(args.voice ? [`Voice: ${args.voice}`] : []), `Writes: ${where}`].join('\n'),
  };
}

/** Counts the companion's call in the usage ledger against this call's turn (cause: media). */
function metered<T extends { usage?: CompanionUsage }>(ctx: ToolContext, answer: T): T {
  if (answer.usage) ctx.meter?.('media', answer.usage);
  return answer;
}

const asToolError = (err: unknown): never => {
  if (err instanceof ToolError) throw err;
  if (DeskhandError.isInstance(err)) throw new ToolError(err.message);
  throw new ToolError(`The companion model failed: ${(err as Error).message}`);
};

/** The file the path guard checked, opened; `use` gets its handle (ffmpeg reads the open file). */
async function withChecked<T>(path: string, ctx: ToolContext, use: (fh: import('node:fs/promises').FileHandle) => Promise<T>): Promise<T> {
  const abs = resolvePath(path, ctx.state.cwd);
  const { fh, stat } = await openCheckedFile(abs, ctx.checkedPaths?.get(abs)?.resolved, path);
  try {
    if (stat.size > MEDIA_MAX_BYTES) throw new ToolError(`${path} is larger than ${MEDIA_MAX_BYTES} bytes (100 MB).`);
    return await use(fh);
  } finally {
    await fh.close();
  }
}

export const createAnalyzeMedia = (companion: Companion, media: MediaService, dataDir: string, av: AvTools | null) =>
  defineTool({
    name: 'analyze_media',
    description:
      'Ask the companion model (models the person set up) a question about an image, a video or a recording: what it shows or ' +
      'says, text in it, a chart\'s values. An image goes scaled to at most 1568 px; a video as frames sampled evenly; a ' +
      'recording\'s sound is transcribed by the transcription model and the transcript goes with the question. model picks one ' +
      'of the configured vision models for this call. Everything is sent to that model\'s provider.',
    params: () => z
      .object({
        path: z.string().describe('The image, video or audio file.'),
        question: z.string().min(1).max(4000).describe('What to find out about it.'),
        model: z.string().min(1).max(200).optional().describe('One of the vision models the person configured for the companion (default: its main one).'),
      })
      .strict(),
    risk: 'high-risk',
    disclosure: 'internal',
    effects: (args) => ({ paths: { read: [args.path] }, egress: true, network: true }),
    pair: {
      executeName: 'execute_analyze_media',
      propose: async (args, ctx) => analyzeProposal(companion, args, await describeFile(args.path, ctx)),
    },
    presentation: { title: 'Ask about a media file', icon: 'file', summary: (args) => `${args.path}: ${args.question.slice(0, 60)}` },
    timeoutMs: 300_000,
    async execute(args, ctx) {
      const c = companion.config();
      if (c && args.model && !visionModels(c).includes(args.model)) {
        throw new ToolError(`${args.model} is not one of the companion models the person set up (${visionModels(c).join(', ')}); choose one of those, or leave model out.`);
      }
      const model = args.model ? { model: args.model } : {};
      try {
        return await withChecked(args.path, ctx, async (fh) => {
          const head = Buffer.alloc(64);
          const { bytesRead } = await fh.read(head, 0, 64, 0);
          const kind = sniffMedia(head.subarray(0, bytesRead));
          if (!kind) throw new ToolError(`${args.path} is not an image, video or audio file Deskhand recognises.`);
          const untrusted = `analyze_media ${args.path}`;
          if (kind.kind === 'image') {
            const img = await media.prepareImage(await readFile(fh));
            const prepared = await readFile(`${dataDir}/media/${img.sha256}.${img.ext}`);
            const answer = metered(ctx, await companion.analyze({ images: [{ bytes: prepared, mime: img.ext === 'png' ? 'image/png' : 'image/jpeg' }], prompt: args.question, ...model }, ctx.signal));
            return { output: `${answer.model} on ${args.path}:\n${answer.text}`, untrustedSource: untrusted };
          }
          if (!av) throw new ToolError('ffmpeg is not available here, so audio and video cannot be analysed.');
          const info = await av.probe(fh.fd, ctx.signal);
          if (info.video && kind.kind === 'video') {
            const duration = info.durationSec ?? 0;
            const times = duration > 0 ? frameTimes(duration, FRAMES_DEFAULT) : [0];
            const images: { bytes: Buffer; mime: string }[] = [];
            for (const t of times) {
              const img = await media.prepareImage(await av.frame(fh.fd, t, FRAME_MAX_EDGE, ctx.signal), { maxEdge: FRAME_MAX_EDGE });
              images.push({ bytes: await readFile(`${dataDir}/media/${img.sha256}.${img.ext}`), mime: img.ext === 'png' ? 'image/png' : 'image/jpeg' });
            }
            const prompt = `These are ${images.length} frames of a ${duration.toFixed(1)} s video, in order, taken at ${times.map((t) => `${t.toFixed(1)} s`).join(', ')}.\n\n${args.question}`;
            const answer = metered(ctx, await companion.analyze({ images, prompt, ...model }, ctx.signal));
            return { output: `${answer.model} on ${images.length} frames of ${args.path}:\n${answer.text}`, untrustedSource: untrusted };
          }
          if (!info.audio) throw new ToolError(`${args.path} has neither a picture nor sound that ffmpeg can read.`);
          const sound = await av.audioOf(fh.fd, ctx.signal);
          const heard = await companion.transcribe({ bytes: sound, mime: 'audio/wav' }, ctx.signal);
          const prompt = `Below is the transcript of a recording (${info.durationSec !== null ? `${info.durationSec.toFixed(1)} s` : 'length unknown'}${heard.language ? `, ${heard.language}` : ''}), made by ${heard.model}. Answer from it.\n\nQuestion: ${args.question}\n\nTranscript:\n${heard.text}`;
          const answer = metered(ctx, await companion.analyze({ images: [], prompt, ...model }, ctx.signal));
          return { output: `Transcript (${heard.model}) of ${args.path}:\n${heard.text}\n\n${answer.model} on it:\n${answer.text}`, untrustedSource: untrusted };
        });
      } catch (err) {
        return asToolError(err);
      }
    },
  });

const AUDIO_OUT: Record<string, 'mp3' | 'wav'> = { '.mp3': 'mp3', '.wav': 'wav' };

/**
 * The result's text: what was written and by which model, and last the stored copy the conversation shows (one line of
 * JSON, services/media/index.ts `artifactOf`).
 */
async function written(media: MediaService, abs: string, shown: string, bytes: Buffer, ext: 'png' | 'mp3' | 'wav', mime: string, model: string, what: string): Promise<string> {
  const kept = await media.storeArtifact(bytes, ext);
  return `Wrote ${shown}: ${mime}, ${bytes.length} bytes${what}, made by ${model}. The conversation shows it to the person.\n${artifactLine({ ...kept, mime, model, path: abs })}`;
}

export const createGenerateMedia = (companion: Companion, media: MediaService, write: (abs: string, bytes: Uint8Array, ctx: ToolContext) => Promise<void>) =>
  defineTool({
    name: 'generate_media',
    description:
      'Make an image from a prompt (kind image, saved as .png) with the companion image model, or speech from a text (kind audio, ' +
      'saved as .mp3 or .wav) with the companion speech model, and save it to path. The prompt or text is sent to that model\'s ' +
      'provider. model picks one of the configured image or speech models for this call. The result is shown in the conversation. ' +
      'For charts and diagrams with exact numbers prefer an SVG or HTML composition.',
    params: () => z
      .object({
        prompt: z.string().min(1).max(4000).describe('image: what the image should show; audio: the text to speak.'),
        kind: z.enum(['image', 'audio']).describe('image (a picture) or audio (speech).'),
        size: z.string().regex(/^\d{2,4}x\d{2,4}$/).optional().describe('image: WIDTHxHEIGHT, e.g. 1024x1024 (the model may support only some sizes).'),
        voice: z.string().min(1).max(60).optional().describe('audio: the voice (the provider\'s names, e.g. alloy, nova).'),
        path: z.string().min(1).describe('Where to save it: .png for an image, .mp3 or .wav for audio.'),
        model: z.string().min(1).max(200).optional().describe('One of the image models (kind image) or speech models (kind audio) the person configured for the companion (default: its main one).'),
      })
      .strict(),
    risk: 'high-risk',
    disclosure: 'internal',
    effects: (args) => ({ paths: { write: [args.path] }, egress: true, network: true }),
    pair: {
      executeName: 'execute_generate_media',
      propose: async (args, ctx) => generateProposal(companion, args, ctx),
    },
    presentation: { title: 'Make an image or speech', icon: 'file', summary: (args) => `${args.path}: ${args.prompt.slice(0, 60)}` },
    timeoutMs: 180_000,
    async execute(args, ctx) {
      checkGenerateModel(companion.config(), args);
      const model = args.model ? { model: args.model } : {};
      if (args.kind === 'audio') {
        const format = AUDIO_OUT[/\.[^.]+$/.exec(args.path.toLowerCase())?.[0] ?? ''];
        if (!format) throw new ToolError(`${args.path} does not end in .mp3 or .wav; name the audio file to write.`);
        if (args.size) throw new ToolError('size is for images; leave it out for audio.');
        try {
          const speech = await companion.speak(args.prompt, { format, ...(args.voice ? { voice: args.voice } : {}), ...model }, ctx.signal);
          if (sniffMedia(speech.bytes)?.kind !== 'audio') throw new ToolError('The speech model returned something that is not audio; nothing was written.');
          const abs = resolvePath(args.path, ctx.state.cwd);
          await write(abs, speech.bytes, ctx);
          return { output: await written(media, abs, args.path, speech.bytes, format, speech.mime, speech.model, ' of speech') };
        } catch (err) {
          return asToolError(err);
        }
      }
      if (!/\.png$/i.test(args.path)) throw new ToolError(`${args.path} does not end in .png; name the PNG file to write.`);
      if (args.voice) throw new ToolError('voice is for audio; leave it out for images.');
      try {
        const img = await companion.generateImage(args.prompt, { size: args.size ?? null, ...model }, ctx.signal);
        if (sniffMedia(img.bytes)?.kind !== 'image') throw new ToolError('The image model returned something that is not an image; nothing was written.');
        const abs = resolvePath(args.path, ctx.state.cwd);
        await write(abs, img.bytes, ctx);
        return { output: await written(media, abs, args.path, img.bytes, 'png', img.mime, img.model, '') };
      } catch (err) {
        return asToolError(err);
      }
    },
  });
