/**
 * Settings → Providers → OpenAI → API (issue 48 item 2): the saved `openaiApi` picks OpenAI's wire for new runs
 * (Responses: POST /v1/responses; cleared: Chat Completions).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractEvent } from '../../src/shared/contract';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;
const finished = (runId: string) => (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload.runId === runId && e.payload;

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-openai-api-data-');
  work = tempDir('deskhand-openai-api-work-');
  h = openHarness({ dataDir, override: null, env: { OPENAI_API_KEY: 'sk-env' } });
});

afterEach(async () => {
  h.close();
  await server.close();
});

describe('the OpenAI API setting', () => {
  it('saved as responses, new runs speak the Responses wire; cleared, Chat Completions again', async () => {
    const view = await h.service.getSettings({});
    const save = (openaiApi: 'responses' | null) =>
      h.service.saveSettings({ ...view.settings, activeProvider: 'openai', providers: { ...view.settings.providers, openai: { model: 'gpt-5', baseURL: server.baseURL, openaiApi } } });
    await save('responses');
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).providers.openai).toMatchObject({ openaiApi: 'responses' });
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().thinking('hm').text('on responses'), reply().text('on chat'));
    const first = await h.service.sendMessage({ conversationId: c.id, text: 'hi' });
    expect(await h.waitFor(finished(first.runId))).toMatchObject({ status: 'finished' });
    await save(null);
    const second = await h.service.sendMessage({ conversationId: c.id, text: 'again' });
    expect(await h.waitFor(finished(second.runId))).toMatchObject({ status: 'finished' });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/chat/completions']);
    expect(server.refused).toEqual([]);
  });
});
