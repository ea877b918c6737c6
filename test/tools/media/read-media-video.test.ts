/**
 * read_media_file beyond whole images, through the real runtime, real ffprobe/ffmpeg (started by the launcher, on the
 * file the path guard opened) and the scripted model server:
 * - a video made with ffmpeg (red, blue, green seconds) reaches the model as its metadata plus frames sampled evenly,
 *   each an image of the colour of its second (so the frames are really taken at those times);
 * - testsrc WebM metadata (size, fps, codecs, length); a WAV is described as audio;
 * - region crops an image (the pixels sent are the region's), full_resolution keeps every pixel, and one too large
 *   at full resolution is refused with what to do; regions outside the picture are named;
 * - the 100 MB cap.
 */
import { randomBytes } from 'node:crypto';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../../src/main/services/providers/providers';
import { JimpMedia } from '../../../src/main/services/media/images';
import { Store } from '../../../src/main/services/store/store';
import { colorsVideo, testsrcVideo, toneWav } from '../../support/media';
import { reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;
let dataDir: string;

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-video-data-');
  work = tempDir('deskhand-video-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
});
afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
});

const anthropic = (): ProviderConfig => ({ provider: 'anthropic', model: 'm', baseURL: server.baseURL, apiKey: 'k' });

interface Block {
  type: string;
  text?: string;
  content?: Block[] | string;
  source?: { data: string; media_type: string };
  is_error?: boolean;
}

/** One read_media_file call; the tool_result block the model got next. */
async function look(args: Record<string, unknown>): Promise<{ text: string; images: Buffer[]; isError: boolean }> {
  server.enqueue(reply().tool('read_media_file', args), reply().text('Seen.'));
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['media'], true);
  const outcome = await runtime.sendMessage(conv.id, 'look', { provider: anthropic(), interactive: false });
  expect(outcome.status).toBe('finished');
  const body = server.requests.at(-1)!.body as unknown as { messages: { content: Block[] | string }[] };
  const result = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((c) => c.type === 'tool_result')!;
  const content = typeof result.content === 'string' ? [{ type: 'text', text: result.content }] : (result.content ?? []);
  return {
    text: content.filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
    images: content.filter((c) => c.type === 'image').map((c) => Buffer.from(c.source!.data, 'base64')),
    isError: result.is_error === true,
  };
}

/** The dominant channel of an image's centre pixel. */
async function colourOf(png: Buffer): Promise<string> {
  const img = await Jimp.read(png);
  const { r, g, b } = Jimp.intToRGBA(img.getPixelColor(Math.floor(img.bitmap.width / 2), Math.floor(img.bitmap.height / 2)));
  return r > 150 && g < 100 && b < 100 ? 'red' : b > 150 && r < 100 && g < 100 ? 'blue' : g > 90 && r < 100 && b < 100 ? 'green' : `rgb(${r},${g},${b})`;
}

describe('read_media_file on video and audio', () => {
  it('gives an MP4 as metadata and evenly sampled frames taken at their times', async () => {
    colorsVideo(work);
    const r = await look({ path: 'colors.mp4', frames: 3 });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/colors\.mp4: video \(video\/mp4\), QuickTime \/ MOV, 3\.0 s, video mpeg4 320×240 at 10 fps, no sound, \d+ bytes\./);
    expect(r.text).toContain('Frame 1 of 3, at 0.5 s (320×240):');
    expect(r.text).toContain('Frame 3 of 3, at 2.5 s');
    expect(r.images).toHaveLength(3);
    expect(await Promise.all(r.images.map(colourOf))).toEqual(['red', 'blue', 'green']);
    expect(r.text).not.toContain('[image attached');
  }, 120_000);

  it('describes a testsrc WebM, scales its frames, and crops them to a region', async () => {
    testsrcVideo(work, { size: '1280x720', seconds: 2 });
    const r = await look({ path: 'testsrc.webm', frames: 2 });
    expect(r.text).toMatch(/testsrc\.webm: video \(video\/webm\), Matroska \/ WebM, 2\.0 s, video vp8 1280×720 at 25 fps, audio opus 48000 Hz, mono, \d+ bytes\./);
    expect(r.images).toHaveLength(2);
    const frame = await Jimp.read(r.images[0]!);
    expect([frame.bitmap.width, frame.bitmap.height]).toEqual([768, 432]);
    const cropped = await look({ path: 'testsrc.webm', frames: 1, region: { x: 100, y: 50, width: 300, height: 200 } });
    const part = await Jimp.read(cropped.images[0]!);
    expect([part.bitmap.width, part.bitmap.height]).toEqual([300, 200]);
    const outside = await look({ path: 'testsrc.webm', region: { x: 1200, y: 0, width: 200, height: 10 } });
    expect(outside.text).toContain("reaches outside the video's 1280×720 frames");
    expect(outside.images).toHaveLength(0);
  }, 120_000);

  it('describes audio by its length and codec and points at analyze_media', async () => {
    toneWav(work, 2);
    const r = await look({ path: 'tone.wav' });
    expect(r.text).toMatch(/tone\.wav: audio \(audio\/wav\), WAV \/ WAVE \(Waveform Audio\), 2\.0 s, audio pcm_s16le 16000 Hz, mono, \d+ bytes\./);
    expect(r.text).toContain('analyze_media transcribes speech');
    expect(r.images).toHaveLength(0);
    expect((await look({ path: 'tone.wav', frames: 2 })).text).toContain('has no picture (it is audio)');
  }, 60_000);

  it('refuses a file over 100 MB before reading it', async () => {
    const big = join(work, 'big.mp4');
    writeFileSync(big, Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom')]));
    truncateSync(big, 100 * 1024 * 1024 + 1);
    const r = await look({ path: 'big.mp4' });
    expect(r.text).toContain('read_media_file opens files up to 104857600 bytes (100 MB)');
    truncateSync(big, 100 * 1024 * 1024);
    // At the cap it is opened (and found to be no real video).
    expect((await look({ path: 'big.mp4' })).text).not.toContain('opens files up to');
  }, 60_000);
});

describe('read_media_file region and full_resolution on images', () => {
  beforeEach(async () => {
    const img = new Jimp(3000, 1500, 0x2456c7ff);
    for (let x = 0; x < 1500; x++) img.setPixelColor(0xff0000ff, x, 750);
    writeFileSync(join(work, 'wide.png'), await img.getBufferAsync(Jimp.MIME_PNG));
  });

  it('region sends only that part, at its own pixels; full_resolution keeps all 3000×1500', async () => {
    const r = await look({ path: 'wide.png', region: { x: 0, y: 700, width: 200, height: 100 } });
    expect(r.text).toContain('3000×1500 pixels, region 200×100 at (0, 700), sent as 200×100');
    const part = await Jimp.read(r.images[0]!);
    expect([part.bitmap.width, part.bitmap.height]).toEqual([200, 100]);
    expect(Jimp.intToRGBA(part.getPixelColor(10, 50))).toMatchObject({ r: 255, g: 0, b: 0 }); // the red line at y=750
    expect(Jimp.intToRGBA(part.getPixelColor(10, 10))).toMatchObject({ r: 0x24, g: 0x56, b: 0xc7 });
    const full = await look({ path: 'wide.png', full_resolution: true });
    const whole = await Jimp.read(full.images[0]!);
    expect([whole.bitmap.width, whole.bitmap.height]).toEqual([3000, 1500]);
    const scaled = await look({ path: 'wide.png' });
    expect((await Jimp.read(scaled.images[0]!)).bitmap.width).toBe(1568);
    for (const region of [{ x: 2900, y: 0, width: 200, height: 10 }, { x: 0, y: 1499, width: 10, height: 2 }]) {
      const out = await look({ path: 'wide.png', region });
      expect(out.text).toContain('reaches outside the image, which is 3000×1500 pixels');
      expect(out.images).toHaveLength(0);
    }
  }, 120_000);

  it('refuses full resolution when the image would then be over 5 MB, sending nothing', async () => {
    const noisy = new Jimp(1200, 1200);
    noisy.bitmap.data = randomBytes(1200 * 1200 * 4);
    await expect(new JimpMedia(dataDir).prepareImage(await noisy.getBufferAsync(Jimp.MIME_PNG), { fullResolution: true })).rejects.toThrow(
      /At full resolution the image takes \d+ bytes \(\d+ as base64\), over the 5242880 bytes of base64 a provider accepts per image; nothing was sent\. Look at a part of it with region/,
    );
  }, 180_000);
});
