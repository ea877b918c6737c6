/**
 * read_media_file's image, as an image part of its tool result (see shared/media-marker.ts): for providers whose tool
 * results carry images, the marker's file (verified against its hash) is attached; otherwise the text stays as it is,
 * with a note that this model does not get the image.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_MARKER, PROVIDERS_WITH_IMAGE_RESULTS } from '../../shared/media-marker';

export type MediaOutput =
  | { type: 'content'; value: ({ type: 'text'; text: string } | { type: 'image-data'; data: string; mediaType: string })[] }
  | { type: 'text'; value: string };

export function mediaOutput(dataDir: string, provider: string, output: string): MediaOutput | null {
  const m = IMAGE_MARKER.exec(output);
  if (!m) return null;
  const text = output.replace(IMAGE_MARKER, '').trimEnd();
  if (!PROVIDERS_WITH_IMAGE_RESULTS.includes(provider)) {
    return { type: 'text', value: `${text}\n[The image is not shown to you: this provider's tool results carry text only. Ask the person about it if you need to know what it shows.]` };
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dataDir, 'media', `${m[1]}.${m[2]}`));
  } catch {
    return { type: 'text', value: `${text}\n[The image could not be attached: its prepared copy is gone.]` };
  }
  if (createHash('sha256').update(bytes).digest('hex') !== m[1]) return { type: 'text', value: `${text}\n[The image was not attached: its prepared copy changed.]` };
  return { type: 'content', value: [{ type: 'text', text }, { type: 'image-data', data: bytes.toString('base64'), mediaType: m[2] === 'png' ? 'image/png' : 'image/jpeg' }] };
}
