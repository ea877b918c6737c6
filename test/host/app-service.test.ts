/**
 * The app service end to end over the real runtime, store, file tools and the scripted model server: chat, approvals
 * answered while the run waits, deny with a reason the model receives, forged and stale approval ids, restart with a
 * parked run that resumes on approval, stop, settings with keys that never leave main.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { processesWith, until } from '../support/tasks';
import { tempDir } from '../support/tool-context';
import { deadPid, openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;

const approvalsOf = (e: ContractEvent): PendingApproval[] | undefined => (e.event === 'approvalsChanged' && e.payload.approvals.length ? e.payload.approvals : undefined);
const finished = (runId?: string) => (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && (!runId || e.payload.runId === runId) && e.payload;

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-app-data-');
  work = tempDir('deskhand-app-work-');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
});

afterEach(async () => {
  h.close();
  await server.close();
});

describe('conversations', () => {
  it('creates, lists, renames, sets the policy and deletes; folders must be real absolute folders', async () => {
    const c = await h.service.createConversation({ folder: work, policy: 'read-only', title: 'Tidy up' });
    expect(c).toMatchObject({ title: 'Tidy up', folder: work, policy: 'read-only', activity: 'idle', pendingApprovals: 0 });
    await expect(h.service.createConversation({ folder: 'relative/path', policy: 'none' })).rejects.toThrow(/full path/);
    await expect(h.service.createConversation({ folder: join(work, 'missing'), policy: 'none' })).rejects.toThrow(/not an existing folder/);
    await expect(h.service.createConversation({ folder: dataDir, policy: 'none' })).rejects.toThrow(/data folder/);

    expect((await h.service.renameConversation({ conversationId: c.id, title: 'Renamed' })).title).toBe('Renamed');
    expect((await h.service.setPolicy({ conversationId: c.id, policy: 'high-risk' })).policy).toBe('high-risk');
    expect((await h.service.listConversations()).conversations.map((x) => x.title)).toEqual(['Renamed']);
    await h.waitFor((e) => e.event === 'conversationsChanged' && e.payload.conversations[0]?.title === 'Renamed');

    await h.service.deleteConversation({ conversationId: c.id });
    expect((await h.service.listConversations()).conversations).toEqual([]);
    await expect(h.service.getMessages({ conversationId: c.id })).rejects.toThrow(/does not exist/);
  });
});

describe('deleting a conversation', () => {
  it('ends its live background command first: the process is gone when the call returns', async () => {
    const tag = `713.${Math.floor(Math.random() * 1e6)}`;
    server.enqueue(reply().tool('execute_command', { command: `sleep ${tag}`, run_in_background: true, description: 'long sleep' }), reply().text('Started.'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'start it' });
    await h.waitFor(finished(runId));
    await until(() => processesWith(`sleep ${tag}`).length > 0, 'the background sleep (and the sandbox around it)');
    const [task] = h.runtime.tasks.list(c.id);
    expect(task).toMatchObject({ status: 'running' });
    await h.service.deleteConversation({ conversationId: c.id });
    expect(processesWith(`sleep ${tag}`)).toEqual([]);
    expect(h.runtime.tasks.rows.getTask(task!.id)).toBeFalsy(); // its row went with the conversation
    await expect(h.service.getMessages({ conversationId: c.id })).rejects.toThrow(/does not exist/);
  });
});

describe('runs and approvals', () => {
  it('streams text and projects the transcript for the renderer', async () => {
    server.enqueue(reply().text('Hello ').text('**there**.'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'hi' });
    await h.waitFor(finished(runId));
    const texts = h.events.flatMap((e) => (e.event === 'run' && e.payload.type === 'text' ? [e.payload.delta] : []));
    expect(texts).toEqual(['Hello ', '**there**.']);
    const { items, conversation, activeRun } = await h.service.getMessages({ conversationId: c.id });
    expect(activeRun).toBeNull();
    expect(conversation.title).toBe('hi');
    expect(items.map((i) => [i.kind, 'text' in i ? i.text : ''])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello **there**.'],
    ]);
  });

  it('asks before a write, shows the diff, writes on approval while the run waits, and shows the result', async () => {
    server.enqueue(reply().text('Writing.').tool('write_file', { path: 'notes.txt', content: 'one\ntwo\n' }));
    server.enqueue(reply().text('Done.'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'write notes' });
    const [approval] = await h.waitFor(approvalsOf);
    expect(approval).toMatchObject({ tool: 'write_file', risk: 'high-risk', runStatus: 'running', conversationId: c.id, args: { path: 'notes.txt', content: 'one\ntwo\n' } });
    expect(approval!.preview).toContain('+++ b/notes.txt');
    expect(approval!.preview).toContain('+one');
    expect(approval!.reasons.join(' ')).toMatch(/does not clear high-risk/);
    expect(existsSync(join(work, 'notes.txt'))).toBe(false);
    expect((await h.service.listConversations()).conversations[0]).toMatchObject({ activity: 'waiting', pendingApprovals: 1 });

    const waiting = await h.service.getMessages({ conversationId: c.id });
    expect(waiting.items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'awaiting_approval', approvalId: approval!.approvalId });

    expect(await h.service.decideApproval({ approvalId: approval!.approvalId, decision: 'approve' })).toEqual({ decision: 'approved', resumed: false });
    await h.waitFor(finished(runId));
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    const { items } = await h.service.getMessages({ conversationId: c.id });
    const tool = items.find((i) => i.kind === 'tool');
    expect(tool).toMatchObject({ tool: 'write_file', status: 'ok', approvalId: null });
    expect(tool && tool.kind === 'tool' ? tool.output : '').toMatch(/Created notes.txt/);
    expect(items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Done.' });
    expect((await h.service.listPendingApprovals({})).approvals).toEqual([]);
  });

  it('denies with a reason the model receives', async () => {
    server.enqueue(reply().tool('write_file', { path: 'x.txt', content: 'x' }));
    server.enqueue(reply().text('Understood.'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'write x' });
    const [approval] = await h.waitFor(approvalsOf);
    await h.service.decideApproval({ approvalId: approval!.approvalId, decision: 'deny', reason: 'not in this folder, use docs/' });
    await h.waitFor(finished(runId));
    expect(existsSync(join(work, 'x.txt'))).toBe(false);
    expect(JSON.stringify(server.requests[1]!.body)).toContain('not in this folder, use docs/');
    const tool = (await h.service.getMessages({ conversationId: c.id })).items.find((i) => i.kind === 'tool');
    expect(tool).toMatchObject({ status: 'denied' });
  });

  it('rejects forged, stale and malformed approval ids, logs them, and acts on none', async () => {
    server.enqueue(reply().tool('write_file', { path: 'y.txt', content: 'y' }));
    server.enqueue(reply().text('ok'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'write y' });
    const [approval] = await h.waitFor(approvalsOf);
    const dispatch = createDispatch(h.service, h.log);

    const forged = await dispatch('decideApproval', { approvalId: 'apr_00000000-0000-4000-8000-000000000000', decision: 'approve' }, { source: 'test', bytes: 100 });
    expect(forged).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const malformed = await dispatch('decideApproval', { approvalId: `${approval!.approvalId}' OR 1=1`, decision: 'approve' }, { source: 'test', bytes: 100 });
    expect(malformed).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    const wrongShape = await dispatch('decideApproval', { approvalId: approval!.approvalId, decision: 'yes please' }, { source: 'test', bytes: 100 });
    expect(wrongShape).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(existsSync(join(work, 'y.txt'))).toBe(false);
    expect(h.store.getApproval(approval!.approvalId)?.status).toBe('pending');

    const ok = await dispatch('decideApproval', { approvalId: approval!.approvalId, decision: 'approve' }, { source: 'test', bytes: 100 });
    expect(ok).toEqual({ ok: true, result: { decision: 'approved', resumed: false } });
    await h.waitFor(finished(runId));
    const stale = await dispatch('decideApproval', { approvalId: approval!.approvalId, decision: 'deny' }, { source: 'test', bytes: 100 });
    expect(stale).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(h.store.getApproval(approval!.approvalId)?.status).toBe('approved');
    expect(h.log.text()).toMatch(/forged/);
    expect(h.log.text()).toMatch(/stale/);
    expect(h.log.text()).toMatch(/rejected request from test: Invalid params for decideApproval/);
  });

  it('saves an "always allow" rule only when one may be saved', async () => {
    server.enqueue(reply().tool('write_file', { path: 'a.txt', content: 'a' }));
    server.enqueue(reply().text('ok'));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'write a' });
    const [approval] = await h.waitFor(approvalsOf);
    expect(approval!.alwaysPattern).toBeTruthy();
    await h.service.decideApproval({ approvalId: approval!.approvalId, decision: 'always' });
    await h.waitFor(finished(runId));
    expect(h.store.listRules()).toEqual([expect.objectContaining({ tool: 'write_file', pattern: approval!.alwaysPattern })]);
  });

  it('stops a run that is streaming', async () => {
    server.enqueue(reply().hang());
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'wait forever' });
    await expect(h.service.sendMessage({ conversationId: c.id, text: 'again' })).rejects.toThrow(/already working/);
    expect(await h.service.stopRun({ conversationId: c.id })).toEqual({ stopped: true });
    expect(await h.waitFor(finished(runId))).toMatchObject({ status: 'aborted' });
    expect(await h.service.stopRun({ conversationId: c.id })).toEqual({ stopped: false });
  });

  it('after a restart lists the pending approval of the interrupted run as parked; approving it resumes the run', async () => {
    server.enqueue(reply().text('Let me write.').tool('write_file', { path: 'later.txt', content: 'later\n' }));
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'write later' });
    const [approval] = await h.waitFor(approvalsOf);

    // The host dies while the run waits: nothing is aborted, the run's owner is gone.
    h.store.updateRun(runId, { owner_pid: deadPid() });
    h.close();

    h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
    expect((await h.service.listConversations()).conversations).toEqual([expect.objectContaining({ id: c.id, activity: 'waiting', pendingApprovals: 1 })]);
    const pending = (await h.service.listPendingApprovals({})).approvals;
    expect(pending).toEqual([expect.objectContaining({ approvalId: approval!.approvalId, runStatus: 'parked' })]);
    const before = await h.service.getMessages({ conversationId: c.id });
    expect(before.activeRun).toEqual({ runId, status: 'parked' });
    expect(before.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool']);

    server.enqueue(reply().text('Resumed and done.'));
    expect(await h.service.decideApproval({ approvalId: approval!.approvalId, decision: 'approve' })).toEqual({ decision: 'approved', resumed: true });
    expect(await h.waitFor(finished(runId))).toMatchObject({ status: 'finished' });
    expect(readFileSync(join(work, 'later.txt'), 'utf8')).toBe('later\n');
    expect((await h.service.getMessages({ conversationId: c.id })).items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Resumed and done.' });
  });

  it('refuses to start a run when no provider is ready, with a message that says where to fix it', async () => {
    h.close();
    h = openHarness({ dataDir, override: null });
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    await h.service.saveSettings({
      activeProvider: 'anthropic',
      providers: {
        anthropic: { model: 'claude-test', baseURL: server.baseURL },
        openai: { model: 'gpt-test', baseURL: null },
        'openai-compatible': { model: 'x', baseURL: 'http://127.0.0.1:11434/v1' },
      },
      defaultPolicy: 'read-only',
    });
    await expect(h.service.sendMessage({ conversationId: c.id, text: 'hi' })).rejects.toThrow(/No API key for Anthropic\. Open Settings → Providers/);
    expect(h.store.listMessages(c.id)).toEqual([]);

    // With a key in the (test) keyring, the run uses it.
    await h.service.setApiKey({ provider: 'anthropic', key: 'sk-ant-from-keyring' });
    server.enqueue(reply().text('hello from anthropic'));
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'hi' });
    await h.waitFor(finished(runId));
    expect(server.requests.at(-1)).toMatchObject({ protocol: 'anthropic', headers: { 'x-api-key': 'sk-ant-from-keyring' } });
  });
});

describe('settings and keys', () => {
  it('keeps keys in the secret store and only ever reports whether one is set', async () => {
    h.close();
    h = openHarness({ dataDir, override: null, env: { OPENAI_API_KEY: 'sk-env-secret' } });
    const view = await h.service.getSettings({});
    expect(view.keys).toEqual({
      anthropic: { set: false, source: null },
      openai: { set: true, source: 'env' },
      'openai-compatible': { set: false, source: null },
    });
    expect(view.settings.activeProvider).toBe('openai');
    const after = await h.service.setApiKey({ provider: 'anthropic', key: 'sk-ant-very-secret' });
    expect(after.keys.anthropic).toEqual({ set: true, source: 'keyring' });
    expect(await h.secrets.get('apiKey.anthropic')).toBe('sk-ant-very-secret');
    for (const v of [view, after, await h.service.getSettings({})]) {
      expect(JSON.stringify(v)).not.toContain('secret');
    }
    expect((await h.service.clearApiKey({ provider: 'anthropic' })).keys.anthropic).toEqual({ set: false, source: null });
    expect(await h.secrets.list()).toEqual([]);

    const saved = await h.service.saveSettings({ ...view.settings, defaultPolicy: 'low-risk' });
    expect(saved.settings.defaultPolicy).toBe('low-risk');
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ defaultPolicy: 'low-risk' });
    await expect(
      h.service.saveSettings({ ...view.settings, activeProvider: 'openai-compatible', providers: { ...view.settings.providers, 'openai-compatible': { model: 'x', baseURL: null } } }),
    ).rejects.toThrow(/needs a base URL/);
  });

  it('a fallback model saved in Settings → Providers takes over when the provider is overloaded; the run names it', async () => {
    h.close();
    h = openHarness({ dataDir, override: null, env: { OPENAI_API_KEY: 'sk-env' } });
    const view = await h.service.getSettings({});
    await h.service.saveSettings({ ...view.settings, activeProvider: 'openai', providers: { ...view.settings.providers, openai: { model: 'gpt-main', baseURL: server.baseURL, fallbackModel: 'gpt-small' } } });
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).providers.openai).toEqual({ model: 'gpt-main', baseURL: server.baseURL, fallbackModel: 'gpt-small' });
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().status(529, { retryAfterSeconds: 0 }), reply().text('from the fallback'));
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'hi' });
    expect(await h.waitFor(finished(runId))).toMatchObject({ status: 'finished' });
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual(['gpt-main', 'gpt-small']);
    expect(h.store.getRun(runId)!.model).toBe('gpt-small');
    // Cleared (an empty field saves null): overload is retried on the main model.
    await h.service.saveSettings({ ...view.settings, activeProvider: 'openai', providers: { ...view.settings.providers, openai: { model: 'gpt-main', baseURL: server.baseURL, fallbackModel: null } } });
    server.enqueue(reply().status(529, { retryAfterSeconds: 0 }), reply().text('main again'));
    const second = await h.service.sendMessage({ conversationId: c.id, text: 'again' });
    await h.waitFor(finished(second.runId));
    expect(server.requests.slice(2).map((r) => (r.body as { model: string }).model)).toEqual(['gpt-main', 'gpt-main']);
  });

  it('sends the thinking setting saved for the provider, and a budget as Anthropic\'s budget_tokens', async () => {
    h.close();
    h = openHarness({ dataDir, override: null, env: { ANTHROPIC_API_KEY: 'sk-ant-env' } });
    const view = await h.service.getSettings({});
    await h.service.saveSettings({ ...view.settings, activeProvider: 'anthropic', providers: { ...view.settings.providers, anthropic: { model: 'claude-test', baseURL: server.baseURL, thinking: 'high' } } });
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).providers.anthropic).toMatchObject({ thinking: 'high' });
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().text('thought hard'), reply().text('with a budget'));
    const first = await h.service.sendMessage({ conversationId: c.id, text: 'hi' });
    await h.waitFor(finished(first.runId));
    expect(server.requests.at(-1)!.body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    await h.service.saveSettings({ ...view.settings, activeProvider: 'anthropic', providers: { ...view.settings.providers, anthropic: { model: 'claude-test', baseURL: server.baseURL, thinking: 8000 } } });
    const second = await h.service.sendMessage({ conversationId: c.id, text: 'again' });
    await h.waitFor(finished(second.runId));
    expect(server.requests.at(-1)!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 8000 } });
  });

  it('falls back to defaults when settings.json is damaged', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), '{ not json');
    expect((await h.service.getSettings({})).settings.defaultPolicy).toBe('read-only');
  });
});
