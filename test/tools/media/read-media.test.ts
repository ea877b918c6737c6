/**
 * read_media_file end to end: a 3000×1500 PNG read by the real runtime goes back to the scripted model server as an
 * image part (Anthropic), downscaled to 1568 on the long edge; over a chat-completions provider
 * the model is told it does not get the image; audio is described; a damaged image is reported.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/open-runtime';
import type { ProviderConfig } from '../../../src/main/services/providers/providers';
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

  it.each(['openai', 'openai-compatible'] as const)('tells a chat-completions model (%s) that it does not get the image', async (p) => {
    const body = await lookAt(p);
    expect(body).toContain('The image is not shown to you');
    expect(body).not.toContain('iVBOR');
  });

  it('describes audio and reports damaged images', async () => {
    const wav = Buffer.alloc(44);
    wav.write('RIFF', 0);
    wav.write('WAVE', 8);
    writeFileSync(join(work, 'a.wav'), wav);
    expect(await lookAt('anthropic', 'a.wav')).toContain('audio (WAVE, audio/wav), 44 bytes');
    writeFileSync(join(work, 'broken.png'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(20)]));
    expect(await lookAt('anthropic', 'broken.png')).toMatch(/could not be decoded/);
  });
});
