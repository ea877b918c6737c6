/**
 * read_media_file's image, as an image part of its tool result (see shared/media-marker.ts): for providers whose tool
 * results carry images, the marker's file (verified against its hash) is attached; otherwise the text stays as it is,
 * with a note that this model does not get the image.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_MARKER, PROVIDERS_WITH_IMAGE_RESULTS } from '../../../shared/media-marker';

export type MediaOutput =
  | { type: 'content'; value: ({ type: 'text'; text: string } | { type: 'image-data'; data: string; mediaType: string })[] }
  | { type: 'text'; value: string };

export function mediaOutput(dataDir: string, provider: string, output: string): MediaOutput | null {
  // Every marker (a video's frames are several), in order.
  const markers = [...output.matchAll(new RegExp(IMAGE_MARKER.source, 'gm'))];
  if (!markers.length) return null;
  const text = output.replace(new RegExp(`${IMAGE_MARKER.source}\\n?`, 'gm'), '').trimEnd();
  const many = markers.length > 1;
  if (!PROVIDERS_WITH_IMAGE_RESULTS.includes(provider)) {
    return { type: 'text', value: `${text}\n[The ${many ? 'images are' : 'image is'} not shown to you: this provider's tool results carry text only. Ask the person about ${many ? 'them' : 'it'} if you need to know what ${many ? 'they show' : 'it shows'}.]` };
  }
  const images: { type: 'image-data'; data: string; mediaType: string }[] = [];
  for (const m of markers) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dataDir, 'media', `${m[1]}.${m[2]}`));
    } catch {
      return { type: 'text', value: `${text}\n[The image could not be attached: its prepared copy is gone.]` };
    }
    if (createHash('sha256').update(bytes).digest('hex') !== m[1]) return { type: 'text', value: `${text}\n[The image was not attached: its prepared copy changed.]` };
    images.push({ type: 'image-data', data: bytes.toString('base64'), mediaType: m[2] === 'png' ? 'image/png' : 'image/jpeg' });
  }
  return { type: 'content', value: [{ type: 'text', text }, ...images] };
}
