/**
 * A paired device over real TLS and WebSocket clients (issue 51): the desktop's web host on 127.0.0.1, the device
 * listener on 127.0.0.2 standing for the phone's network. Pairing with the code; wrong codes refused, then the window
 * locked and the address rate-limited; an approval answered from the "phone" writes the file and records the device;
 * a revoked device refused at once (its open socket closed); the desktop token never reaches the paired side; TLS 1.2
 * and plain HTTP refused (no downgrade).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { startWebHost, type ServerMessage, type WebHost } from '../../src/main/host/web/web-host';
import { DEVICE_COOKIE, startDeviceHost, type DeviceHost } from '../../src/main/host/web/device-host';
import { DeviceRegistry, ensureDeviceCertificate, MAX_WRONG_CODES, type DeviceCertificate } from '../../src/main/services/devices/index';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from '../host/helpers';

const PHONE = '127.0.0.2';
let server: ModelServer;
let h: Harness;
let desktop: WebHost;
let devices: DeviceHost;
let registry: DeviceRegistry;
let cert: DeviceCertificate;
let dataDir: string;
let work: string;
/** Every byte the "phone" received, to prove the desktop token never reached it. */
const received: string[] = [];

beforeEach(async () => {
  received.length = 0;
  server = await startModelServer();
  dataDir = tempDir('deskhand-devices-data-');
  work = tempDir('deskhand-devices-work-');
  const renderer = tempDir('deskhand-devices-renderer-');
  mkdirSync(join(renderer, 'assets'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Deskhand</title><script src="./assets/app.js"></script>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null }, vault: true });
  desktop = await startWebHost({ service: h.service, rendererDir: renderer, log: h.log });
  registry = new DeviceRegistry(dataDir);
  cert = await ensureDeviceCertificate(registry.dir, PHONE);
  devices = await startDeviceHost({ service: h.service, registry, rendererDir: renderer, host: PHONE, port: 0, certificate: cert, log: h.log });
});

afterEach(async () => {
  await devices.close();
  await desktop.close();
  h.close();
  await server.close();
});

/** The phone trusts only the pinned certificate: its PEM is the one CA, and the fingerprint is compared too. */
const pinned = {
  ca: () => cert.certPem,
  checkServerIdentity: (_host: string, peer: { raw: Buffer }) => (new X509Certificate(peer.raw).fingerprint256 === cert.fingerprint ? undefined : new Error('fingerprint mismatch')),
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function phone(method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    const req = httpsRequest(
      {
        host: PHONE,
        port: devices.port,
        path,
        method,
        ca: pinned.ca(),
        checkServerIdentity: pinned.checkServerIdentity as never,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...o.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          received.push(JSON.stringify(res.headers), body);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const origin = () => `https://${PHONE}:${devices.port}`;

async function openWindow(name = 'phone'): Promise<string> {
  return registry.openPairing({ name }).code;
}

async function pairAsProgram(code: string): Promise<{ credential: string; id: string; name: string }> {
  const r = await phone('POST', '/pair', { body: { code, name: 'phone' } });
  expect(r.status, r.body).toBe(201);
  const body = JSON.parse(r.body) as { credential: string; device: { id: string; name: string } };
  return { credential: body.credential, ...body.device };
}

function socket(credential: string, how: 'cookie' | 'bearer' = 'cookie', query = ''): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const headers = how === 'cookie' ? { cookie: `${DEVICE_COOKIE}=${credential}`, origin: origin() } : { authorization: `Bearer ${credential}` };
    const ws = new WebSocket(`wss://${PHONE}:${devices.port}/app/ws${query}`, { headers, ca: pinned.ca(), checkServerIdentity: pinned.checkServerIdentity as never });
    ws.on('message', (d: Buffer) => received.push(d.toString()));
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function client(ws: WebSocket) {
  let id = 0;
  const messages: ServerMessage[] = [];
  ws.on('message', (d: Buffer) => messages.push(JSON.parse(d.toString()) as ServerMessage));
  const until = async <T,>(pick: () => T | undefined, what: string): Promise<T> => {
    for (let i = 0; i < 400; i++) {
      const v = pick();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  return {
    events: () => messages.flatMap((m) => (m.t === 'events' ? m.events : [])),
    async call(method: string, params: unknown) {
      const n = ++id;
      ws.send(JSON.stringify({ id: n, method, params }));
      return until(() => messages.find((m): m is Extract<ServerMessage, { t: 'reply' }> => m.t === 'reply' && m.id === n), `reply to ${method}`);
    },
    until,
  };
}

describe('pairing', () => {
  it('exchanges the code for a credential of its own (hashed on the server), and the page and socket accept it', async () => {
    const code = await openWindow();
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    // Typed on a phone: lower case, no dash.
    const r = await phone('POST', '/pair', { body: { code: code.toLowerCase().replace('-', ' '), name: 'my phone' } });
    expect(r.status, r.body).toBe(201);
    const { credential, device } = JSON.parse(r.body) as { credential: string; device: { id: string; name: string } };
    expect(device.name).toBe('my phone');
    expect(credential).toMatch(/^dhd1\.[a-f0-9]{16}\./);
    expect(credential).not.toContain(desktop.token);
    expect(String(r.headers['set-cookie'])).toMatch(new RegExp(`${DEVICE_COOKIE}=dhd1\\..*; Path=/; Secure; HttpOnly; SameSite=Strict`));
    // Only the secret's hash is kept, in a private file.
    const file = readFileSync(join(dataDir, 'devices', 'devices.json'), 'utf8');
    expect(file).not.toContain(credential.split('.')[2]);
    expect(statSync(join(dataDir, 'devices', 'devices.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'devices', 'tls-key.pem')).mode & 0o777).toBe(0o600);
    // The window paired one device: the same code again is refused.
    expect((await phone('POST', '/pair', { body: { code } })).status).toBe(404);

    const page = await phone('GET', '/app/', { headers: { cookie: `${DEVICE_COOKIE}=${credential}` } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Deskhand</title>');
    expect(String(page.headers['content-security-policy'])).toContain(`connect-src 'self' wss://${PHONE}:${devices.port}`);
    const c = client(await socket(credential));
    expect(await c.call('listConversations', {})).toMatchObject({ ok: true });
    expect(registry.list()).toEqual([expect.objectContaining({ name: 'my phone', lastUsedAt: expect.any(Number) })]);
  });

  it('a browser keeps the credential only in the HttpOnly cookie; without it the page sends it to pairing', async () => {
    const code = await openWindow();
    const r = await phone('POST', '/pair', { body: { code }, headers: { origin: origin() } });
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body)).not.toHaveProperty('credential');
    expect(String(r.headers['set-cookie'])).toContain('HttpOnly');
    const unpaired = await phone('GET', '/app/');
    expect(unpaired.status).toBe(302);
    expect(unpaired.headers.location).toBe('/pair');
    const pairPage = await phone('GET', '/pair');
    expect(pairPage.status).toBe(200);
    expect(pairPage.body).toContain('Pairing code');
    // Another site's page cannot pair or use the cookie.
    expect((await phone('POST', '/pair', { body: { code: 'AAAA-AAAA' }, headers: { origin: 'https://evil.example' } })).status).toBe(403);
  });

  it('refuses wrong codes, closes the window after too many, and rate-limits an address', async () => {
    const code = await openWindow();
    const wrongs = ['AAAA-AAAA', '', 'x'.repeat(40), `${code}X`, code.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))];
    const statuses: number[] = [];
    for (const wrong of wrongs) statuses.push((await phone('POST', '/pair', { body: { code: wrong } })).status);
    // '' and the 40-character code are malformed (400, never counted); the three others are wrong.
    expect(statuses).toEqual([403, 400, 400, 403, 403]);
    for (let i = 3; i < MAX_WRONG_CODES; i++) await phone('POST', '/pair', { body: { code: 'ZZZZ-ZZZZ' } });
    const locked = await phone('POST', '/pair', { body: { code } });
    expect(locked.status).toBe(429);
    expect(JSON.parse(locked.body).error).toMatch(/Too many wrong codes/);
    expect(registry.list()).toEqual([]);
    // Still locked for the right code; a new window pairs (the address has used its ten attempts a minute by then).
    const fresh = await openWindow();
    for (let i = 0; i < 3; i++) await phone('POST', '/pair', { body: { code: 'QQQQ-QQQQ' } });
    const limited = await phone('POST', '/pair', { body: { code: fresh } });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body).error).toMatch(/wait a minute/);
    expect(registry.list()).toEqual([]);
  });

  it('an expired window refuses its code', async () => {
    const { code } = registry.openPairing({ name: 'late', ttlMs: -1 });
    const r = await phone('POST', '/pair', { body: { code } });
    expect(r.status).toBe(410);
    expect(JSON.parse(r.body).error).toMatch(/expired/);
  });
});

describe('an approval answered from the phone', () => {
  it('writes the file, and the tool card and the audit name the device; the desktop token never reaches the phone', async () => {
    const { credential } = await pairAsProgram(await openWindow());
    const c = client(await socket(credential));
    server.enqueue(reply().tool('write_file', { path: 'from-phone.txt', content: 'approved on the phone\n' }), reply().text('Written.'));
    const created = (await c.call('createConversation', { folder: work, policy: 'read-only' })) as { ok: true; result: { id: string } };
    const conversationId = created.result.id;
    await c.call('sendMessage', { conversationId, text: 'write the file' });
    const approval = await c.until(
      () => c.events().flatMap((e: ContractEvent) => (e.event === 'approvalsChanged' ? e.payload.approvals : [])).find((a: PendingApproval) => a.tool === 'write_file'),
      'the approval on the phone',
    );
    expect(existsSync(join(work, 'from-phone.txt'))).toBe(false);
    expect(await c.call('decideApproval', { approvalId: approval.approvalId, decision: 'approve' })).toMatchObject({ ok: true });
    await c.until(() => c.events().find((e) => e.event === 'run' && e.payload.type === 'run.finished'), 'the run to finish');
    expect(readFileSync(join(work, 'from-phone.txt'))).toEqual(Buffer.from('approved on the phone\n'));

    const messages = await c.call('getMessages', { conversationId });
    expect(JSON.stringify(messages)).toContain('the paired device \\"phone\\"');
    const audit = readFileSync(join(dataDir, 'devices', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"device":"phone","action":"decideApproval"/);
    expect(audit).toMatch(/"device":"phone","action":"sendMessage"/);

    // What the desktop answers the same way still records itself.
    expect(received.length).toBeGreaterThan(5);
    for (const [i, text] of received.entries()) expect(text.includes(desktop.token), `phone message ${i} carries the desktop token`).toBe(false);
  });
});

describe('a secret typed on the phone', () => {
  it('goes to the keyring, never back to the phone or to the model, and the run goes on', async () => {
    const VALUE = `phone-secret-${Math.random().toString(36).slice(2)}-value`;
    const { credential } = await pairAsProgram(await openWindow());
    const c = client(await socket(credential));
    server.enqueue(reply().tool('ask_user_secret', { name: 'PHONE_TOKEN', description: 'the deploy token' }), reply().text('Saved.'));
    const created = (await c.call('createConversation', { folder: work, policy: 'read-only' })) as { ok: true; result: { id: string } };
    await c.call('sendMessage', { conversationId: created.result.id, text: 'ask me for the token' });
    const request = await c.until(
      () => c.events().flatMap((e: ContractEvent) => (e.event === 'approvalsChanged' ? e.payload.approvals : [])).find((a: PendingApproval) => a.kind === 'secret'),
      'the secret request on the phone',
    );
    const before = received.length;
    expect(await c.call('provideSecret', { approvalId: request.approvalId, value: VALUE })).toMatchObject({ ok: true });
    await c.until(() => c.events().find((e) => e.event === 'run' && e.payload.type === 'run.finished'), 'the run to finish');
    expect(await h.secrets.get('secret.PHONE_TOKEN')).toBe(VALUE);
    for (const text of received.slice(before)) expect(text.includes(VALUE)).toBe(false);
    for (const r of server.requests) expect(JSON.stringify(r.body)).not.toContain(VALUE);
  });
});

describe('revocation', () => {
  it('refuses a revoked device at once: its open socket is closed, a new one and the page refused', async () => {
    const { credential } = await pairAsProgram(await openWindow());
    const ws = await socket(credential, 'bearer');
    const c = client(ws);
    expect(await c.call('listConversations', {})).toMatchObject({ ok: true });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    // As `deskhand devices revoke` does, from another process: its own registry on the same folder.
    new DeviceRegistry(dataDir).revoke('PHONE');
    expect(await closed).toBe(4401);
    await expect(socket(credential)).rejects.toThrow(/401/);
    expect((await phone('GET', '/app/', { headers: { cookie: `${DEVICE_COOKIE}=${credential}` } })).status).toBe(302);
    expect((await phone('GET', '/app/assets/app.js', { headers: { cookie: `${DEVICE_COOKIE}=${credential}` } })).status).toBe(302);
    expect(() => registry.revoke('phone')).toThrow(/No paired device is called "phone"; none is paired/);
  });

  it('refuses forged, truncated and foreign credentials', async () => {
    const { credential } = await pairAsProgram(await openWindow());
    const [, id, secret] = credential.split('.');
    const forged = [
      '',
      desktop.token,
      `dhd1.${id}.${'A'.repeat(43)}`,
      `dhd1.${id}.${secret!.slice(0, -1)}`,
      `dhd1.${'0'.repeat(16)}.${secret}`,
      `dhd2.${id}.${secret}`,
      credential.toUpperCase(),
    ];
    for (const f of forged) {
      await expect(socket(f, 'bearer'), f).rejects.toThrow(/401/);
      expect((await phone('GET', '/app/assets/app.js', { headers: { authorization: `Bearer ${f}` } })).status, f).toBe(302);
      expect((await phone('GET', '/favicon.ico', { headers: { authorization: `Bearer ${f}` } })).status, f).toBe(401);
    }
    // A cookie without the listener's own Origin (another site's page) is refused.
    await expect(
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`wss://${PHONE}:${devices.port}/app/ws`, { headers: { cookie: `${DEVICE_COOKIE}=${credential}`, origin: 'https://evil.example' }, ca: pinned.ca(), checkServerIdentity: pinned.checkServerIdentity as never });
        ws.once('open', resolve);
        ws.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      }),
    ).rejects.toThrow(/403/);
  });
});

describe('Settings → Devices (the contract)', () => {
  it('pairs through startDevicePairing, lists the device, refuses pairing from a device, and revokeDevice closes its socket', async () => {
    expect((await h.service.listDevices({})).listener).toBeNull();
    await expect(h.service.startDevicePairing({})).rejects.toThrow(/deskhand web --listen ADDR/);
    registry.writeListener({ url: devices.url, fingerprint: devices.fingerprint, pid: process.pid });
    const started = await h.service.startDevicePairing({ name: 'tablet' });
    expect(started.link).toBe(devices.pairingLink(started.code));
    expect(started.qrSvg).toMatch(/^<svg/);
    expect(started.fingerprint).toBe(cert.fingerprint);
    const { credential } = await pairAsProgram(started.code);
    const listed = await h.service.listDevices({});
    expect(listed.listener).toEqual({ url: devices.url, fingerprint: cert.fingerprint });
    expect(listed.devices).toEqual([expect.objectContaining({ name: 'phone', lastUsedAt: null })]);

    const ws = await socket(credential);
    const c = client(ws);
    // A paired device cannot enrol another.
    expect(await c.call('startDevicePairing', {})).toMatchObject({ ok: false, error: { message: /cannot pair another/ } });
    expect(registry.pairingWindow()!.paired).not.toBeNull();
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await h.service.revokeDevice({ id: listed.devices[0]!.id });
    expect(await closed).toBe(4401);
    expect((await h.service.listDevices({})).devices).toEqual([]);
  });
});

describe('reconnect and resume', () => {
  it('a device that reconnects with its position receives the events it missed, in order; an unknown position resyncs', async () => {
    const { credential } = await pairAsProgram(await openWindow());
    const first = await socket(credential, 'bearer');
    const raw: { t: string; resume?: string; events?: ContractEvent[] }[] = [];
    first.on('message', (d: Buffer) => raw.push(JSON.parse(d.toString())));
    await h.service.createConversation({ folder: work, policy: 'read-only', title: 'before the gap' });
    for (let i = 0; i < 100 && !raw.some((m) => m.t === 'events'); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
    const position = raw.filter((m) => m.t === 'events').at(-1)!.resume!;
    const mark = h.events.length;
    expect(position).toMatch(/^[a-f0-9]{12}\.\d+$/);
    await new Promise<void>((resolve) => (first.once('close', () => resolve()), first.close()));

    // While the phone is away: two conversations are made on the desktop.
    const a = await h.service.createConversation({ folder: work, policy: 'read-only', title: 'in the gap one' });
    const b = await h.service.createConversation({ folder: work, policy: 'read-only', title: 'in the gap two' });
    await new Promise((r) => setTimeout(r, 50));

    const again = await socket(credential, 'bearer', `?after=${position}`);
    const firstMessage = await new Promise<{ t: string; events: ContractEvent[]; resume: string }>((resolve) => again.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()))));
    expect(firstMessage.t).toBe('events');
    const text = JSON.stringify(firstMessage.events);
    expect(text).toContain(a.id);
    expect(text).toContain(b.id);
    // Exactly the service's last events, in order: nothing lost, nothing sent twice.
    expect(firstMessage.events).toEqual(h.events.slice(mark));
    again.close();

    for (const stale of [`${'0'.repeat(12)}.1`, `${position.split('.')[0]}.999999`, 'garbage']) {
      const ws = await socket(credential, 'bearer', `?after=${stale}`);
      const m = await new Promise<{ t: string }>((resolve) => ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()))));
      expect(m.t, stale).toBe('resync');
      ws.close();
    }
  });
});

describe('transport', () => {
  it('speaks TLS 1.3 only: a TLS 1.2 client and plain HTTP get nothing', async () => {
    const tls12 = await new Promise<string>((resolve) => {
      const s = tlsConnect({ host: PHONE, port: devices.port, maxVersion: 'TLSv1.2', ca: cert.certPem }, () => resolve('connected'));
      s.once('error', (err) => resolve(err.message));
    });
    expect(tls12).not.toBe('connected');
    const plain = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: PHONE, port: devices.port, path: '/app/' }, (res) => resolve(`HTTP ${res.statusCode}`));
      req.once('error', (err) => resolve(err.message));
      req.end();
    });
    expect(plain).not.toMatch(/^HTTP/);
    // A client pinning another fingerprint refuses the listener.
    const other = await new Promise<string>((resolve) => {
      const req = httpsRequest({ host: PHONE, port: devices.port, path: '/pair', ca: cert.certPem, checkServerIdentity: () => new Error('fingerprint mismatch') }, () => resolve('connected'));
      req.once('error', (err) => resolve(err.message));
      req.end();
    });
    expect(other).toMatch(/fingerprint mismatch/);
  });

  it('keeps its certificate (the pinned fingerprint) across launches, and makes a new one for another address', async () => {
    const again = await ensureDeviceCertificate(registry.dir, PHONE);
    expect(again.fingerprint).toBe(cert.fingerprint);
    const other = await ensureDeviceCertificate(registry.dir, '127.0.0.3');
    expect(other.fingerprint).not.toBe(cert.fingerprint);
    expect(new X509Certificate(other.certPem).checkIP('127.0.0.3')).toBe('127.0.0.3');
  });
});
