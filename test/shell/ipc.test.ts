/**
 * The real preload bundle, exposed through the fake contextBridge, calling the real main-side IPC wiring and the real
 * app service: named methods reach the contract; calls from anywhere but the app's own top frame are refused; error
 * codes survive the bridge; events arrive.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL } from '../../src/shared/contract/names';
import { METHOD_NAMES } from '../../src/shared/contract/names';
import type { Reply } from '../../src/shared/contract';
import { CallError } from '../../src/shared/bridge';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { until } from '../support/tasks';
import { launch, quitApp, type Launched } from './harness';

let server: ModelServer | null = null;

afterEach(async () => {
  await quitApp();
  await server?.close();
  server = null;
});

async function launchWithModel(): Promise<Launched> {
  server = await startModelServer();
  return launch({ modelUrl: server.baseURL });
}

describe('the preload API', () => {
  it('has exactly one method per contract method, plus on()', async () => {
    const app = await launch();
    const bridge = (await app.bridge()) as unknown as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual([...METHOD_NAMES, 'on'].sort());
    for (const name of Object.keys(bridge)) expect(typeof bridge[name], name).toBe('function');
  });

  it('calls through to the contract: a conversation made from the page is in the store, with the folder it gave', async () => {
    const app = await launch();
    const api = await app.api();
    const info = await api.getHostInfo({});
    expect(info).toMatchObject({ kind: 'electron', canPickFolder: true, defaultFolder: app.work, version: '0.0.0-fake' });
    const created = await api.createConversation({ folder: app.work, policy: 'read-only', title: 'From the page' });
    expect((await api.listConversations({})).conversations).toEqual([expect.objectContaining({ id: created.id, title: 'From the page', folder: app.work })]);
  });

  it('keeps error codes across contextBridge, so the renderer can tell a conflict from a failure', async () => {
    const app = await launch();
    const api = await app.api();
    const missing = await api.getMessages({ conversationId: 'conv_nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CallError);
    expect(missing).toMatchObject({ code: 'not_found', message: expect.stringMatching(/does not exist/) });
    const invalid = await api.createConversation({ folder: 42 as unknown as string, policy: 'read-only' }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: 'invalid_params' });
    const usage = await api.createConversation({ folder: 'relative/path', policy: 'read-only' }).catch((e: unknown) => e);
    expect(usage).toMatchObject({ code: 'usage' });
  });

  it('keeps the conflict code the queued-message retry depends on', async () => {
    const app = await launchWithModel();
    server!.enqueue(reply().tool('write_file', { path: 'a.txt', content: 'a' }));
    const api = await app.api();
    const c = await api.createConversation({ folder: app.work, policy: 'read-only' });
    await api.sendMessage({ conversationId: c.id, text: 'write a' });
    await until(async () => (await api.listPendingApprovals({})).approvals.length === 1, 'the approval');
    const busy = await api.sendMessage({ conversationId: c.id, text: 'again' }).catch((e: unknown) => e);
    expect(busy).toMatchObject({ code: 'conflict' });
  });

  it('delivers contract events to on() listeners, and unsubscribes', async () => {
    const app = await launch();
    const bridge = await app.bridge();
    const seen: unknown[] = [];
    const off = bridge.on('conversationsChanged', (p) => seen.push(p));
    const api = await app.api();
    await api.createConversation({ folder: app.work, policy: 'read-only', title: 'Evented' });
    await until(() => seen.length > 0, 'a conversationsChanged event');
    expect(JSON.stringify(seen)).toContain('Evented');
    off();
    // A second listener sees the next event; the first, unsubscribed, gets nothing of the same batch.
    const later: unknown[] = [];
    bridge.on('conversationsChanged', (p) => later.push(p));
    await api.createConversation({ folder: app.work, policy: 'read-only', title: 'Quiet' });
    await until(() => JSON.stringify(later).includes('Quiet'), 'the second listener to see the change');
    expect(JSON.stringify(seen)).not.toContain('Quiet');
    expect(() => bridge.on('nope' as never, () => undefined)).toThrow(/Unknown event/);
  });
});

describe('sender checks in main', () => {
  const call = { method: 'listConversations', params: {} };

  it('answers the app top frame at app://deskhand', async () => {
    const app = await launch();
    const wc = (await app.window()).webContents;
    const r = (await wc.invokeFrom(wc.mainFrame, IPC_CALL_CHANNEL, call)) as Reply;
    expect(r).toEqual({ ok: true, result: { conversations: [] } });
  });

  it('refuses a subframe, even one at the app origin, and a top frame that is not the app', async () => {
    const app = await launch();
    const wc = (await app.window()).webContents;
    for (const frame of [wc.addChildFrame('app://deskhand/index.html'), wc.addChildFrame('https://example.com/')]) {
      const r = (await wc.invokeFrom(frame, IPC_CALL_CHANNEL, call)) as Reply;
      expect(r).toMatchObject({ ok: false, error: { message: expect.stringMatching(/Refused/) } });
    }
    // The top frame somewhere else (had navigation got through): refused too.
    wc.mainFrame.url = 'https://evil.example/';
    expect(await wc.invokeFrom(wc.mainFrame, IPC_CALL_CHANNEL, call)).toMatchObject({ ok: false });
    wc.mainFrame.url = 'app://evil/index.html';
    expect(await wc.invokeFrom(wc.mainFrame, IPC_CALL_CHANNEL, call)).toMatchObject({ ok: false });
    expect(app.log.text()).toMatch(/refused a call from an untrusted frame.*evil/);
  });

  it('refuses a method the contract does not name and oversized requests, before any handler', async () => {
    const app = await launch();
    const wc = (await app.window()).webContents;
    expect(await wc.invokeFrom(wc.mainFrame, IPC_CALL_CHANNEL, { method: 'constructor', params: {} })).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await wc.invokeFrom(wc.mainFrame, IPC_CALL_CHANNEL, { method: 'createConversation', params: { folder: 'x'.repeat(1_100_000), policy: 'none' } })).toMatchObject({ ok: false, error: { code: 'too_large' } });
  });
});
