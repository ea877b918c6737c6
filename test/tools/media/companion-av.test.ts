/**
 * analyze_media on audio and video, generate_media making speech, and the per-call choice of companion model, through
 * the real runtime, real ffmpeg and a scripted companion server speaking OpenAI's audio and chat wire shapes (the AI
 * SDK's own transcribe and generateSpeech send them): what reached the companion is read from its recorded requests.
 * Audio still waits for the person below the high-risk policy, and nothing reaches the companion before that.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/assembly/open-runtime';
import { CompanionModel } from '../../../src/main/services/media/companion';
import { Store } from '../../../src/main/services/store/store';
import type { Policy } from '../../../src/shared/tools';
import { SCRIPTED_MP3, silentWav } from '../../support/audio-endpoints';
import { colorsVideo, toneWav } from '../../support/media';
import { reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let agent: ModelServer;
let companion: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;
let dataDir: string;

beforeEach(async () => {
  agent = await startModelServer();
  companion = await startModelServer({ transcript: 'The meeting moves to Thursday at ten.' });
  dataDir = tempDir('deskhand-av-data-');
  work = tempDir('deskhand-av-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  new CompanionModel(dataDir).save({
    provider: 'openai-compatible',
    model: 'vision-a',
    models: ['vision-b'],
    imageModel: null,
    transcriptionModel: 'whisper-1',
    speechModel: 'tts-1',
    baseURL: companion.baseURL,
  });
  companion.setFallback(() => reply().text('Answer from the companion.'));
});
afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await agent.close();
  await companion.close();
});

const provider = () => ({ provider: 'openai-compatible' as const, model: 'agent', baseURL: agent.baseURL, apiKey: null });

async function call(tool: string, args: Record<string, unknown>, policy: Policy = 'high-risk') {
  agent.enqueue(reply().tool(tool, args), reply().text('done'));
  const conv = runtime.createConversation({ folder: work, policy });
  return runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
}
const toolResult = () => JSON.stringify(agent.requests.at(-1)!.body);
type Chat = { model: string; messages: { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] }[] };
const chats = () => companion.requests.map((r) => r.body as unknown as Chat);

describe('analyze_media beyond images', () => {
  it('audio: the sound (16 kHz mono WAV from ffmpeg) goes to /v1/audio/transcriptions, the transcript and question to the vision model', async () => {
    toneWav(work, 2, 'call.wav');
    expect((await call('analyze_media', { path: 'call.wav', question: 'When is the meeting?' })).status).toBe('finished');
    expect(companion.audioRequests).toHaveLength(1);
    const sent = companion.audioRequests[0]!;
    expect(sent.path).toBe('/v1/audio/transcriptions');
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.fields.model).toBe('whisper-1');
    const file = sent.files.find((f) => f.field === 'file')!;
    expect(file.contentType).toBe('audio/wav');
    expect(file.filename).toBe('audio.wav');
    // What was sent is ffmpeg's conversion of the recording: a WAV at 16 kHz, one channel, about 2 s long.
    expect(file.bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(file.bytes.readUInt32LE(24)).toBe(16000);
    expect(file.bytes.readUInt16LE(22)).toBe(1);
    expect(Math.round((file.size - 44) / 32000)).toBe(2);
    const [chat] = chats();
    expect(chat!.model).toBe('vision-a');
    expect(JSON.stringify(chat!.messages)).toContain('Question: When is the meeting?');
    expect(JSON.stringify(chat!.messages)).toContain('The meeting moves to Thursday at ten.');
    expect(toolResult()).toContain('Transcript (whisper-1) of call.wav:\\nThe meeting moves to Thursday at ten.');
    expect(toolResult()).toContain('vision-a on it:\\nAnswer from the companion.');
  }, 60_000);

  it('video: six frames sampled by ffmpeg go to the vision model, in order, with their times', async () => {
    colorsVideo(work);
    expect((await call('analyze_media', { path: 'colors.mp4', question: 'What colours appear?' })).status).toBe('finished');
    expect(companion.audioRequests).toHaveLength(0);
    const parts = chats()[0]!.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const images = parts.filter((p) => p.type === 'image_url').map((p) => Buffer.from(p.image_url!.url.split(',')[1]!, 'base64'));
    expect(images).toHaveLength(6);
    const centre = async (b: Buffer) => {
      const img = await Jimp.read(b);
      const { r, g, b: bl } = Jimp.intToRGBA(img.getPixelColor(img.bitmap.width >> 1, img.bitmap.height >> 1));
      return r > 150 ? 'red' : bl > 150 ? 'blue' : g > 90 ? 'green' : '?';
    };
    expect(await Promise.all(images.map(centre))).toEqual(['red', 'red', 'blue', 'blue', 'green', 'green']);
    expect(JSON.stringify(parts)).toContain('These are 6 frames of a 3.0 s video, in order, taken at 0.3 s, 0.8 s, 1.3 s, 1.8 s, 2.3 s, 2.8 s.');
    expect(toolResult()).toContain('vision-a on 6 frames of colors.mp4');
  }, 120_000);

  it('model picks one of the configured vision models per call; any other is refused before anything is sent', async () => {
    await new Jimp(16, 16, 0xff0000ff).writeAsync(join(work, 'dot.png'));
    expect((await call('analyze_media', { path: 'dot.png', question: 'Colour?', model: 'vision-b' })).status).toBe('finished');
    expect(chats().map((c) => c.model)).toEqual(['vision-b']);
    expect(toolResult()).toContain('vision-b on dot.png');
    expect((await call('analyze_media', { path: 'dot.png', question: 'Colour?', model: 'gpt-secret' })).status).toBe('finished');
    expect(toolResult()).toContain('gpt-secret is not one of the companion models the person set up (vision-a, vision-b)');
    expect(companion.requests).toHaveLength(1);
  });

  it('below high-risk an audio analysis asks first; nothing reaches the companion until approved', async () => {
    toneWav(work, 1, 'private.wav');
    const outcome = await call('analyze_media', { path: 'private.wav', question: 'What is said?' }, 'low-risk');
    expect(outcome.status).toBe('parked');
    const [ask] = store.pendingApprovals(outcome.runId);
    expect(ask!.tool).toBe('analyze_media');
    expect(ask!.preview).toContain('Sound sent to: openai-compatible at ');
    expect(ask!.preview).toContain('model whisper-1');
    expect(companion.audioRequests).toHaveLength(0);
    expect(companion.requests).toHaveLength(0);
    await runtime.decideApproval(ask!.id, { approved: true }, { provider: provider(), interactive: false });
    expect(companion.audioRequests).toHaveLength(1);
  }, 60_000);
});

describe('generate_media kind audio', () => {
  it('sends the text to /v1/audio/speech and writes the audio it gets back (mp3 and wav)', async () => {
    expect((await call('generate_media', { kind: 'audio', prompt: 'Your build passed.', voice: 'nova', path: 'note.mp3' })).status).toBe('finished');
    expect(companion.audioRequests.map((r) => [r.path, r.fields])).toEqual([['/v1/audio/speech', { model: 'tts-1', input: 'Your build passed.', voice: 'nova', response_format: 'mp3' }]]);
    expect(readFileSync(join(work, 'note.mp3')).equals(SCRIPTED_MP3)).toBe(true);
    expect(toolResult()).toContain('Wrote note.mp3: audio/mpeg');
    expect((await call('generate_media', { kind: 'audio', prompt: 'Done.', path: 'note.wav' })).status).toBe('finished');
    expect(companion.audioRequests[1]!.fields).toEqual({ model: 'tts-1', input: 'Done.', voice: 'alloy', response_format: 'wav' });
    expect(readFileSync(join(work, 'note.wav')).equals(silentWav())).toBe(true);
    expect((await call('generate_media', { kind: 'audio', prompt: 'x', path: 'note.ogg' })).status).toBe('finished');
    expect(toolResult()).toContain('does not end in .mp3 or .wav');
    expect(companion.audioRequests).toHaveLength(2);
  });
});

describe('generate_media model: a per-call choice among the configured image or speech models', () => {
  beforeEach(() => {
    new CompanionModel(dataDir).save({
      provider: 'openai-compatible',
      model: 'vision-a',
      imageModel: 'draw-a',
      imageModels: ['draw-b'],
      speechModel: 'tts-1',
      speechModels: ['tts-hd'],
      baseURL: companion.baseURL,
    });
  });

  it('the chosen model is the one the companion is asked for, and the result names it', async () => {
    expect((await call('generate_media', { kind: 'image', prompt: 'a dot', path: 'dot.png', model: 'draw-b' })).status).toBe('finished');
    const gen = companion.requests.filter((r) => r.path === '/v1/images/generations').map((r) => (r.body as { model?: string }).model);
    expect(gen).toEqual(['draw-b']);
    expect(toolResult()).toContain('made by draw-b');
    expect((await call('generate_media', { kind: 'image', prompt: 'a dot', path: 'dot2.png' })).status).toBe('finished');
    expect(companion.requests.filter((r) => r.path === '/v1/images/generations').map((r) => (r.body as { model?: string }).model)).toEqual(['draw-b', 'draw-a']);
    expect(toolResult()).toContain('made by draw-a');
    expect((await call('generate_media', { kind: 'audio', prompt: 'Hello.', path: 'hi.wav', model: 'tts-hd' })).status).toBe('finished');
    expect(companion.audioRequests.map((r) => r.fields.model)).toEqual(['tts-hd']);
    expect(toolResult()).toContain('made by tts-hd');
  });

  it('a model not configured for that kind is refused, naming the configured ones, and nothing is sent or asked', async () => {
    expect((await call('generate_media', { kind: 'image', prompt: 'a dot', path: 'dot.png', model: 'tts-hd' })).status).toBe('finished');
    expect(toolResult()).toContain('tts-hd is not one of the image models the person set up for the companion (draw-a, draw-b)');
    const outcome = await call('generate_media', { kind: 'audio', prompt: 'Hi.', path: 'hi.mp3', model: 'draw-a' }, 'low-risk');
    expect(outcome.status).toBe('finished'); // refused at the proposal: the person is not asked to approve a call that cannot work
    expect(store.pendingApprovals(outcome.runId)).toHaveLength(0);
    expect(toolResult()).toContain('draw-a is not one of the speech models the person set up for the companion (tts-1, tts-hd)');
    expect(companion.requests).toHaveLength(0);
    expect(companion.audioRequests).toHaveLength(0);
  });

  it('the approval names the chosen model; after approval that model is asked', async () => {
    const outcome = await call('generate_media', { kind: 'audio', prompt: 'Build passed.', path: 'note.mp3', model: 'tts-hd' }, 'low-risk');
    expect(outcome.status).toBe('parked');
    const [ask] = store.pendingApprovals(outcome.runId);
    expect(ask!.preview).toContain('model tts-hd');
    expect(companion.audioRequests).toHaveLength(0);
    await runtime.decideApproval(ask!.id, { approved: true }, { provider: provider(), interactive: false });
    expect(companion.audioRequests.map((r) => r.fields.model)).toEqual(['tts-hd']);
    expect(readFileSync(join(work, 'note.mp3')).equals(SCRIPTED_MP3)).toBe(true);
  });
});
