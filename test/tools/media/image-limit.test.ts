/**
 * Anthropic's 5 MB per-image limit is measured on the base64 text the request carries (issue 43 item 13): an image of
 * 3.75–5 MB decoded is over 5 MB as base64 and refused. The product's check (services/media/images.ts) measures the
 * same way, so such an image is made smaller before it is sent, and full resolution refuses it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_MAX_BASE64, IMAGE_MAX_BYTES, base64Length } from '../../../src/main/services/media/index';
import { JimpMedia } from '../../../src/main/services/media/images';
import { validateAnthropicRequest } from '../../support/provider-validation';
import { tempDir } from '../../support/tool-context';

const request = (png: Buffer) => ({
  model: 'claude-test',
  max_tokens: 100,
  messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }, { type: 'text', text: 'what is this?' }] }],
});

describe('the per-image limit is measured on the base64 text', () => {
  let original: Buffer;
  beforeAll(async () => {
    // 1000×1000 of noise: about 4 MB as PNG (pure-JavaScript PNG coding of noise is slow on a loaded machine).
    const noisy = new Jimp(1000, 1000);
    noisy.bitmap.data = randomBytes(1000 * 1000 * 4);
    original = await noisy.getBufferAsync(Jimp.MIME_PNG);
  }, 120_000);

  it('the limits: 3.75 MB decoded is 5 MB of base64', () => {
    expect(IMAGE_MAX_BYTES).toBe(3_932_160);
    expect(base64Length(IMAGE_MAX_BYTES)).toBe(IMAGE_MAX_BASE64);
    expect(base64Length(IMAGE_MAX_BYTES + 1)).toBeGreaterThan(IMAGE_MAX_BASE64);
  });

  it('an image between 3.75 and 5 MB decoded is refused by the provider as it is', () => {
    expect(original.length).toBeGreaterThan(IMAGE_MAX_BYTES);
    expect(original.length).toBeLessThan(5 * 1024 * 1024);
    expect(validateAnthropicRequest(request(original))?.message).toMatch(/image exceeds 5 MB maximum/);
  });

  it('is made smaller until its base64 fits, and then the provider takes it', async () => {
    const dataDir = tempDir('deskhand-media-');
    const prepared = await new JimpMedia(dataDir).prepareImage(original);
    const stored = readFileSync(join(dataDir, 'media', `${prepared.sha256}.${prepared.ext}`));
    expect(stored.length).toBe(prepared.bytes);
    expect(base64Length(stored.length)).toBeLessThanOrEqual(IMAGE_MAX_BASE64);
    expect([prepared.originalWidth, prepared.originalHeight]).toEqual([1000, 1000]);
    expect(prepared.width).toBeLessThan(1000);
    expect(prepared.width).toBe(prepared.height);
    expect(validateAnthropicRequest(request(stored))).toBeUndefined();
  }, 120_000);

  it('at full resolution it is refused, naming its size as base64', async () => {
    await expect(new JimpMedia(tempDir('deskhand-media-')).prepareImage(original, { fullResolution: true })).rejects.toThrow(
      new RegExp(`takes ${original.length} bytes \\(${base64Length(original.length)} as base64\\), over the 5242880 bytes of base64 a provider accepts per image; nothing was sent`),
    );
  }, 120_000);
});
