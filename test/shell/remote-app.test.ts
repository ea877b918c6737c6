/**
 * The desktop app attached to a bigger machine (issue 51, item 3), on the fake Electron with the real preload and
 * renderer build: DESKHAND_REMOTE (or `--remote`) names the other machine's pairing link; the app pairs as a device
 * of its `deskhand web --listen` (here a device listener on 127.0.0.2 over a real app service), keeps no runtime of
 * its own, and every call from its window runs there: a conversation made in the window is the remote's, its events
 * reach the window, an approval raises this desktop's notification and, approved from the window, writes the file on
 * the remote, recorded with this machine's device name. The page names the machine it drives (the banner's meta tag).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { startDeviceHost, type DeviceHost } from '../../src/main/host/web/device-host';
import { DeviceRegistry, ensureDeviceCertificate } from '../../src/main/services/devices/index';
import { relaunchArgs, remoteTarget } from '../../src/main/electron/remote-app';
import { MemorySecretStoreForTests } from '../../src/main/services/vault/secret-store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { openHarness, type Harness } from '../host/helpers';
import { fake } from './fake-electron';
import { build, launch, quitApp } from './harness';

const BIG = '127.0.0.2';
let server: ModelServer;
let big: Harness;
let bigWork: string;
let listener: DeviceHost;
let registry: DeviceRegistry;

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-big-machine-');
  bigWork = tempDir('deskhand-big-work-');
  big = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
  registry = new DeviceRegistry(dataDir);
  const certificate = await ensureDeviceCertificate(registry.dir, BIG);
  listener = await startDeviceHost({ service: big.service, registry, rendererDir: build().renderer, host: BIG, port: 0, certificate, log: big.log });
  process.env.DESKHAND_REMOTE = listener.pairingLink(registry.openPairing({}).code);
});

afterEach(async () => {
  await quitApp();
  delete process.env.DESKHAND_REMOTE;
  await listener.close();
  await big.service.shutdown();
  big.close();
  await server.close();
});

describe('the desktop app driving another machine', () => {
  it('pairs with the link, runs everything there, and names the machine in the page', async () => {
    const app = await launch();
    const api = await app.api();
    const machine = `${BIG}:${listener.port}`;
    // Paired as this machine's own device; the credential in this machine's keyring, the certificate pinned.
    expect(registry.list()).toEqual([expect.objectContaining({ name: hostname().slice(0, 40) })]);
    const saved = JSON.parse(readFileSync(join(app.dataDir, 'devices', 'remotes.json'), 'utf8')) as Record<string, { fingerprint: string }>;
    expect(saved[`https://${machine}`]!.fingerprint).toBe(listener.fingerprint);
    // No runtime here: the app opened no store of its own.
    expect(readdirSync(app.dataDir).sort()).toEqual(['devices']);

    const page = await fake.fetchScheme('app://deskhand/index.html');
    expect(await page!.text()).toContain(`<meta name="deskhand-remote" content="${machine}">`);

    // The remote's host answers (its kind, its conversations).
    expect((await api.getHostInfo({})).kind).toBe('web');
    const events: ContractEvent[] = [];
    api.on('conversationsChanged', (payload) => events.push({ event: 'conversationsChanged', payload }));
    api.on('approvalsChanged', (payload) => events.push({ event: 'approvalsChanged', payload }));
    const { id } = await api.createConversation({ folder: bigWork, policy: 'read-only', title: 'on the big machine' });
    expect((await big.service.listConversations()).conversations.map((c) => c.id)).toEqual([id]);
    await until(() => events.find((e) => e.event === 'conversationsChanged' && e.payload.conversations.some((c) => c.id === id)), 'the remote event in the window');

    // An approval on the remote: this desktop's notification, answered from the window, the file written there.
    (await app.window()).blur();
    server.enqueue(reply().tool('write_file', { path: 'big.txt', content: 'written on the big machine\n' }), reply().text('Done.'));
    await api.sendMessage({ conversationId: id, text: 'write big.txt' });
    const approval = await until(
      () => events.flatMap((e) => (e.event === 'approvalsChanged' ? e.payload.approvals : [])).find((a: PendingApproval) => a.tool === 'write_file'),
      'the approval in the window',
    );
    const note = await until(() => fake.notifications.find((n) => n.title.startsWith('Approval needed')), 'the approval notification');
    expect(note.shown).toBe(true);
    expect(existsSync(join(bigWork, 'big.txt'))).toBe(false);
    await api.decideApproval({ approvalId: approval.approvalId, decision: 'approve' });
    await until(() => (existsSync(join(bigWork, 'big.txt')) ? true : undefined), 'the file on the remote');
    expect(readFileSync(join(bigWork, 'big.txt'), 'utf8')).toBe('written on the big machine\n');
    const { items } = await big.service.getMessages({ conversationId: id });
    expect(JSON.stringify(items)).toContain(`the paired device \\"${hostname().slice(0, 40)}\\"`);
  });

  it('a revoked machine is refused: the window gets an error that says so', async () => {
    const app = await launch();
    const api = await app.api();
    await api.listConversations({});
    registry.revoke(hostname().slice(0, 40));
    listener.recheck();
    await until(async () => {
      try {
        await api.listConversations({});
        return undefined;
      } catch (err) {
        return /no longer paired/.test((err as Error).message) ? true : undefined;
      }
    }, 'the refusal');
  });
});

describe('Settings → Devices → Drive another machine', () => {
  it('pairs with the pasted link and restarts attached; the restarted app drives it without pairing again; Disconnect restarts local', async () => {
    const link = process.env.DESKHAND_REMOTE!;
    delete process.env.DESKHAND_REMOTE;
    const keyring = new MemorySecretStoreForTests(); // this computer's, across its restarts
    const local = await launch({ secrets: keyring });
    const api = await local.api();
    expect((await api.getHostInfo({})).kind).toBe('electron');

    // A person's mistake: a clear error, nothing paired, no restart.
    await expect(api.driveMachine({ target: 'big-machine:8443' })).rejects.toThrow(/named by its pairing link or its https:\/\/ address/);
    await expect(api.driveMachine({ target: `https://${BIG}:${listener.port}/` })).rejects.toThrow(/not paired with/);
    expect(registry.list()).toEqual([]);
    expect(fake.relaunches).toEqual([]);

    const machine = `${BIG}:${listener.port}`;
    expect(await api.driveMachine({ target: link })).toEqual({ machine });
    expect(registry.list()).toEqual([expect.objectContaining({ name: hostname().slice(0, 40) })]);
    const restart = fake.relaunches.at(-1)!.args!;
    expect(restart.at(-1)).toBe(`--remote=https://${machine}/`); // the address: the one-time code is spent
    expect(await fake.exited()).toBe(0); // this process ends (its runtime shut down as on any quit)

    // The new process, as Electron starts it with those arguments.
    const target = remoteTarget(['electron', ...restart], {});
    const driving = await launch({ dataDir: local.dataDir, secrets: keyring, remote: target });
    const remoteApi = await driving.api();
    expect((await remoteApi.getHostInfo({})).kind).toBe('web'); // the big machine's host answers
    const { id } = await remoteApi.createConversation({ folder: bigWork, policy: 'read-only', title: 'driven from settings' });
    expect((await big.service.listConversations()).conversations.map((c) => c.id)).toEqual([id]);
    expect(registry.list()).toHaveLength(1); // found the pairing made before

    // Disconnect (the banner's button): answered here, not by the big machine; the restart runs on this computer.
    await remoteApi.stopDriving({});
    expect(fake.relaunches.at(-1)!.args!.at(-1)).toBe('--remote=');
    expect(remoteTarget(['electron', ...fake.relaunches.at(-1)!.args!], { DESKHAND_REMOTE: link })).toBeNull();
    expect(await fake.exited()).toBe(0);
  });

  it('only the desktop app drives another machine: the web host refuses, and stopping there says nothing is driven', async () => {
    await expect(big.service.driveMachine({ target: process.env.DESKHAND_REMOTE! })).rejects.toThrow(/Only the desktop app drives another machine/);
    await expect(big.service.stopDriving({})).rejects.toThrow(/not driving another machine/);
    expect(registry.list()).toEqual([]);
  });
});

describe('remoteTarget', () => {
  it('relaunchArgs drops an earlier --remote and names the next one', () => {
    expect(relaunchArgs(['/opt/Deskhand/deskhand', '--remote', 'https://a:1/', '--no-sandbox'], 'https://b:2/')).toEqual(['--no-sandbox', '--remote=https://b:2/']);
    expect(relaunchArgs(['/usr/bin/electron', 'out/main/index.js', '--remote=https://a:1/'], null)).toEqual(['out/main/index.js', '--remote=']);
  });

  it('reads --remote=X, --remote X, then DESKHAND_REMOTE', () => {
    expect(remoteTarget(['electron', 'main.js', '--remote=https://a:1/'], {})).toBe('https://a:1/');
    expect(remoteTarget(['electron', 'main.js', '--remote', 'https://b:2/'], {})).toBe('https://b:2/');
    expect(remoteTarget(['electron', 'main.js'], { DESKHAND_REMOTE: ' https://c:3/ ' })).toBe('https://c:3/');
    expect(remoteTarget(['electron', 'main.js'], {})).toBeNull();
    expect(remoteTarget(['electron', 'main.js', '--remote='], {})).toBeNull();
  });
});
