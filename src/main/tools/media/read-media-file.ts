/**
 * read_media_file: an image goes to the model as an image part (downscaled to the provider's limits, or a region of
 * it, or at full resolution when that fits); a video as its metadata plus frames sampled with ffmpeg (none of
 * Deskhand's providers takes video in a request: Anthropic's Messages API and OpenAI's Chat Completions take images
 * only, and an OpenAI-compatible server's model may take neither); audio as its metadata. The file is opened through
 * the path guard and ffprobe/ffmpeg read that open file (services/media/av.ts), up to 100 MB.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { imageMarker } from '../../../shared/media-marker';
import { openCheckedFile } from '../../runtime/decision/path-guard';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool, type ToolContext } from '../../runtime/tool';
import {
  FRAME_MAX_EDGE,
  FRAMES_DEFAULT,
  FRAMES_MAX,
  IMAGE_MAX_EDGE,
  MEDIA_MAX_BYTES,
  sniffMedia,
  type AvInfo,
  type AvTools,
  type ImageRegion,
  type MediaService,
} from '../../services/media/index';

const px = z.number().int().min(0).max(100_000);
const params = () => z
  .object({
    path: z.string().describe('The media file (relative to the working directory, absolute, or ~).'),
    region: z
      .object({ x: px.describe('Left edge, in the original pixels.'), y: px.describe('Top edge.'), width: px.min(1).describe('Width.'), height: px.min(1).describe('Height.') })
      .strict()
      .optional()
      .describe('Only this part of the image (or of each video frame), in the original pixels: read a detail at full sharpness.'),
    full_resolution: z.boolean().optional().describe(`Keep every pixel instead of scaling to ${IMAGE_MAX_EDGE} px (refused when the image is then too large to send: use region).`),
    frames: z.number().int().min(1).max(FRAMES_MAX).optional().describe(`Video: how many frames to sample, evenly spread (default ${FRAMES_DEFAULT}, at most ${FRAMES_MAX}).`),
  })
  .strict();

const seconds = (s: number | null) => (s === null ? 'unknown length' : s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`);

function describeAv(info: AvInfo): string {
  const parts = [info.format, seconds(info.durationSec)];
  if (info.video) parts.push(`video ${info.video.codec} ${info.video.width}×${info.video.height}${info.video.fps ? ` at ${info.video.fps} fps` : ''}`);
  if (info.audio) parts.push(`audio ${info.audio.codec}${info.audio.sampleRate ? ` ${info.audio.sampleRate} Hz` : ''}${info.audio.channels ? `, ${info.audio.channels === 1 ? 'mono' : info.audio.channels === 2 ? 'stereo' : `${info.audio.channels} channels`}` : ''}`);
  else if (info.video) parts.push('no sound');
  return parts.join(', ');
}

/** Evenly spread sample times, each in the middle of its share of the video. */
export function frameTimes(duration: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.round(((duration * (i + 0.5)) / count) * 1000) / 1000);
}

const asToolError = (err: unknown): never => {
  if (err instanceof ToolError) throw err;
  if (DeskhandError.isInstance(err)) throw new ToolError(err.message);
  throw err;
};

export const createReadMediaFile = (media: MediaService, av: AvTools | null) =>
  defineTool({
    name: 'read_media_file',
    description:
      `Look at an image (PNG, JPEG, GIF, BMP, WebP) or a video (MP4, WebM, AVI…). An image is given to you as an image, scaled to at ` +
      `most ${IMAGE_MAX_EDGE} px on its long edge; region crops to a part (in the original's pixels) and full_resolution keeps every ` +
      `pixel. A video comes as its length, size and codecs plus frames sampled evenly (frames), as images. Audio files are described ` +
      `(length, codec); analyze_media transcribes speech. Images reach you when the model provider takes images in tool results; ` +
      `otherwise you get the description only. Files up to 100 MB. Use read_pdf for PDFs and read_file for text.`,
    params,
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    effects: (args) => ({ paths: { read: [args.path] } }),
    presentation: { title: 'Look at a media file', icon: 'file', summary: (args) => args.path },
    timeoutMs: 180_000,
    async execute(args, ctx: ToolContext) {
      const abs = resolvePath(args.path, ctx.state.cwd);
      const check = ctx.checkedPaths?.get(abs);
      const untrusted = (output: string) => (check?.untrusted ? { output, untrustedSource: args.path } : { output });
      const { fh, stat: st } = await openCheckedFile(abs, check?.resolved, args.path);
      try {
        if (st.size > MEDIA_MAX_BYTES) throw new ToolError(`${args.path} is ${st.size} bytes; read_media_file opens files up to ${MEDIA_MAX_BYTES} bytes (100 MB). Make a smaller copy (a shorter clip, a scaled image) and read that.`);
        const head = Buffer.alloc(64);
        const { bytesRead } = await fh.read(head, 0, 64, 0);
        const kind = sniffMedia(head.subarray(0, bytesRead));
        if (!kind) throw new ToolError(`${args.path} is not an image, audio or video file Deskhand recognises. Use read_file for text or read_pdf for PDFs.`);
        const region: ImageRegion | undefined = args.region;
        if (kind.kind === 'image') {
          const bytes = await readFile(fh);
          const img = await media.prepareImage(bytes, { ...(region ? { region } : {}), ...(args.full_resolution ? { fullResolution: true } : {}) });
          const crop = region ? `, region ${region.width}×${region.height} at (${region.x}, ${region.y})` : '';
          const sent = region ? `, sent as ${img.width}×${img.height}` : img.width !== img.originalWidth ? `, scaled to ${img.width}×${img.height}` : '';
          return untrusted(`${args.path}: ${kind.mime}, ${img.originalWidth}×${img.originalHeight} pixels${crop}${sent}, ${bytes.length} bytes.\n${imageMarker(img.sha256, img.ext)}`);
        }
        if (!av) {
          return { output: `${args.path}: ${kind.kind} (${kind.container}, ${kind.mime}), ${st.size} bytes. ffmpeg is not available here, so its content cannot be shown to you.` };
        }
        const info = await av.probe(fh.fd, ctx.signal).catch((err: unknown) => {
          if (!DeskhandError.isInstance(err) || err.code !== 'usage') throw err;
          throw new ToolError(`${args.path} (${kind.kind}, ${kind.container}, ${kind.mime}, ${st.size} bytes): ${err.message}`);
        });
        const about = `${args.path}: ${kind.kind === 'audio' || !info.video ? 'audio' : 'video'} (${kind.mime}), ${describeAv(info)}, ${st.size} bytes.`;
        if (!info.video) {
          if (region || args.full_resolution || args.frames) throw new ToolError(`${args.path} has no picture (it is audio): region, full_resolution and frames apply to images and videos.`);
          return untrusted(`${about}\nIts sound cannot be given to you here; analyze_media transcribes speech in it through the companion model (the person approves sending it).`);
        }
        if (region && (region.x + region.width > info.video.width || region.y + region.height > info.video.height)) {
          throw new ToolError(`The region ${region.width}×${region.height} at (${region.x}, ${region.y}) reaches outside the video's ${info.video.width}×${info.video.height} frames.`);
        }
        const duration = info.durationSec ?? 0;
        const count = duration > 0 ? (args.frames ?? FRAMES_DEFAULT) : 1;
        const times = duration > 0 ? frameTimes(duration, count) : [0];
        const edge = args.full_resolution ? IMAGE_MAX_EDGE : FRAME_MAX_EDGE;
        const lines: string[] = [];
        for (const [i, t] of times.entries()) {
          // A region is cut from the frame as ffmpeg gives it, at the video's own size.
          const png = await av.frame(fh.fd, t, region ? null : edge, ctx.signal);
          const img = await media.prepareImage(png, { ...(region ? { region } : {}), maxEdge: edge });
          lines.push(`Frame ${i + 1} of ${times.length}, at ${t.toFixed(1)} s (${img.width}×${img.height}):`, imageMarker(img.sha256, img.ext));
        }
        return untrusted(`${about}\n${times.length} frame${times.length === 1 ? '' : 's'} sampled evenly (no provider Deskhand talks to takes video itself):\n${lines.join('\n')}`);
      } catch (err) {
        return asToolError(err);
      } finally {
        await fh.close();
      }
    },
  });
