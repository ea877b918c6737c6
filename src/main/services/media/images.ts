/** Images prepared for a model with jimp (pure JavaScript): decoded, scaled to fit IMAGE_MAX_EDGE, stored by hash. */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Jimp from 'jimp';
import { DeskhandError } from '../../../shared/errors';
import { IMAGE_MAX_EDGE, type MediaService, type PreparedImage } from './index';

export class JimpMedia implements MediaService {
  constructor(private readonly dataDir: string) {}

  async prepareImage(bytes: Buffer): Promise<PreparedImage> {
    // jimp loads with the first image prepared.
    const JimpLib = ((await import('jimp')) as unknown as { default: typeof Jimp }).default;
    let img: Jimp;
    try {
      img = await JimpLib.read(bytes);
    } catch (err) {
      throw new DeskhandError('usage', `The image could not be decoded (${(err as Error).message}); it may be damaged or in a format other than PNG, JPEG, GIF or BMP.`);
    }
    const originalWidth = img.bitmap.width;
    const originalHeight = img.bitmap.height;
    if (Math.max(originalWidth, originalHeight) > IMAGE_MAX_EDGE) img.scaleToFit(IMAGE_MAX_EDGE, IMAGE_MAX_EDGE);
    // Photos travel as JPEG (smaller); anything with transparency or few colours as PNG.
    const jpeg = img.getMIME() === JimpLib.MIME_JPEG;
    const out = jpeg ? await img.quality(85).getBufferAsync(JimpLib.MIME_JPEG) : await img.getBufferAsync(JimpLib.MIME_PNG);
    const sha256 = createHash('sha256').update(out).digest('hex');
    const ext = jpeg ? 'jpg' : 'png';
    const dir = join(this.dataDir, 'media');
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${sha256}.${process.pid}.tmp`);
    writeFileSync(tmp, out, { mode: 0o600 });
    renameSync(tmp, join(dir, `${sha256}.${ext}`));
    return { sha256, ext, width: img.bitmap.width, height: img.bitmap.height, originalWidth, originalHeight, bytes: out.length };
  }
}
