/**
 * analyze_media and generate_media through a companion model on the scripted model server: the image goes to the
 * companion as an image part of a user message (chat completions image_url), its answer comes back to the agent as
 * untrusted text; the generated image (the server's /v1/images/generations) is written byte for byte.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/assembly/open-runtime';
import { CompanionModel } from '../../../src/main/services/media/companion';
import { Store } from '../../../src/main/services/store/store';
import { SCRIPTED_PNG, reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;
let dataDir: string;

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-companion-data-');
  work = tempDir('deskhand-companion-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  writeFileSync(join(work, 'blue.png'), await new Jimp(64, 32, 0x2456c7ff).getBufferAsync(Jimp.MIME_PNG));
});
afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
});

// Both tools are high-risk egress with an approval pair (test/security/media-egress.test.ts proves they ask below
// high-risk); these tests run them under the high-risk policy, which clears them, to check what they send and write.
const main = () => ({ provider: 'openai-compatible' as const, model: 'agent', baseURL: server.baseURL, apiKey: null });

it('analyze_media says clearly when no companion is set up', async () => {
  server.enqueue(reply().tool('analyze_media', { path: 'blue.png', question: 'What colour is it?' }));
  server.enqueue(reply().text('ok'));
  const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
  runtime.setFamilies(conv.id, ['media'], true); // loaded from the first request, as a person enabling them would
  await runtime.sendMessage(conv.id, 'look', { provider: main(), interactive: false });
  expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('No companion model is set up');
});

it('analyze_media sends the image to the companion and returns its answer as untrusted text', async () => {
  new CompanionModel(dataDir).save({ provider: 'openai-compatible', model: 'vision-test', imageModel: null, baseURL: server.baseURL });
  server.enqueue(reply().tool('analyze_media', { path: 'blue.png', question: 'What colour is it?' }));
  server.enqueue(reply().text('It is a solid blue rectangle.'));
  server.enqueue(reply().text('The image is blue.'));
  const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
  runtime.setFamilies(conv.id, ['media'], true); // loaded from the first request, as a person enabling them would
  const outcome = await runtime.sendMessage(conv.id, 'look', { provider: main(), interactive: false });
  expect(outcome.status).toBe('finished');
  const companion = server.requests[1]!.body as unknown as { model: string; messages: { role: string; content: { type: string; image_url?: { url: string }; text?: string }[] }[] };
  expect(companion.model).toBe('vision-test');
  const parts = companion.messages[0]!.content;
  expect(parts.find((p) => p.type === 'text')?.text).toBe('What colour is it?');
  const url = parts.find((p) => p.type === 'image_url')!.image_url!.url;
  expect(url).toMatch(/^data:image\/png;base64,/);
  const sent = await Jimp.read(Buffer.from(url.split(',')[1]!, 'base64'));
  expect([sent.bitmap.width, sent.bitmap.height]).toEqual([64, 32]);
  const back = JSON.stringify(server.requests[2]!.body);
  expect(back).toContain('It is a solid blue rectangle.');
  expect(back).toMatch(/untrusted source=\\"analyze_media blue.png\\"/);
});

it('generate_media writes the image model\'s bytes to the path', async () => {
  new CompanionModel(dataDir).save({ provider: 'openai-compatible', model: 'vision-test', imageModel: 'image-test', baseURL: server.baseURL });
  server.enqueue(reply().tool('generate_media', { prompt: 'a red square', kind: 'image', size: '256x256', path: 'out/square.png' }));
  server.enqueue(reply().text('Made it.'));
  const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
  runtime.setFamilies(conv.id, ['media'], true); // loaded from the first request, as a person enabling them would
  const outcome = await runtime.sendMessage(conv.id, 'make', { provider: main(), interactive: false });
  expect(outcome.status).toBe('finished');
  const gen = server.requests.find((r) => r.path === '/v1/images/generations')!.body as unknown as { model: string; prompt: string; size: string };
  expect(gen).toMatchObject({ model: 'image-test', prompt: 'a red square', size: '256x256' });
  expect(readFileSync(join(work, 'out', 'square.png')).equals(SCRIPTED_PNG)).toBe(true);
  expect((await Jimp.read(SCRIPTED_PNG)).bitmap.width).toBe(2);
  expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('Wrote out/square.png: image/png');
});
