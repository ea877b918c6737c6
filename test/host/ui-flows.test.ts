/**
 * What the UI gaps need from main, over the real runtime, store, tools and the scripted model server: a secret typed
 * into the hidden field (provideSecret) that never comes back over the WebSocket; wake-up turns that count as this
 * host's runs (running, Stop, no second run) and are projected as what they are; stopping a parked run; the todo list
 * as a projection and an event; first run, local model servers and the connection test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { ContractEvent, MessageItem, PendingApproval } from '../../src/shared/contract';
import { startWebHost, type ServerMessage, type WebHost } from '../../src/main/host/web/web-host';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;

const scripted = () => ({ provider: 'openai-compatible' as const, model: 'scripted', baseURL: server.baseURL, apiKey: null });
const approvalsOf = (e: ContractEvent): PendingApproval[] | undefined => (e.event === 'approvalsChanged' && e.payload.approvals.length ? e.payload.approvals : undefined);
const finished = (runId?: string) => (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && (!runId || e.payload.runId === runId) && e.payload;

beforeEach(async () => {
  server = await startModelServer({ models: ['scripted', 'scripted-large'] });
  dataDir = tempDir('deskhand-ui-data-');
  work = tempDir('deskhand-ui-work-');
  h = openHarness({ dataDir, override: scripted(), vault: true });
});

afterEach(async () => {
  await h.service.shutdown();
  h.close();
  await server.close();
});

/** A WebSocket client of the web host that keeps every message it receives. */
async function wsClient(host: WebHost) {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/${host.token}/ws`, { headers: { origin: `http://127.0.0.1:${host.port}` } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const raw: string[] = [];
  const messages: ServerMessage[] = [];
  ws.on('message', (data: Buffer) => {
    raw.push(data.toString());
    messages.push(JSON.parse(data.toString()) as ServerMessage);
  });
  let id = 0;
  return {
    raw,
    messages,
    events: () => messages.flatMap((m) => (m.t === 'events' ? m.events : [])),
    async call(method: string, params: unknown): Promise<Extract<ServerMessage, { t: 'reply' }>> {
      const n = ++id;
      ws.send(JSON.stringify({ id: n, method, params }));
      let found: Extract<ServerMessage, { t: 'reply' }> | undefined;
      await until(() => !!(found = messages.find((m): m is Extract<ServerMessage, { t: 'reply' }> => m.t === 'reply' && m.id === n)), `reply to ${method}`);
      return found!;
    },
    close: () => ws.close(),
  };
}

describe('secrets typed in the UI', () => {
  it('takes the value through provideSecret, keeps it in the vault, and never sends it back to the UI or the model', async () => {
    const VALUE = `ui-secret-${Math.random().toString(36).slice(2)}-value`;
    const renderer = tempDir('deskhand-ui-renderer-');
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Deskhand</title>');
    const host = await startWebHost({ service: h.service, rendererDir: renderer, log: h.log });
    const c = await wsClient(host);
    try {
      server.enqueue(
        reply().tool('ask_user_secret', { name: 'UI_TOKEN', description: 'token for the deploy', prompt: 'Paste the deploy token' }),
        reply().tool('execute_command', { command: 'echo "token=[redacted:UI_TOKEN]"' }),
        reply().text('The command ran.'),
      );
      const created = await c.call('createConversation', { folder: work, policy: 'read-only' });
      const conversationId = (created as { result: { id: string } }).result.id;
      const sent = await c.call('sendMessage', { conversationId, text: 'deploy with the token' });
      expect(sent).toMatchObject({ ok: true });

      const [request] = await h.waitFor(approvalsOf);
      expect(request).toMatchObject({
        tool: 'ask_user_secret',
        kind: 'secret',
        runStatus: 'running',
        secret: { name: 'UI_TOKEN', description: 'token for the deploy', prompt: 'Paste the deploy token' },
        alwaysPattern: null,
      });
      // A plain approve is not an answer; an empty value is not a secret.
      expect(await c.call('decideApproval', { approvalId: request!.approvalId, decision: 'approve' })).toMatchObject({ ok: false, error: { code: 'usage', message: /type it in the hidden field/ } });
      expect(await c.call('provideSecret', { approvalId: request!.approvalId, value: '' })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
      expect(h.store.getApproval(request!.approvalId)!.status).toBe('pending');

      const from = c.raw.length;
      expect(await c.call('provideSecret', { approvalId: request!.approvalId, value: VALUE })).toEqual({ t: 'reply', id: expect.any(Number), ok: true, result: { resumed: false } });
      expect(await h.secrets.get('secret.UI_TOKEN')).toBe(VALUE);

      // The command that uses it asks; approving it runs it with the value put in.
      const command = await until(() => h.store.pendingApprovals().find((a) => a.tool === 'execute_command'), 'the command approval');
      expect(command.preview ?? command.description).toContain('[redacted:UI_TOKEN]');
      expect(await c.call('decideApproval', { approvalId: command.id, decision: 'approve' })).toMatchObject({ ok: true });
      await until(() => c.events().some((e) => e.event === 'run' && e.payload.type === 'run.finished'), 'the run to finish');
      // Once more, for every projection the UI reads.
      for (const [method, params] of [
        ['getMessages', { conversationId }],
        ['listPendingApprovals', {}],
        ['listConversations', {}],
        ['getTodos', { conversationId }],
        ['listBackgroundTasks', { conversationId }],
        ['getSettings', {}],
      ] as const) {
        expect(await c.call(method, params)).toMatchObject({ ok: true });
      }

      const result = c.events().find((e) => e.event === 'run' && e.payload.type === 'tool.result' && e.payload.tool === 'execute_command');
      expect(JSON.stringify(result)).toContain('token=[redacted:UI_TOKEN]');
      const after = c.raw.slice(from);
      expect(after.length).toBeGreaterThan(10);
      for (const [i, text] of after.entries()) expect(text.includes(VALUE), `message ${i} after providing contains the secret`).toBe(false);
      expect(c.raw.join('\n')).not.toContain(VALUE);
      for (const r of server.requests) expect(JSON.stringify(r.body)).not.toContain(VALUE);
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('token=[redacted:UI_TOKEN]');
      expect(h.log.text()).not.toContain(VALUE);
    } finally {
      c.close();
      await host.close();
    }
  });

  it('a secret typed for a parked run resumes it; provideSecret refuses plain approvals and answered requests', async () => {
    server.enqueue(reply().tool('ask_user_secret', { name: 'PARKED_TOKEN', description: 'for later' }));
    const conv = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const parked = await h.runtime.sendMessage(conv.id, 'ask me later', { provider: scripted(), interactive: false });
    expect(parked.status).toBe('parked');
    const [approval] = (await h.service.listPendingApprovals({})).approvals;
    expect(approval).toMatchObject({ kind: 'secret', runStatus: 'parked', secret: { name: 'PARKED_TOKEN', description: 'for later', prompt: 'Enter PARKED_TOKEN (for later)' } });

    server.enqueue(reply().text('Got it.'));
    expect(await h.service.provideSecret({ approvalId: approval!.approvalId, value: 'parked-value-123' })).toEqual({ resumed: true });
    expect(await h.waitFor(finished(parked.runId))).toMatchObject({ status: 'finished' });
    expect(await h.secrets.get('secret.PARKED_TOKEN')).toBe('parked-value-123');
    await expect(h.service.provideSecret({ approvalId: approval!.approvalId, value: 'again' })).rejects.toThrow(/already approved/);

    server.enqueue(reply().tool('write_file', { path: 'a.txt', content: 'a' }), reply().text('ok'));
    const { runId } = await h.service.sendMessage({ conversationId: conv.id, text: 'write a' });
    const [write] = await h.waitFor(approvalsOf);
    expect(write).toMatchObject({ kind: 'approval', secret: null });
    await expect(h.service.provideSecret({ approvalId: write!.approvalId, value: 'x' })).rejects.toThrow(/does not ask for a secret/);
    await h.service.decideApproval({ approvalId: write!.approvalId, decision: 'deny' });
    await h.waitFor(finished(runId));
  });

  it('a use_saved_secret approval names the secret it would use', async () => {
    await h.runtime.vault!.set('SAVED_TOKEN', 'saved-value-456', 'the saved deploy token');
    server.enqueue(reply().tool('use_saved_secret', { name: 'SAVED_TOKEN' }));
    const conv = await h.service.createConversation({ folder: work, policy: 'high-risk' });
    await h.runtime.sendMessage(conv.id, 'use it', { provider: scripted(), interactive: false });
    const [approval] = (await h.service.listPendingApprovals({})).approvals;
    expect(approval).toMatchObject({ tool: 'use_saved_secret', kind: 'approval', secret: { name: 'SAVED_TOKEN', description: 'the saved deploy token', prompt: null } });
    expect(JSON.stringify(approval)).not.toContain('saved-value-456');
  });
});

describe('wake-up turns', () => {
  it('are this host\'s runs: running in the list, projected as a wake item, a second message refused, Stop stops them', async () => {
    server.enqueue(reply().tool('execute_command', { command: 'sleep 0.4; echo wake-output-7', run_in_background: true, description: 'short job' }), reply().text('Started.'));
    const conv = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: conv.id, text: 'start it' });
    await h.waitFor(finished(runId));

    // The task ends; the conversation is woken, and that turn hangs at the model.
    server.enqueue(reply().hang());
    const wake = await h.waitFor((e) => e.event === 'run' && e.payload.type === 'run.started' && e.payload.runId !== runId && e.payload, 15_000);
    await until(() => server.requests.length === 3, 'the wake-up model request', 10_000);
    expect((await h.service.listConversations()).conversations[0]).toMatchObject({ id: conv.id, activity: 'running' });
    await h.waitFor((e) => e.event === 'conversationsChanged' && e.payload.conversations[0]?.activity === 'running');

    const { items, activeRun } = await h.service.getMessages({ conversationId: conv.id });
    expect(activeRun).toEqual({ runId: wake.runId, status: 'running' });
    expect(items.map((i) => i.kind)).toEqual(['user', 'tool', 'assistant', 'wake']);
    const item = items.at(-1) as Extract<MessageItem, { kind: 'wake' }>;
    expect(item.tasks).toEqual([
      { id: expect.stringMatching(/^cmd_[0-9a-f]{8}$/), kind: 'command', headline: 'Background task finished', title: 'short job', output: expect.stringContaining('wake-output-7'), notice: null },
    ]);
    expect(item.tasks[0]!.output).not.toContain('<untrusted');
    // The person's own words stay "user" even when they look like a wake-up header.
    expect(items[0]).toMatchObject({ kind: 'user', text: 'start it' });

    await expect(h.service.sendMessage({ conversationId: conv.id, text: 'meanwhile' })).rejects.toThrow(/already working/);
    expect(await h.service.stopRun({ conversationId: conv.id })).toEqual({ stopped: true });
    expect(await h.waitFor(finished(wake.runId))).toMatchObject({ status: 'aborted' });
    await until(async () => (await h.service.listConversations()).conversations[0]?.activity === 'idle', 'the conversation to be idle');

    server.enqueue(reply().text('Now then.'));
    const next = await h.service.sendMessage({ conversationId: conv.id, text: 'meanwhile' });
    expect(await h.waitFor(finished(next.runId))).toMatchObject({ status: 'finished' });
  });
});

describe('stopping a parked run', () => {
  it('expires its approvals, does not run its calls, and ends it as stopped', async () => {
    server.enqueue(reply().text('Writing.').tool('write_file', { path: 'parked.txt', content: 'p\n' }));
    const conv = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const parked = await h.runtime.sendMessage(conv.id, 'write it', { provider: scripted(), interactive: false });
    expect(parked.status).toBe('parked');
    expect((await h.service.getMessages({ conversationId: conv.id })).activeRun).toEqual({ runId: parked.runId, status: 'parked' });

    await expect(h.service.stopParkedRun({ conversationId: conv.id, runId: 'run_other' })).rejects.toThrow(/not part of this conversation/);
    expect(await h.service.stopParkedRun({ conversationId: conv.id, runId: parked.runId })).toEqual({ stopped: true });
    expect(await h.waitFor(finished(parked.runId))).toMatchObject({ status: 'aborted' });
    expect(h.store.getApproval(parked.approvalIds[0]!)!.status).toBe('expired');
    expect((await h.service.listPendingApprovals({})).approvals).toEqual([]);
    const after = await h.service.getMessages({ conversationId: conv.id });
    expect(after.activeRun).toBeNull();
    expect(after.items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'interrupted', output: 'Not run: the person stopped the run.' });
    expect(after.items.at(-1)).toMatchObject({ kind: 'error', severity: 'notice', text: 'Stopped by the person.' });
    expect(existsSync(join(work, 'parked.txt'))).toBe(false);
    await h.waitFor((e) => e.event === 'conversationsChanged' && e.payload.conversations[0]?.activity === 'idle');
    expect(await h.service.stopParkedRun({ conversationId: conv.id, runId: parked.runId })).toEqual({ stopped: false });
  });
});

describe('todos', () => {
  it('projects the todo list and publishes it when manage_todos changes it', async () => {
    const conv = await h.service.createConversation({ folder: work, policy: 'read-only' });
    expect(await h.service.getTodos({ conversationId: conv.id })).toEqual({ todos: [] });
    server.enqueue(
      reply().tool('manage_todos', {
        todos: [
          { title: 'Read the config', status: 'done' },
          { title: 'Fix the parser', status: 'in_progress', priority: 'high' },
          { title: 'Write tests', status: 'pending' },
        ],
      }),
      reply().text('Planned.'),
    );
    const { runId } = await h.service.sendMessage({ conversationId: conv.id, text: 'plan it' });
    const changed = await h.waitFor((e) => e.event === 'todosChanged' && e.payload);
    const expected = [
      { id: 't1', title: 'Read the config', status: 'done', priority: null },
      { id: 't2', title: 'Fix the parser', status: 'in_progress', priority: 'high' },
      { id: 't3', title: 'Write tests', status: 'pending', priority: null },
    ];
    expect(changed).toEqual({ conversationId: conv.id, todos: expected });
    await h.waitFor(finished(runId));
    expect(await h.service.getTodos({ conversationId: conv.id })).toEqual({ todos: expected });
    expect(h.events.filter((e) => e.event === 'todosChanged')).toHaveLength(1);
  });
});

describe('first run and providers', () => {
  let fakeOllama: Server | null = null;

  afterEach(async () => {
    if (fakeOllama) await new Promise((r) => fakeOllama!.close(r));
    fakeOllama = null;
  });

  async function closedPortUrl(): Promise<string> {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as AddressInfo;
    await new Promise((r) => s.close(r));
    return `http://127.0.0.1:${port}`;
  }

  it('is a first run until settings are saved; finds local model servers; tests a connection for real', async () => {
    fakeOllama = createServer((req, res) => {
      res.writeHead(req.url === '/api/tags' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(req.url === '/api/tags' ? JSON.stringify({ models: [{ name: 'llama3.1:8b' }, { name: 'qwen2.5-coder:7b' }] }) : '{}');
    });
    await new Promise<void>((r) => fakeOllama!.listen(0, '127.0.0.1', () => r()));
    const ollama = `http://127.0.0.1:${(fakeOllama.address() as AddressInfo).port}`;
    await h.service.shutdown();
    h.close();
    h = openHarness({ dataDir, override: null, env: { DESKHAND_OLLAMA_URL: ollama, DESKHAND_LMSTUDIO_URL: server.url } });

    const view = await h.service.getSettings({});
    expect(view.firstRun).toBe(true);
    expect(await h.service.detectLocalModels({})).toEqual({
      servers: [
        { kind: 'ollama', label: 'Ollama', baseURL: `${ollama}/v1`, models: ['llama3.1:8b', 'qwen2.5-coder:7b'] },
        { kind: 'lmstudio', label: 'LM Studio', baseURL: server.baseURL, models: ['scripted', 'scripted-large'] },
      ],
    });

    // The connection test: one real call through the provider code, errors in plain words.
    server.enqueue(reply().text('OK'));
    const ok = await h.service.testProvider({ provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL });
    expect(ok).toMatchObject({ ok: true, message: expect.stringMatching(/^Connected: scripted answered “OK”/) });
    server.enqueue(reply().status(401));
    const refused = await h.service.testProvider({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, key: 'sk-typed-not-saved' });
    expect(refused).toMatchObject({ ok: false, message: 'The model API refused the key (401). Check the key.' });
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-typed-not-saved');
    expect(JSON.stringify(refused)).not.toContain('sk-typed-not-saved');
    expect(await h.service.testProvider({ provider: 'anthropic', model: 'claude-test', baseURL: null })).toMatchObject({ ok: false, message: /No API key for Anthropic/ });
    expect(server.requests).toHaveLength(2);

    await h.service.saveSettings({ ...view.settings, activeProvider: 'openai-compatible', providers: { ...view.settings.providers, 'openai-compatible': { model: 'llama3.1:8b', baseURL: `${ollama}/v1` } } });
    expect((await h.service.getSettings({})).firstRun).toBe(false);

    // Nothing answering anywhere: nothing found (a refused port answers at once; the test's timeout bounds a hang).
    await h.service.shutdown();
    h.close();
    h = openHarness({ dataDir: tempDir('deskhand-ui-data-'), override: null, env: { DESKHAND_OLLAMA_URL: await closedPortUrl(), DESKHAND_LMSTUDIO_URL: await closedPortUrl() } });
    expect(await h.service.detectLocalModels({})).toEqual({ servers: [] });
  });

  it('is not a first run with provider flags or a key', async () => {
    expect((await h.service.getSettings({})).firstRun).toBe(false);
    await h.service.shutdown();
    h.close();
    h = openHarness({ dataDir, override: null, env: {} });
    expect((await h.service.getSettings({})).firstRun).toBe(true);
    await h.service.setApiKey({ provider: 'anthropic', key: 'sk-ant-x' });
    expect((await h.service.getSettings({})).firstRun).toBe(false);
  });
});
