/**
 * "Accept requests from peers" (Settings → Peers): the A2A endpoint inside the host that runs (host/peers/
 * peer-endpoint-host.ts). Through the contract: on, the agent card is served at the port it names; off, the port is
 * closed; the setting is in the data folder's settings.json and a save of the other settings does not touch it; an
 * address that leaves the machine without TLS is refused with what to do; a port in use is shown, not thrown. And
 * `deskhand web` itself: started with the setting on, it serves the endpoint, and stopping it closes the port.
 */
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { PeerEndpointHost } from '../../src/main/host/peers/peer-endpoint-host';
import { SettingsFile } from '../../src/main/host/assembly/settings-file';
import { openHarness, type Harness } from '../host/helpers';
import { tempDir } from '../support/tool-context';
import { requireBuild } from '../support/cli';
import { connectWeb, startWeb } from '../support/web';
import { startModelServer, type ModelServer } from '../support/model-server';

let h: Harness | null = null;
let host: PeerEndpointHost | null = null;
const live: ChildProcess[] = [];
afterEach(async () => {
  await host?.close();
  host = null;
  h?.close();
  h = null;
  for (const c of live.splice(0)) c.kill('SIGKILL');
});

type View = { settings: { enabled: boolean; host: string; port: number }; available: boolean; running: boolean; url: string | null; error: string | null };

const cardAt = async (url: string) => (await fetch(`${url}/.well-known/agent-card.json`)).json() as Promise<{ supportedInterfaces: { url: string }[] }>;

describe('the peer endpoint inside the host', () => {
  it('on serves the agent card at its port, off closes it; the setting is saved and kept by saveSettings', async () => {
    const dataDir = tempDir('deskhand-peer-host-');
    h = openHarness({ dataDir });
    host = new PeerEndpointHost({ runtime: h.runtime, service: h.service, dataDir, log: h.log, folder: tempDir('deskhand-peer-host-work-') });
    expect(await host.start()).toEqual({ running: false, url: null, error: null });
    const dispatch = createDispatch(h.service, h.log);
    const call = async (method: string, params: unknown) => {
      const r = await dispatch(method, params, { source: 'test', bytes: 10 });
      if (!r.ok) throw new Error(r.error.message);
      return r.result as View;
    };
    const off = await call('getPeerEndpoint', {});
    expect(off).toMatchObject({ settings: { enabled: false, host: '127.0.0.1' }, available: true, running: false });

    const on = await call('setPeerEndpoint', { enabled: true, host: '127.0.0.1', port: 0 });
    expect(on.running).toBe(true);
    expect(on.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const card = await cardAt(on.url!);
    expect(card.supportedInterfaces[0]!.url).toBe(`${on.url}/a2a`);
    expect((JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { peerEndpoint: unknown }).peerEndpoint).toMatchObject({ enabled: true, host: '127.0.0.1', port: 0 });

    // The other sections' form saves settings without the field: the endpoint stays as it was.
    const { settings } = (await dispatch('getSettings', {}, { source: 'test', bytes: 2 }) as { result: { settings: Record<string, unknown> } }).result;
    const { peerEndpoint: _dropped, ...rest } = settings;
    expect((await dispatch('saveSettings', { ...rest, theme: 'dark' }, { source: 'test', bytes: 10 })).ok).toBe(true);
    expect(new SettingsFile(dataDir).read().peerEndpoint).toMatchObject({ enabled: true });
    expect((await call('getPeerEndpoint', {})).running).toBe(true);

    const stopped = await call('setPeerEndpoint', { enabled: false, host: '127.0.0.1', port: 0 });
    expect(stopped).toMatchObject({ running: false, url: null, error: null });
    await expect(fetch(`${on.url}/.well-known/agent-card.json`)).rejects.toThrow();
    expect(new SettingsFile(dataDir).read().peerEndpoint).toMatchObject({ enabled: false });
  }, 60_000);

  it('refuses an address off the machine without TLS, and shows a port in use as the reason it is not running', async () => {
    const dataDir = tempDir('deskhand-peer-host-');
    h = openHarness({ dataDir });
    host = new PeerEndpointHost({ runtime: h.runtime, service: h.service, dataDir, log: h.log, folder: tempDir('deskhand-peer-host-work-') });
    await host.start();
    const dispatch = createDispatch(h.service, h.log);
    const refused = await dispatch('setPeerEndpoint', { enabled: true, host: '0.0.0.0', port: 0 }, { source: 'test', bytes: 10 });
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toMatch(/leaves this machine.*TLS certificate.*tunnel/);
    expect(new SettingsFile(dataDir).read().peerEndpoint).toBeUndefined();
    expect(host.state().running).toBe(false);

    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await dispatch('setPeerEndpoint', { enabled: true, host: '127.0.0.1', port }, { source: 'test', bytes: 10 });
      expect(r).toMatchObject({ ok: true, result: { running: false, url: null } });
      expect((r as { result: View }).result.error).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}: the port is in use`));
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe('deskhand web with "Accept requests from peers" on', () => {
  let model: ModelServer;
  beforeAll(async () => {
    requireBuild();
    model = await startModelServer();
  });
  afterAll(async () => model.close());

  it('serves the endpoint while it runs and closes it when stopped', async () => {
    const dataDir = tempDir('deskhand-peer-web-');
    const settings = new SettingsFile(dataDir);
    settings.write({ ...settings.read(), peerEndpoint: { enabled: true, host: '127.0.0.1', port: 0 } });
    const web = await startWeb({ dataDir, baseURL: model.baseURL, live, env: { DESKHAND_PEERS_FOLDER: tempDir('deskhand-peer-web-work-') } });
    const c = await connectWeb(web);
    const view = await c.call<View>('getPeerEndpoint', {});
    expect(view.running).toBe(true);
    const card = await cardAt(view.url!);
    expect(card.supportedInterfaces[0]!.url).toBe(`${view.url}/a2a`);
    c.ws.close();
    expect(await web.stop('SIGTERM')).toBe(0);
    await expect(fetch(`${view.url}/.well-known/agent-card.json`)).rejects.toThrow();
  }, 60_000);
});
