/**
 * The media family: read_media_file — an image goes to the model as an image part (downscaled to the provider's
 * limits) where the provider's tool results carry images; audio and video are described by their container and size.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { imageMarker } from '../../../shared/media-marker';
import { openVerified } from '../../runtime/path-guard';
import { resolvePath } from '../../runtime/resolve-path';
import { defineTool, type ToolDefinition } from '../../runtime/tool';
import { MEDIA_MAX_BYTES, sniffMedia, type Companion, type MediaService } from '../../services/media/index';
import { createAnalyzeMedia, createGenerateMedia } from './companion-tools';
import type { ToolContext } from '../../runtime/tool';
import type { PresenceService } from '../../services/presence/index';
import { createWhoIsHere } from './who-is-here';

export const createReadMediaFile = (media: MediaService) =>
  defineTool({
    name: 'read_media_file',
    description:
      'Look at an image file (PNG, JPEG, GIF, BMP, WebP): it is given to you as an image, scaled down to at most 1568 pixels on ' +
      'its long edge, when the model provider accepts images in tool results; otherwise you get its size only. Audio and video ' +
      'files are described (container, size). Use read_pdf for PDFs and read_file for text.',
    params: z.object({ path: z.string().describe('The media file (relative to the working directory, absolute, or ~).') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    effects: (args) => ({ paths: { read: [args.path] } }),
    presentation: { title: 'Look at a media file', icon: 'file', summary: (args) => args.path },
    async execute(args, ctx) {
      const abs = resolvePath(args.path, ctx.state.cwd);
      const check = ctx.checkedPaths?.get(abs);
      let bytes: Buffer;
      try {
        const { fh } = await openVerified(abs, check?.resolved);
        try {
          const st = await fh.stat();
          if (!st.isFile()) throw new ToolError(`${args.path} is not a file.`);
          if (st.size > MEDIA_MAX_BYTES) throw new ToolError(`${args.path} is ${st.size} bytes; read_media_file opens files up to ${MEDIA_MAX_BYTES} bytes.`);
          bytes = await readFile(fh);
        } finally {
          await fh.close();
        }
      } catch (err) {
        if (err instanceof ToolError) throw err;
        throw new ToolError(`${args.path} could not be opened: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
      }
      const kind = sniffMedia(bytes);
      if (!kind) throw new ToolError(`${args.path} is not an image, audio or video file Deskhand recognises. Use read_file for text or read_pdf for PDFs.`);
      if (kind.kind !== 'image') {
        return { output: `${args.path}: ${kind.kind} (${kind.container}, ${kind.mime}), ${bytes.length} bytes. Its content cannot be shown to you; ask the person about it if you need to know what it contains.` };
      }
      try {
        const img = await media.prepareImage(bytes);
        const scaled = img.width !== img.originalWidth ? `, scaled to ${img.width}×${img.height}` : '';
        const output = `${args.path}: ${kind.mime}, ${img.originalWidth}×${img.originalHeight} pixels${scaled}, ${bytes.length} bytes.\n${imageMarker(img.sha256, img.ext)}`;
        return check?.untrusted ? { output, untrustedSource: args.path } : { output };
      } catch (err) {
        if (DeskhandError.isInstance(err)) throw new ToolError(err.message);
        throw err;
      }
    },
  });

export interface MediaDeps {
  media: MediaService;
  presence?: PresenceService;
  /** The companion model (analyze_media, generate_media), with the data dir its prepared images live in. */
  companion?: { model: Companion; dataDir: string; write: (abs: string, bytes: Uint8Array, ctx: ToolContext) => Promise<void> };
}

/** read_media_file; who_is_here when the host gives presence; analyze_media and generate_media with a companion. */
export function createMediaFamily(deps: MediaDeps): { tools: ToolDefinition[] } {
  const c = deps.companion;
  return {
    tools: [
      createReadMediaFile(deps.media),
      ...(deps.presence ? [createWhoIsHere(deps.presence)] : []),
      ...(c ? [createAnalyzeMedia(c.model, deps.media, c.dataDir), createGenerateMedia(c.model, c.write)] : []),
    ] as unknown as ToolDefinition[],
  };
}
