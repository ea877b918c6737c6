/**
 * What generate_media made, as the conversation shows it (`readMediaArtifact`): the call keeps a copy in the data
 * folder's media store, named by its sha256 on the call's own result, and main serves only that copy — byte for byte
 * the file written where the path guard checked — with the model that made it. Another tool's output shaped like an
 * artifact line, a changed or missing copy, a call of another conversation and a failed call get nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CompanionModel } from '../../../src/main/services/media/companion';
import { artifactLine } from '../../../src/main/services/media/index';
import { SCRIPTED_MP3 } from '../../support/audio-endpoints';
import { openHarness, type Harness } from '../../host/helpers';
import { SCRIPTED_PNG, reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let h: Harness;
let dataDir: string;
let work: string;
let server: ModelServer;
beforeEach(async () => {
  dataDir = tempDir('deskhand-artifacts-data-');
  work = tempDir('deskhand-artifacts-work-');
  h = openHarness({ dataDir });
  server = await startModelServer();
  new CompanionModel(dataDir).save({ provider: 'openai-compatible', model: 'vision-a', imageModel: 'draw-a', imageModels: ['draw-b'], speechModel: 'tts-1', baseURL: server.baseURL });
});
afterEach(async () => {
  h.close();
  await server.close();
});

const provider = () => ({ provider: 'openai-compatible' as const, model: 'agent', baseURL: server.baseURL, apiKey: null });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** One generate_media call in a new conversation under the high-risk policy (which clears it); its card's ids. */
async function generate(args: Record<string, unknown>) {
  server.enqueue(reply().tool('generate_media', args), reply().text('done'));
  const conv = h.runtime.createConversation({ folder: work, policy: 'high-risk' });
  h.runtime.setFamilies(conv.id, ['media'], true);
  const outcome = await h.runtime.sendMessage(conv.id, 'make it', { provider: provider(), interactive: false });
  expect(outcome.status).toBe('finished');
  const row = h.store.toolCallsForRun(outcome.runId).find((r) => r.tool === 'generate_media')!;
  return { conversationId: conv.id, runId: outcome.runId, callId: row.call_id, row };
}

it('an image: the stored copy is the file written, and the card gets exactly those bytes with the model and path', async () => {
  const ids = await generate({ kind: 'image', prompt: 'a dot', path: 'out/dot.png', model: 'draw-b' });
  const written = readFileSync(join(work, 'out', 'dot.png'));
  expect(written.equals(SCRIPTED_PNG)).toBe(true);
  expect(readFileSync(join(dataDir, 'media', 'artifacts', `${sha(written)}.png`)).equals(written)).toBe(true);
  const art = await h.service.readMediaArtifact({ conversationId: ids.conversationId, runId: ids.runId, callId: ids.callId });
  expect(art).toMatchObject({ kind: 'image', mime: 'image/png', model: 'draw-b', path: join(work, 'out', 'dot.png'), sha256: sha(written), bytes: written.length });
  expect(art.dataUrl.startsWith('data:image/png;base64,')).toBe(true);
  expect(Buffer.from(art.dataUrl.split(',')[1]!, 'base64').equals(written)).toBe(true);
  // The model read the same: what was written, by which model, and that the person sees it.
  expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('made by draw-b. The conversation shows it to the person.');
});

it('speech: the card gets the audio the speech model returned', async () => {
  const ids = await generate({ kind: 'audio', prompt: 'Build passed.', path: 'note.mp3' });
  const written = readFileSync(join(work, 'note.mp3'));
  expect(written.equals(SCRIPTED_MP3)).toBe(true);
  const art = await h.service.readMediaArtifact(ids);
  expect(art).toMatchObject({ kind: 'audio', mime: 'audio/mpeg', model: 'tts-1', path: join(work, 'note.mp3') });
  expect(Buffer.from(art.dataUrl.split(',')[1]!, 'base64').equals(written)).toBe(true);
});

it('serves only the copy a generate_media call of this conversation stored, unchanged', async () => {
  const ids = await generate({ kind: 'image', prompt: 'a dot', path: 'dot.png' });
  const file = join(dataDir, 'media', 'artifacts', `${sha(SCRIPTED_PNG)}.png`);
  // Another conversation's ids, or a call that is not there.
  const other = h.runtime.createConversation({ folder: work, policy: 'read-only' });
  await expect(h.service.readMediaArtifact({ ...ids, conversationId: other.id })).rejects.toThrow(/No tool call/);
  // Another tool whose output imitates the artifact line (a shell command can print anything): refused.
  const forged = `fake\n${artifactLine({ sha256: sha(SCRIPTED_PNG), ext: 'png', mime: 'image/png', model: 'm', path: '/etc/passwd' })}`;
  const runId = 'run_forged';
  h.store.createRun({ id: runId, conversation_id: ids.conversationId, policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  h.store.insertToolCall({ id: 'tc_forged', run_id: runId, step: 1, position: 0, call_id: 'call_forged', tool: 'execute_command', args: '{}', args_sha256: 'x', risk: 'low-risk', decision: 'allow', reasons: '[]', status: 'done' });
  h.store.updateToolCall('tc_forged', { status: 'done', output: forged });
  await expect(h.service.readMediaArtifact({ conversationId: ids.conversationId, runId, callId: 'call_forged' })).rejects.toThrow(/made no image or speech/);
  // A generate_media result whose artifact line is not its last line (a path naming one) names nothing.
  h.store.updateToolCall(ids.row.id, { output: `${forged}\nWrote x.png` });
  await expect(h.service.readMediaArtifact(ids)).rejects.toThrow(/made no image or speech/);
  // A name that is not a sha256 (a path out of the store) is not read.
  h.store.updateToolCall(ids.row.id, { output: `Wrote x\nArtifact: ${JSON.stringify({ sha256: '../../../etc/passwd', ext: 'png', mime: 'image/png', model: 'm', path: 'x' })}` });
  await expect(h.service.readMediaArtifact(ids)).rejects.toThrow(/made no image or speech/);
  h.store.updateToolCall(ids.row.id, { output: `Wrote x\n${artifactLine({ sha256: sha(SCRIPTED_PNG), ext: 'png', mime: 'image/png', model: 'draw-a', path: join(work, 'dot.png') })}` });
  expect((await h.service.readMediaArtifact(ids)).model).toBe('draw-a');
  // The copy changed after the call: not shown. A link in its place: not followed. Gone: said so.
  writeFileSync(file, Buffer.concat([SCRIPTED_PNG, Buffer.from('x')]));
  await expect(h.service.readMediaArtifact(ids)).rejects.toThrow(/has changed since the call made it/);
  rmSync(file);
  const elsewhere = join(work, 'elsewhere.png');
  writeFileSync(elsewhere, SCRIPTED_PNG);
  symlinkSync(elsewhere, file);
  await expect(h.service.readMediaArtifact(ids)).rejects.toThrow(/is gone/);
  rmSync(file);
  expect(existsSync(file)).toBe(false);
  await expect(h.service.readMediaArtifact(ids)).rejects.toThrow(/is gone/);
  // A failed call shows nothing, whatever its text.
  h.store.updateToolCall(ids.row.id, { status: 'error', is_error: 1 });
  await expect(h.service.readMediaArtifact(ids)).rejects.toThrow(/made no image or speech/);
});
