/**
 * MCP App views in the desktop app (issue 50): the session cancels every request that leaves the app, except one a
 * view makes to an origin it declared for that kind of request. The real shell on the fake Electron, with a real MCP
 * Apps server (test/extensions/view-fetch-server.mjs, which declares one connect origin) reached through the app's own
 * contract: the model calls its tool, the window opens its view, and the session is asked about requests from that
 * view's frame (and a frame inside it), from the app's page, and for kinds the view did not declare.
 */
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDownSession } from '../../src/main/electron/window';
import { Store } from '../../src/main/services/store/store';
import { addServer } from '../extensions/helpers';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { until } from '../support/tasks';
import { tempDir } from '../support/tool-context';
import { fake, type FakeFrame } from './fake-electron';
import { launch, quitApp } from './harness';

const VIEW_FETCH = resolve(__dirname, '../extensions/view-fetch-server.mjs');
const DECLARED = 'http://127.0.0.1:49152';
const UNDECLARED = 'http://127.0.0.1:49153';

let model: ModelServer;
beforeEach(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await quitApp();
  await model.close();
});

const frame = (url: string, parent: FakeFrame | null = null): FakeFrame => ({ url, parent });

describe('the desktop session and MCP App views', () => {
  it("lets a view reach what it declared, for that kind of request only; nothing else leaves", async () => {
    const dataDir = tempDir('deskhand-view-reach-');
    const store = new Store(dataDir);
    try {
      addServer(store, 'viewfetch', { transport: 'stdio', command: process.execPath, args: [VIEW_FETCH], env: { DECLARED, UNDECLARED }, tier: 'read-only' });
    } finally {
      store.close();
    }
    const app = await launch({ dataDir, modelUrl: model.baseURL });
    const api = await app.api();
    const { id } = await api.createConversation({ folder: app.work, policy: 'high-risk', title: 'a view' });
    await until(async () => ((await api.listMcpServers({})).servers.find((s) => s.name === 'viewfetch')?.status === 'connected' ? true : undefined), 'the server connected');
    await api.setConversationFamilies({ conversationId: id, families: ['mcp'], enabled: true });
    model.enqueue(reply().tool('mcp__viewfetch__show', {}, { id: 'call_show' }), reply().text('Shown.'));
    const { runId } = await api.sendMessage({ conversationId: id, text: 'show the view' });
    await until(async () => ((await api.getMessages({ conversationId: id })).items.some((i) => JSON.stringify(i).includes('Shown.')) ? true : undefined), 'the run to finish');
    const view = (await api.openMcpApp({ conversationId: id, runId, callId: 'call_show', args: {} })).view!;
    expect(view.granted.domains).toEqual([DECLARED]);

    const session = fake.session();
    const viewFrame = frame(`app://deskhand${view.url}`, frame('app://deskhand/index.html'));
    // The declared origin, to connect (fetch, WebSocket), from the view or from a frame inside it.
    expect(await session.beforeRequest(`${DECLARED}/from-view`, 'xhr', viewFrame)).toBe(false);
    expect(await session.beforeRequest(`${DECLARED}/feed`, 'webSocket', frame('about:blank', viewFrame))).toBe(false);
    // Not for loading scripts or frames (the view declared it under connectDomains only).
    expect(await session.beforeRequest(`${DECLARED}/lib.js`, 'script', viewFrame)).toBe(true);
    expect(await session.beforeRequest(`${DECLARED}/`, 'subFrame', viewFrame)).toBe(true);
    // Anything it did not declare; the declared origin from the app's own page or a frame that is no view.
    for (const [url, from] of [
      [`${UNDECLARED}/from-view`, viewFrame],
      [`${DECLARED}/from-page`, frame('app://deskhand/index.html')],
      [`${DECLARED}/x`, frame('app://deskhand/cv/not-a-ticket-of-a-view-at-all')],
      [`${DECLARED}/x`, null],
    ] as const) {
      expect(await session.beforeRequest(url, 'xhr', from), `${url} from ${from?.url ?? 'no frame'}`).toBe(true);
    }
    expect(await session.beforeRequest(`${DECLARED}/`, 'mainFrame', viewFrame)).toBe(true);
  }, 60_000);

  it('without a view check the session cancels everything outside the app, views included', async () => {
    await launch();
    lockDownSession();
    const session = fake.session();
    expect(await session.beforeRequest('https://api.example.com/', 'xhr', frame('app://deskhand/cv/AAAAAAAAAAAAAAAAAAAAAAAA'))).toBe(true);
    expect(await session.beforeRequest('app://deskhand/assets/x.js', 'script')).toBe(false);
  });
});
