/**
 * read_media_file end to end: a 3000×1500 PNG read by the real runtime goes back to the scripted model server as an
 * image part (Anthropic: in the tool result; OpenAI chat: in a user message right after it, as chat completions
 * stringify tool results), downscaled to 1568 on the long edge; an OpenAI-compatible server's model is told it does not
 * get the image; a history written under one provider is fitted to the next; audio is described; a damaged image is
 * reported.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../../src/main/services/providers/providers';
import { IMAGE_MAX_BYTES } from '../../../src/main/services/media/index';
import { Store } from '../../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-media-data-');
  work = tempDir('deskhand-media-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  const img = new Jimp(3000, 1500, 0x2456c7ff);
  for (let x = 0; x < 1500; x++) img.setPixelColor(0xff0000ff, x, 750);
  writeFileSync(join(work, 'wide.png'), await img.getBufferAsync(Jimp.MIME_PNG));
});
afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
});

const provider = (p: 'anthropic' | 'openai' | 'openai-compatible'): ProviderConfig =>
  p === 'openai-compatible' ? { provider: p, model: 'm', baseURL: server.baseURL, apiKey: null } : { provider: p, model: 'm', baseURL: server.baseURL, apiKey: 'k' };

async function lookAt(p: 'anthropic' | 'openai' | 'openai-compatible', path = 'wide.png'): Promise<string> {
  server.enqueue(reply().tool('read_media_file', { path }));
  server.enqueue(reply().text('I see a blue image.'));
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['media'], true); // loaded from the first request, as a person enabling them would
  const outcome = await runtime.sendMessage(conv.id, 'look', { provider: provider(p), interactive: false });
  expect(outcome.status).toBe('finished');
  return JSON.stringify(server.requests.at(-1)!.body);
}

describe('read_media_file', () => {
  it('sends the image to Anthropic as an image block in the tool result, downscaled', async () => {
    const body = JSON.parse(await lookAt('anthropic')) as { messages: { role: string; content: { type: string; content?: { type: string; source?: { data: string; media_type: string } }[] }[] }[] };
    const result = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((c) => c.type === 'tool_result')!;
    const image = result.content!.find((c) => c.type === 'image')!;
    expect(image.source!.media_type).toBe('image/png');
    const decoded = await Jimp.read(Buffer.from(image.source!.data, 'base64'));
    expect([decoded.bitmap.width, decoded.bitmap.height]).toEqual([1568, 784]);
    expect(JSON.stringify(result.content)).toContain('3000×1500 pixels, scaled to 1568×784');
    expect(JSON.stringify(result.content)).not.toContain('[image attached');
  });

  it('sends the image to OpenAI chat as an image part of a user message right after the tool result', async () => {
    const body = JSON.parse(await lookAt('openai')) as { messages: { role: string; content: unknown; tool_call_id?: string }[] };
    const i = body.messages.findIndex((m) => m.role === 'tool');
    const tool = body.messages[i]!;
    // The tool message stays text (chat completions stringify tool results), without the bytes, and points on.
    expect(typeof tool.content).toBe('string');
    expect(tool.content).toContain('3000×1500 pixels, scaled to 1568×784');
    expect(tool.content).toContain('The image follows in the next message');
    expect(String(tool.content)).not.toContain('iVBOR');
    // The very next message is a user message carrying the image, labelled as the tool's output.
    const next = body.messages[i + 1]!;
    expect(next.role).toBe('user');
    const parts = next.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]!.text).toMatch(new RegExp(`read_media_file returned for call ${tool.tool_call_id}.*not a message from the person`));
    const url = parts.find((p) => p.type === 'image_url')!.image_url!.url;
    expect(url).toMatch(/^data:image\/png;base64,/);
    const decoded = await Jimp.read(Buffer.from(url.split(',')[1]!, 'base64'));
    expect([decoded.bitmap.width, decoded.bitmap.height]).toEqual([1568, 784]);
    // Then the model's own reply, so the order is tool → user(image) → assistant on the next turn.
    expect(body.messages.slice(i + 2).some((m) => m.role === 'tool')).toBe(false);
  });

  it('keeps a detailed picture within the 5 MB Anthropic takes per image (a 1200×1200 PNG of noise is ~5.8 MB)', async () => {
    // Pure-JavaScript PNG coding of noise is slow on a loaded machine: the test gets its own budget.
    const noisy = new Jimp(1200, 1200);
    noisy.bitmap.data = randomBytes(1200 * 1200 * 4);
    const original = await noisy.getBufferAsync(Jimp.MIME_PNG);
    expect(original.length).toBeGreaterThan(IMAGE_MAX_BYTES);
    writeFileSync(join(work, 'noise.png'), original);
    // The scripted server refuses an image over 5 MB as Anthropic does ("image exceeds 5 MB maximum"): the run only
    // finishes when the image was made to fit.
    // Two closing replies: the runtime counts the image's base64 as text, so this one picture may make it compact
    // the history first (a side request that takes a reply of its own).
    server.enqueue(reply().tool('read_media_file', { path: 'noise.png' }), reply().text('A grey blur.'), reply().text('A grey blur.'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    runtime.setFamilies(conv.id, ['media'], true);
    const outcome = await runtime.sendMessage(conv.id, 'look', { provider: provider('anthropic'), interactive: false });
    expect(server.refused.map((r) => r.refusal.message)).toEqual([]);
    expect(outcome.status).toBe('finished');
    const request = server.requests.find((r) => JSON.stringify(r.body).includes('"tool_result"'))!;
    const body = request.body as unknown as { messages: { content: { type: string; content?: { type: string; source?: { data: string; media_type: string } }[] }[] }[] };
    const result = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((c) => c.type === 'tool_result')!;
    const image = Buffer.from(result.content!.find((c) => c.type === 'image')!.source!.data, 'base64');
    expect(image.length).toBeLessThanOrEqual(IMAGE_MAX_BYTES);
    const decoded = await Jimp.read(image);
    expect(decoded.bitmap.width).toBeLessThan(1200);
    expect(decoded.bitmap.width).toBe(decoded.bitmap.height); // the aspect ratio is kept
    expect(JSON.stringify(result.content)).toContain(`1200×1200 pixels, scaled to ${decoded.bitmap.width}×${decoded.bitmap.height}`);
  }, 180_000);

  it('tells an OpenAI-compatible model (its server may take no images) that it does not get the image', async () => {
    const body = await lookAt('openai-compatible');
    expect(body).toContain('The image is not shown to you');
    expect(body).not.toContain('iVBOR');
  });

  it('fits a history written under Anthropic to OpenAI and to an OpenAI-compatible server', async () => {
    server.enqueue(reply().tool('read_media_file', { path: 'wide.png' }));
    server.enqueue(reply().text('I see it.'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    runtime.setFamilies(conv.id, ['media'], true); // loaded from the first request, as a person enabling them would
    expect((await runtime.sendMessage(conv.id, 'look', { provider: provider('anthropic'), interactive: false })).status).toBe('finished');
    server.enqueue(reply().text('Still blue.'));
    expect((await runtime.sendMessage(conv.id, 'and now?', { provider: provider('openai'), interactive: false })).status).toBe('finished');
    const openai = server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const tool = openai.messages.findIndex((m) => m.role === 'tool');
    expect(String(openai.messages[tool]!.content)).not.toContain('iVBOR');
    expect(JSON.stringify(openai.messages[tool + 1]!.content)).toContain('data:image/png;base64,iVBOR');
    server.enqueue(reply().text('Blue.'));
    expect((await runtime.sendMessage(conv.id, 'once more', { provider: provider('openai-compatible'), interactive: false })).status).toBe('finished');
    const compatible = JSON.stringify(server.requests.at(-1)!.body);
    expect(compatible).toContain('The image is not shown to you');
    expect(compatible).not.toContain('iVBOR');
  });

  it('describes audio and reports damaged images', async () => {
    const wav = Buffer.alloc(44);
    wav.write('RIFF', 0);
    wav.write('WAVE', 8);
    writeFileSync(join(work, 'a.wav'), wav);
    // A bare header is no playable audio: ffprobe (on the opened file) says so, with what the header claimed.
    expect(await lookAt('anthropic', 'a.wav')).toMatch(/a\.wav \(audio, WAVE, audio\/wav, 44 bytes\): The file could not be read as audio or video/);
    writeFileSync(join(work, 'broken.png'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(20)]));
    expect(await lookAt('anthropic', 'broken.png')).toMatch(/could not be decoded/);
  });
});
