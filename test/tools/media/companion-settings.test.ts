/**
 * The companion model chosen in Settings (`getCompanion` / `setCompanion`): the same file `deskhand media companion`
 * writes, checked before saving, and a run's analyze_media then reaches that model with the provider's key saved in
 * the keyring (the scripted server's recorded request carries it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CompanionModel } from '../../../src/main/services/media/companion';
import { openHarness, type Harness } from '../../host/helpers';
import { requireBuild, runCli } from '../../support/cli';
import { reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let h: Harness;
let dataDir: string;
let server: ModelServer;
beforeEach(async () => {
  dataDir = tempDir('deskhand-companion-settings-');
  h = openHarness({ dataDir });
  server = await startModelServer();
});
afterEach(async () => {
  h.close();
  await server.close();
});

it('saves the companion from Settings, refuses what cannot work, and clears it', async () => {
  expect(await h.service.getCompanion({})).toMatchObject({ companion: null, key: expect.stringMatching(/No companion model/) });
  const saved = await h.service.setCompanion({ companion: { provider: 'openai', model: 'gpt-vision', imageModel: 'gpt-image-1', baseURL: null } });
  expect(saved.companion).toEqual({ provider: 'openai', model: 'gpt-vision', imageModel: 'gpt-image-1', baseURL: null, transcriptionModel: null, speechModel: null, models: [], imageModels: [], speechModels: [] });
  expect(saved.key).toMatch(/OpenAI key saved under Providers, else OPENAI_API_KEY/);
  // The CLI and the tools read the same file.
  expect(new CompanionModel(dataDir).config()).toEqual(saved.companion);

  await expect(h.service.setCompanion({ companion: { provider: 'openai-compatible', model: 'llava', imageModel: null, baseURL: null } })).rejects.toThrow(/needs its base URL/);
  await expect(h.service.setCompanion({ companion: { provider: 'anthropic', model: 'claude', imageModel: 'x', baseURL: null } })).rejects.toThrow(/Anthropic has no image generation/);
  await expect(h.service.setCompanion({ companion: { provider: 'anthropic', model: 'claude', imageModel: null, imageModels: ['x'], baseURL: null } })).rejects.toThrow(/Anthropic has no image generation/);
  await expect(h.service.setCompanion({ companion: { provider: 'anthropic', model: 'claude', imageModel: null, speechModels: ['x'], baseURL: null } })).rejects.toThrow(/Anthropic makes no speech/);
  expect(new CompanionModel(dataDir).config()).toEqual(saved.companion); // unchanged by the refused saves

  // A damaged file is reported, not thrown at the page.
  writeFileSync(join(dataDir, 'companion.json'), '{"provider":"nope"}');
  expect((await h.service.getCompanion({})).key).toMatch(/does not parse/);

  expect((await h.service.setCompanion({ companion: null })).companion).toBeNull();
  expect(new CompanionModel(dataDir).config()).toBeNull();
});

it('analyze_media uses the key saved for the provider in the keyring, before the environment', async () => {
  const work = tempDir('deskhand-companion-work-');
  writeFileSync(join(work, 'dot.png'), await new Jimp(8, 8, 0xff0000ff).getBufferAsync(Jimp.MIME_PNG));
  const companion = new CompanionModel(dataDir, { OPENAI_API_KEY: 'sk-from-env' }, async (p) => (p === 'openai' ? 'sk-from-keyring' : null));
  companion.save({ provider: 'openai', model: 'vision-test', imageModel: null, baseURL: server.baseURL });
  server.enqueue(reply().text('A red square.').usage({ input: 43, output: 4 }));
  // The answer carries the tokens the provider reported (analyze_media counts them in the usage ledger).
  expect(await companion.analyze({ images: [{ bytes: Buffer.from('x'), mime: 'image/png' }], prompt: 'What is it?' })).toMatchObject({
    text: 'A red square.',
    model: 'vision-test',
    usage: { provider: 'openai', model: 'vision-test', inputTokens: 43, outputTokens: 4 },
  });
  expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-keyring');

  // No key in the keyring (or no keyring at all): the environment's.
  const envOnly = new CompanionModel(dataDir, { OPENAI_API_KEY: 'sk-from-env' }, async () => {
    throw new Error('no keyring');
  });
  server.enqueue(reply().text('Still red.'));
  await envOnly.analyze({ images: [{ bytes: Buffer.from('x'), mime: 'image/png' }], prompt: 'And now?' });
  expect(server.requests[1]!.headers.authorization).toBe('Bearer sk-from-env');
});

it('the transcription, speech and "also" models saved from Settings are the ones the companion calls', async () => {
  const saved = await h.service.setCompanion({
    companion: { provider: 'openai-compatible', model: 'vision-main', imageModel: null, baseURL: server.baseURL, transcriptionModel: 'hear-test', speechModel: 'say-test', models: ['vision-also'], imageModels: ['draw-also'], speechModels: ['say-also'] },
  });
  expect(saved.companion).toMatchObject({ transcriptionModel: 'hear-test', speechModel: 'say-test', models: ['vision-also'], imageModels: ['draw-also'], speechModels: ['say-also'] });
  const companion = new CompanionModel(dataDir, {}, async () => 'sk-test');
  await companion.speak('Hello there.', { format: 'mp3' });
  await companion.speak('Hello again.', { format: 'mp3', model: 'say-also' });
  expect(server.audioRequests.map((r) => [r.path, r.fields.model])).toEqual([['/v1/audio/speech', 'say-test'], ['/v1/audio/speech', 'say-also']]);
  await expect(companion.speak('No.', { format: 'mp3', model: 'say-secret' })).rejects.toThrow('say-secret is not one of the speech models the person set up for the companion (say-test, say-also)');
  expect(await companion.generateImage('a dot', { size: null, model: 'draw-also' })).toMatchObject({ model: 'draw-also' });
  expect((server.requests.at(-1)!.body as { model?: string }).model).toBe('draw-also');
  server.enqueue(reply().text('Seen.'));
  expect(await companion.analyze({ images: [{ bytes: Buffer.from('x'), mime: 'image/png' }], prompt: 'What?', model: 'vision-also' })).toMatchObject({ model: 'vision-also' });
  expect((server.requests.at(-1)!.body as { model?: string }).model).toBe('vision-also');
});

it('`deskhand media companion set` takes --also-image-model and --also-speech-model, and the companion honours them', async () => {
  requireBuild();
  const set = await runCli(['media', 'companion', 'set', '--provider', 'openai-compatible', '--model', 'v', '--image-model', 'draw-a', '--also-image-model', 'draw-b', '--also-image-model', 'draw-c', '--speech-model', 'say-a', '--also-speech-model', 'say-b', '--base-url', server.baseURL, '--data-dir', dataDir]);
  expect(set.code, set.stderr).toBe(0);
  const shown = await runCli(['media', 'companion', 'show', '--json', '--data-dir', dataDir]);
  expect(JSON.parse(shown.stdout)).toMatchObject({ imageModel: 'draw-a', imageModels: ['draw-b', 'draw-c'], speechModel: 'say-a', speechModels: ['say-b'] });
  expect((await h.service.getCompanion({})).companion).toMatchObject({ imageModels: ['draw-b', 'draw-c'], speechModels: ['say-b'] });
  const companion = new CompanionModel(dataDir, {}, async () => null);
  await companion.generateImage('a dot', { size: null, model: 'draw-c' });
  expect((server.requests.at(-1)!.body as { model?: string }).model).toBe('draw-c');
  await expect(companion.generateImage('a dot', { size: null, model: 'say-b' })).rejects.toThrow('say-b is not one of the image models the person set up for the companion (draw-a, draw-b, draw-c)');
});
