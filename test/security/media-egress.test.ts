/**
 * Media to third parties (issue 29, mechanism 12): analyze_media and generate_media send a local file or a prompt to
 * the companion provider, so they are high-risk egress with an approval pair. Under every policy below high-risk they
 * ask, with a proposal that names the file (or prompt) and the provider, host and model; the companion server — a
 * scripted model server of its own — receives nothing until the person approves, and nothing when they deny.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { CompanionModel } from '../../src/main/services/media/companion';
import { Store } from '../../src/main/services/store/store';
import type { Policy } from '../../src/shared/tools';
import { SCRIPTED_PNG, reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let agent: ModelServer;
let companion: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;
let dataDir: string;

beforeEach(async () => {
  agent = await startModelServer();
  companion = await startModelServer();
  dataDir = tempDir('deskhand-media-data-');
  work = tempDir('deskhand-media-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  writeFileSync(join(work, 'private.png'), await new Jimp(64, 32, 0x2456c7ff).getBufferAsync(Jimp.MIME_PNG));
  new CompanionModel(dataDir).save({ provider: 'openai-compatible', model: 'vision-third-party', imageModel: 'image-third-party', baseURL: companion.baseURL });
  companion.setFallback(() => reply().text('It is a blue rectangle.'));
});
afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await agent.close();
  await companion.close();
});

const provider = () => ({ provider: 'openai-compatible' as const, model: 'agent', baseURL: agent.baseURL, apiKey: null });
const host = () => new URL(companion.baseURL).host;

const CALLS = [
  { tool: 'analyze_media', args: { path: 'private.png', question: 'What does it show?' }, shows: () => [join(work, 'private.png'), host(), 'vision-third-party', 'What does it show?'] },
  { tool: 'generate_media', args: { prompt: 'a red square', kind: 'image', path: 'made.png' }, shows: () => [host(), 'image-third-party', 'a red square', join(work, 'made.png')] },
] as const;
const BELOW_HIGH: Policy[] = ['none', 'read-only', 'low-risk'];

describe('companion calls ask below high-risk, and send nothing before the approval', () => {
  for (const call of CALLS) {
    it.each(BELOW_HIGH)(`${call.tool} under %s, unattended: parks on an approval whose proposal names what goes where; the companion saw nothing`, async (policy) => {
      agent.enqueue(reply().tool(call.tool, call.args), reply().text('done'));
      const conv = runtime.createConversation({ folder: work, policy });
      const outcome = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
      expect(outcome.status).toBe('parked');
      const [ask] = store.pendingApprovals(outcome.runId);
      expect(ask!.tool).toBe(call.tool);
      const shown = `${ask!.description}\n${ask!.preview ?? ''}`;
      for (const s of call.shows()) expect(shown).toContain(s);
      expect(companion.requests).toHaveLength(0);
      expect(existsSync(join(work, 'made.png'))).toBe(false);
    });
  }

  it.each(CALLS)('$tool denied: the companion never hears of it', async (call) => {
    agent.enqueue(reply().tool(call.tool, call.args), reply().text('ok, not sent'));
    const conv = runtime.createConversation({ folder: work, policy: 'low-risk' });
    const outcome = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    const [ask] = store.pendingApprovals(outcome.runId);
    const after = await runtime.decideApproval(ask!.id, { approved: false }, { provider: provider(), interactive: false });
    expect(after!.status).toBe('finished');
    expect(companion.requests).toHaveLength(0);
    expect(JSON.stringify(agent.requests.at(-1)!.body)).toContain('The person denied this call');
  });

  it('analyze_media approved: then, and only then, the file reaches the companion', async () => {
    agent.enqueue(reply().tool('analyze_media', { path: 'private.png', question: 'What does it show?' }), reply().text('done'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const outcome = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(companion.requests).toHaveLength(0);
    const [ask] = store.pendingApprovals(outcome.runId);
    const after = await runtime.decideApproval(ask!.id, { approved: true }, { provider: provider(), interactive: false });
    expect(after!.status).toBe('finished');
    expect(companion.requests).toHaveLength(1);
    expect(JSON.stringify(companion.requests[0]!.body)).toMatch(/data:image\/png;base64,/);
    expect(JSON.stringify(agent.requests.at(-1)!.body)).toContain('It is a blue rectangle.');
  });

  it('generate_media approved: the prompt goes out and the image is written', async () => {
    agent.enqueue(reply().tool('generate_media', { prompt: 'a red square', kind: 'image', path: 'made.png' }), reply().text('done'));
    const conv = runtime.createConversation({ folder: work, policy: 'low-risk' });
    const outcome = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(companion.requests).toHaveLength(0);
    const [ask] = store.pendingApprovals(outcome.runId);
    await runtime.decideApproval(ask!.id, { approved: true }, { provider: provider(), interactive: false });
    expect(companion.requests.map((r) => r.path)).toEqual(['/v1/images/generations']);
    expect(readFileSync(join(work, 'made.png')).equals(SCRIPTED_PNG)).toBe(true);
  });

  it('the high-risk policy clears them (as it clears every high-risk tool): the call runs unasked', async () => {
    agent.enqueue(reply().tool('analyze_media', { path: 'private.png', question: 'What does it show?' }), reply().text('done'));
    const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
    const outcome = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(companion.requests).toHaveLength(1);
  });
});
