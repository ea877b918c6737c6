/** Images prepared for a model with jimp (pure JavaScript): decoded, scaled to fit IMAGE_MAX_EDGE, stored by hash. */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Jimp from 'jimp';
import { DeskhandError } from '../../../shared/errors';
import { ARTIFACT_DIR, IMAGE_FULL_MAX_EDGE, IMAGE_MAX_BASE64, IMAGE_MAX_EDGE, base64Length, type ArtifactExt, type MediaService, type PrepareOptions, type PreparedImage } from './index';

/** Whether an encoded image fits the providers' per-image limit, measured as Anthropic measures it: on its base64. */
const fits = (encoded: Buffer): boolean => base64Length(encoded.length) <= IMAGE_MAX_BASE64;

export class JimpMedia implements MediaService {
  constructor(private readonly dataDir: string) {}

  async storeArtifact(bytes: Buffer, ext: ArtifactExt): Promise<{ sha256: string; ext: ArtifactExt }> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const dir = join(this.dataDir, ...ARTIFACT_DIR);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `.${sha256}.${process.pid}.tmp`);
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, join(dir, `${sha256}.${ext}`));
    return { sha256, ext };
  }

  async prepareImage(bytes: Buffer, opts: PrepareOptions = {}): Promise<PreparedImage> {
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
    const r = opts.region;
    if (r) {
      if (r.x + r.width > originalWidth || r.y + r.height > originalHeight) {
        throw new DeskhandError('usage', `The region ${r.width}×${r.height} at (${r.x}, ${r.y}) reaches outside the image, which is ${originalWidth}×${originalHeight} pixels.`);
      }
      img.crop(r.x, r.y, r.width, r.height);
    }
    const edge = opts.fullResolution ? IMAGE_FULL_MAX_EDGE : (opts.maxEdge ?? IMAGE_MAX_EDGE);
    if (Math.max(img.bitmap.width, img.bitmap.height) > edge) img.scaleToFit(edge, edge);
    // Photos travel as JPEG (smaller); anything with transparency or few colours as PNG.
    const jpeg = img.getMIME() === JimpLib.MIME_JPEG;
    const encode = () => (jpeg ? img.quality(85).getBufferAsync(JimpLib.MIME_JPEG) : img.getBufferAsync(JimpLib.MIME_PNG));
    let out = await encode();
    if (opts.fullResolution && !fits(out)) {
      // Shrinking would lose the detail full resolution was asked for: nothing is sent.
      throw new DeskhandError(
        'usage',
        `At full resolution the image takes ${out.length} bytes (${base64Length(out.length)} as base64), over the ${IMAGE_MAX_BASE64} bytes of base64 a provider accepts per image; nothing was sent. ` +
          'Look at a part of it with region (full detail), or without full_resolution (scaled to fit).',
      );
    }
    // Over the providers' per-image limit (a detailed picture as PNG): smaller until it fits. Bytes grow about with the
    // pixel count, so each round scales by the square root of the excess, with a margin.
    while (!fits(out) && img.bitmap.width > 1 && img.bitmap.height > 1) {
      const factor = Math.sqrt(IMAGE_MAX_BASE64 / base64Length(out.length)) * 0.9;
      img.resize(Math.max(1, Math.floor(img.bitmap.width * factor)), Math.max(1, Math.floor(img.bitmap.height * factor)));
      out = await encode();
    }
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
