/**
 * The desktop app's main process serves the A2A endpoint too (desktop-app.ts assembles PeerEndpointHost like
 * `deskhand web`): on the fake Electron, "Accept requests from peers" turned on through the page's API serves the agent
 * card at the URL it reports, quitting the app closes the port, and the app started again with the setting on
 * serves it from the start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fake } from './fake-electron';
import { launch, quitApp } from './harness';

afterEach(async () => {
  if (fake.exitCode === null) await quitApp();
});

describe('the peer endpoint in the desktop app', () => {
  it('turned on from the page serves the agent card; quitting the app closes it', async () => {
    const app = await launch();
    const api = await app.api();
    expect(await api.getPeerEndpoint({})).toMatchObject({ available: true, running: false, settings: { enabled: false, host: '127.0.0.1' } });
    const on = await api.setPeerEndpoint({ enabled: true, host: '127.0.0.1', port: 0 });
    expect(on.running).toBe(true);
    const card = (await (await fetch(`${on.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces[0]!.url).toBe(`${on.url}/a2a`);
    expect(await quitApp()).toBe(0);
    await expect(fetch(`${on.url}/.well-known/agent-card.json`)).rejects.toThrow();

    // Started again over the same data: the saved setting is on, so the endpoint starts with the app.
    const again = await launch({ dataDir: app.dataDir });
    const view = await (await again.api()).getPeerEndpoint({});
    expect(view).toMatchObject({ running: true, settings: { enabled: true } });
    expect((await fetch(`${view.url}/.well-known/agent-card.json`)).status).toBe(200);
  }, 60_000);
});
