/**
 * Driving a bigger machine (issue 51, item 3): a Deskhand runtime with its device listener on 127.0.0.3 stands for the
 * workstation; this machine pairs with it as a program (the certificate pinned from the link's fingerprint) and serves
 * the UI on 127.0.0.1, relaying the contract. A TCP forwarder in between stands for the network: cutting it drops the
 * upstream socket, which reconnects and resumes, so the page receives the events of the gap without reconnecting
 * itself. A revoked machine's page is closed.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { ContractEvent } from '../../src/shared/contract';
import { startDeviceHost, type DeviceHost } from '../../src/main/host/web/device-host';
import { fetchPinnedCertificate, pairWithRemote, startRemoteHost, type RemoteHost } from '../../src/main/host/web/remote-host';
import { DeviceRegistry, ensureDeviceCertificate } from '../../src/main/services/devices/index';
import { startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from '../host/helpers';

const WORKSTATION = '127.0.0.3';
let server: ModelServer;
let big: Harness;
let devices: DeviceHost;
let registry: DeviceRegistry;
let renderer: string;
let forwarder: Server;
const links = new Set<Socket>();
let remote: RemoteHost | null = null;

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-remote-big-');
  renderer = tempDir('deskhand-remote-renderer-');
  mkdirSync(join(renderer, 'assets'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><html><head><title>Deskhand</title></head><body></body></html>');
  big = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
  registry = new DeviceRegistry(dataDir);
  const certificate = await ensureDeviceCertificate(registry.dir, WORKSTATION);
  devices = await startDeviceHost({ service: big.service, registry, rendererDir: renderer, host: WORKSTATION, port: 0, certificate, log: big.log });
  // The network between the machines: a TCP forwarder the test can cut.
  forwarder = createServer((client) => {
    const up = netConnect({ host: WORKSTATION, port: devices.port });
    links.add(client).add(up);
    client.pipe(up).pipe(client);
    const end = () => (client.destroy(), up.destroy(), links.delete(client), links.delete(up));
    client.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => forwarder.listen(0, '127.0.0.4', () => r()));
});

afterEach(async () => {
  await remote?.close();
  remote = null;
  for (const s of links) s.destroy();
  await new Promise<void>((r) => forwarder.close(() => r()));
  await devices.close();
  big.close();
  await server.close();
});

const through = () => `https://127.0.0.4:${(forwarder.address() as { port: number }).port}/`;

it('pairs with the workstation, drives it from 127.0.0.1, resumes across a cut without losing events, and is cut off when revoked', async () => {
  const { code } = registry.openPairing({ name: null });
  // A link whose fingerprint is not the workstation's certificate is refused before anything is sent.
  await expect(fetchPinnedCertificate(through(), 'AA:'.repeat(31) + 'AA')).rejects.toThrow(/not the one the pairing link named/);
  const certPem = await fetchPinnedCertificate(through(), devices.fingerprint);
  const { credential, device } = await pairWithRemote(through(), certPem, devices.fingerprint, code, 'laptop');
  expect(device.name).toBe('laptop');

  remote = await startRemoteHost({ remoteUrl: through(), fingerprint: devices.fingerprint, certPem, credential, machine: 'workstation', rendererDir: renderer });
  const page = await fetch(remote.url);
  expect(await page.text()).toContain('<meta name="deskhand-remote" content="workstation">');
  expect((await fetch(remote.url.replace(remote.token, 'x'.repeat(remote.token.length)))).status).toBe(403);

  const ws = new WebSocket(`ws://127.0.0.1:${remote.port}/${remote.token}/ws`, { headers: { origin: `http://127.0.0.1:${remote.port}` } });
  const messages: { t: string; id?: number; ok?: boolean; result?: unknown; events?: ContractEvent[] }[] = [];
  ws.on('message', (d: Buffer) => messages.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const until = async <T,>(pick: () => T | undefined, what: string): Promise<T> => {
    for (let i = 0; i < 400; i++) {
      const v = pick();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  // A call from this machine runs on the workstation.
  ws.send(JSON.stringify({ id: 1, method: 'createConversation', params: { folder: tempDir('deskhand-remote-work-'), policy: 'read-only', title: 'made from the laptop' } }));
  const made = await until(() => messages.find((m) => m.t === 'reply' && m.id === 1), 'the reply');
  expect(made.ok).toBe(true);
  const id = (made.result as { id: string }).id;
  expect(big.store.getConversation(id)?.title).toBe('made from the laptop');
  await until(() => messages.find((m) => m.t === 'events' && JSON.stringify(m.events).includes(id)), 'its event');

  // The network drops; meanwhile the workstation changes. The upstream reconnects and resumes: the page gets the gap.
  let pageClosed = false;
  ws.on('close', () => (pageClosed = true));
  for (const s of links) s.destroy();
  const gap = await big.service.createConversation({ folder: tempDir('deskhand-remote-work-'), policy: 'read-only', title: 'made during the cut' });
  await until(() => messages.find((m) => m.t === 'events' && JSON.stringify(m.events).includes(gap.id)), 'the event of the gap');
  expect(pageClosed).toBe(false);
  // The same connection answers again.
  ws.send(JSON.stringify({ id: 2, method: 'listConversations', params: {} }));
  expect(await until(() => messages.find((m) => m.t === 'reply' && m.id === 2), 'a reply after the cut')).toMatchObject({ ok: true });

  // Revoked on the workstation: this machine's page is closed.
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  registry.revoke('laptop');
  expect(await closed).toBe(4401);
});
