/**
 * Tools on demand through the contract (issue 31): the /tools listing (the same computation `deskhand tools` prints),
 * the family toggles of a conversation and of Settings (proved by the scripted model server's next request), and the
 * system prompt view (the same text as `deskhand prompt show`, with the AGENTS.md it loads).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContractEvent } from '../../src/shared/contract';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { previewConversation } from '../../src/main/host/app/groups/tools';
import { toolListing } from '../../src/main/runtime/prompt/tool-listing';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;

const finished = (runId: string) => (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload.runId === runId && e.payload;
const toolNames = (r: RecordedRequest | undefined): string[] => (r?.protocol === 'openai' ? (r.body.tools ?? []).map((t) => t.function.name) : []);

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-tools-ui-data-');
  work = tempDir('deskhand-tools-ui-work-');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
});

afterEach(async () => {
  h.close();
  await server.close();
});

async function turn(conversationId: string, text = 'hello'): Promise<RecordedRequest> {
  server.enqueue(reply().text('ok'));
  const before = server.requests.length;
  const { runId } = await h.service.sendMessage({ conversationId, text });
  await h.waitFor(finished(runId));
  expect(server.requests.length).toBe(before + 1);
  return server.requests.at(-1)!;
}

describe('/tools through the contract', () => {
  it('lists every callable tool with tier, asks, family and loaded, as deskhand tools computes it', async () => {
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const view = await h.service.getConversationTools({ conversationId: c.id });
    // The one computation both hosts share (the CLI prints toolListing's rows).
    expect(view.tools).toEqual(toolListing(h.runtime.registry, h.store.getConversation(c.id)!).tools);
    const row = (name: string) => view.tools.find((t) => t.name === name);
    expect(row('read_file')).toMatchObject({ family: 'files', tier: 'read-only', asks: 'no', load: 'loaded' });
    expect(row('write_file')).toMatchObject({ family: 'files', asks: 'yes', load: 'loaded' });
    expect(row('browser_navigate')).toMatchObject({ family: 'browser', load: 'off' });
    expect(view.families.find((f) => f.name === 'browser')).toMatchObject({ state: 'off', loads: 'off', loadedTools: 0 });
    expect(view.families.find((f) => f.name === 'memory')).toMatchObject({ state: 'deferred', loads: 'on-demand' });
    expect(view.families.find((f) => f.name === 'files')).toMatchObject({ state: 'default', loads: 'always' });
    // Under a wider policy the same tool no longer asks.
    await h.service.setPolicy({ conversationId: c.id, policy: 'high-risk' });
    expect((await h.service.getConversationTools({ conversationId: c.id })).tools.find((t) => t.name === 'write_file')!.asks).toBe('no');
  });

  it('a family toggled on is in the next model request, and out of it once toggled off', async () => {
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    expect(toolNames(await turn(c.id))).not.toContain('browser_navigate');
    const on = await h.service.setConversationFamilies({ conversationId: c.id, families: ['browser'], enabled: true });
    expect(on.families.find((f) => f.name === 'browser')).toMatchObject({ state: 'enabled' });
    expect(on.tools.find((t) => t.name === 'browser_navigate')!.load).toBe('loaded');
    expect(toolNames(await turn(c.id, 'again'))).toContain('browser_navigate');
    // Persisted: a fresh read of the store says the same.
    expect((await h.service.getConversationTools({ conversationId: c.id })).families.find((f) => f.name === 'browser')!.state).toBe('enabled');
    await h.service.setConversationFamilies({ conversationId: c.id, families: ['browser'], enabled: false });
    expect(toolNames(await turn(c.id, 'and again'))).not.toContain('browser_navigate');
  });

  it('refuses names that are no family or always loaded, saying which families there are', async () => {
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const dispatch = createDispatch(h.service, h.log);
    const cases: [unknown, string][] = [[['browsr'], 'usage'], [['Browser!'], 'invalid_params'], [['../browser'], 'invalid_params'], [['files'], 'usage'], [[], 'invalid_params'], ['browser', 'invalid_params']];
    for (const [families, code] of cases) {
      const r = await dispatch('setConversationFamilies', { conversationId: c.id, families, enabled: true }, { source: 'test', bytes: 100 });
      expect(r, JSON.stringify(families)).toMatchObject({ ok: false, error: { code } });
    }
    // Nothing was turned on by any of them.
    expect((await h.service.getConversationTools({ conversationId: c.id })).families.filter((f) => f.state === 'enabled')).toEqual([]);
    await expect(h.service.setConversationFamilies({ conversationId: c.id, families: ['browsr'], enabled: true })).rejects.toThrow(/unknown tool family "browsr"; families: .*browser/);
    await expect(h.service.setConversationFamilies({ conversationId: c.id, families: ['files'], enabled: true })).rejects.toThrow(/always loaded/);
    await expect(h.service.setConversationFamilies({ conversationId: 'conv_missing', families: ['browser'], enabled: true })).rejects.toThrow(/does not exist/);
  });

  it('Settings → Tools: families saved for new conversations are in a new conversation\'s first request', async () => {
    const view = await h.service.getSettings({});
    await expect(h.service.saveSettings({ ...view.settings, enableFamilies: ['nonsense'] })).rejects.toThrow(/unknown tool family/);
    await h.service.saveSettings({ ...view.settings, enableFamilies: ['computer-use', 'browser'] });
    expect((await h.service.getSettings({})).settings.enableFamilies).toEqual(['computer', 'browser']);
    const before = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const first = toolNames(await turn(before.id));
    expect(first).toContain('browser_navigate');
    expect(first.some((n) => n.startsWith('computer_'))).toBe(true);
    // The header can still turn one off for its conversation.
    await h.service.setConversationFamilies({ conversationId: before.id, families: ['computer'], enabled: false });
    expect(toolNames(await turn(before.id, 'two')).some((n) => n.startsWith('computer_'))).toBe(false);
  });
});

describe('the system prompt view', () => {
  it('shows the prompt deskhand prompt show prints, with the AGENTS.md it loads, for Settings and for a conversation', async () => {
    writeFileSync(join(work, 'AGENTS.md'), 'Always run the linter before you say you are done.\n');
    const settings = (await h.service.getSettings({})).settings;
    await h.service.saveSettings({ ...settings, workspaceFolders: [work], enableFamilies: ['browser'] });
    const preview = await h.service.getSystemPrompt({});
    expect(preview.folder).toBe(work);
    expect(preview.provider).toBe('openai-compatible');
    expect(preview.prompt).toBe(h.runtime.promptFor(previewConversation((await h.service.getSettings({})).settings, work), 'openai-compatible'));
    expect(preview.prompt).toContain('Always run the linter');
    expect(preview.prompt).toContain(join(work, 'AGENTS.md'));
    expect(preview.instructions.files).toEqual([expect.objectContaining({ path: join(work, 'AGENTS.md'), scope: 'workspace', cut: false })]);
    // The families Settings enables are in the preview (browser no longer listed as off).
    expect(preview.families.find((f) => f.name === 'browser')!.state).toBe('enabled');

    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const mine = await h.service.getSystemPrompt({ conversationId: c.id });
    expect(mine.prompt).toBe(h.runtime.promptFor(c.id, 'openai-compatible'));
    // What the model receives is that prompt.
    const sent = await turn(c.id);
    const system = sent.protocol === 'openai' ? sent.body.messages.filter((m) => m.role === 'system').map((m) => m.content) : null;
    expect(JSON.stringify(system)).toContain('Always run the linter');
    expect((await h.service.getConversationTools({ conversationId: c.id })).instructions.files.map((f) => f.path)).toEqual([join(work, 'AGENTS.md')]);
  });
});
