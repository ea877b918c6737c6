/**
 * `deskhand web --listen` and `deskhand devices pair|list|revoke` through the real binary, as separate processes:
 * the listener is off by default, `--listen 127.0.0.2:0` starts it, `devices pair` opens a window on it and prints
 * the code and the pinned fingerprint, a device pairs over TLS, `devices list` names it, and `devices revoke` in
 * another process closes the device's open socket at once.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BIN, cliEnv, requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';
import { parseListen } from '../../src/main/host/web/web-command';
import { advertisedHost } from '../../src/main/host/web/device-host';
import { networkInterfaces } from 'node:os';

const live: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of live.splice(0)) c.kill('SIGKILL');
});

async function startWeb(dataDir: string, extra: string[]): Promise<{ url: string; devices?: { url: string; fingerprint: string }; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'web', '--json', '--data-dir', dataDir, ...extra], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  live.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const printed = await new Promise<{ url: string; devices?: { url: string; fingerprint: string } }>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as { url: string });
    });
    child.once('exit', (code) => reject(new Error(`deskhand web exited (${code}):\n${stderr}`)));
  });
  return { ...printed, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

function post(url: string, fingerprint: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpsRequest(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        // The pin: the certificate the QR named, nothing else.
        const peer = (res.socket as unknown as { getPeerX509Certificate(): X509Certificate }).getPeerX509Certificate();
        if (peer.fingerprint256 !== fingerprint) return reject(new Error('fingerprint mismatch'));
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

it('pairs through `deskhand devices pair` against `deskhand web --listen`, lists the device, and a revoke from another process closes its socket', async () => {
  requireBuild();
  const dataDir = tempDir('deskhand-devices-cli-');
  // Off by default: no listener, nothing to pair with.
  const plainWeb = await startWeb(dataDir, []);
  expect(plainWeb.devices).toBeUndefined();
  const refused = await runCli(['devices', 'pair', '--no-wait', '--data-dir', dataDir]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/deskhand web --listen ADDR/);
  expect(await plainWeb.stop()).toBe(0);

  const web = await startWeb(dataDir, ['--listen', '127.0.0.2:0']);
  expect(web.devices!.url).toMatch(/^https:\/\/127\.0\.0\.2:\d+\/$/);
  const pairing = await runCli(['devices', 'pair', '--json', '--no-wait', '--name', 'test phone', '--data-dir', dataDir]);
  expect(pairing.code, pairing.stderr).toBe(0);
  const window = JSON.parse(pairing.stdout.split('\n')[0]!) as { link: string; code: string; fingerprint: string };
  expect(window.fingerprint).toBe(web.devices!.fingerprint);
  expect(window.link).toBe(`${web.devices!.url}pair#code=${window.code}&fp=${window.fingerprint.replace(/:/g, '')}`);
  // The desktop's token is in neither.
  const desktopToken = new URL(web.url).pathname.split('/')[1]!;
  expect(pairing.stdout).not.toContain(desktopToken);

  const paired = await post(`${web.devices!.url}pair`, window.fingerprint, { code: window.code });
  expect(paired.status, paired.body).toBe(201);
  const { credential, device } = JSON.parse(paired.body) as { credential: string; device: { name: string } };
  expect(device.name).toBe('test phone');
  expect(paired.body).not.toContain(desktopToken);

  const ws = new WebSocket(`${web.devices!.url.replace('https', 'wss')}app/ws`, { headers: { authorization: `Bearer ${credential}` }, rejectUnauthorized: false });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const closed = new Promise<number>((resolve) => ws.once('close', resolve));

  const listed = await runCli(['devices', 'list', '--json', '--data-dir', dataDir]);
  expect(JSON.parse(listed.stdout)).toEqual({ devices: [expect.objectContaining({ name: 'test phone', lastUsedAt: expect.any(Number) })] });
  const revoked = await runCli(['devices', 'revoke', 'test phone', '--data-dir', dataDir]);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(await closed).toBe(4401);
  expect((await runCli(['devices', 'revoke', 'test phone', '--data-dir', dataDir])).code).toBe(1);
  expect(await web.stop()).toBe(0);
  expect(existsSync(join(dataDir, 'devices', 'tls-key.pem'))).toBe(true);
}, 90_000);

it('--listen takes an address and an optional port, and refuses anything else', () => {
  const good: [string, { host: string; port: number | null }][] = [
    ['192.168.1.20', { host: '192.168.1.20', port: null }],
    ['0.0.0.0:8443', { host: '0.0.0.0', port: 8443 }],
    ['127.0.0.2:0', { host: '127.0.0.2', port: 0 }],
    ['[::1]:8443', { host: '::1', port: 8443 }],
    ['::', { host: '::', port: null }],
    ['workstation.lan', { host: 'workstation.lan', port: null }],
  ];
  for (const [raw, want] of good) expect(parseListen(raw), raw).toEqual(want);
  for (const bad of ['', ':8443', '1.2.3.4:99999', '1.2.3.4:-1', 'host:port', 'a b', 'http://1.2.3.4', '[::1', '1.2.3.4:8443:1', '-bad.lan']) {
    expect(() => parseListen(bad), bad).toThrow(/--listen takes an address/);
  }
});

it('a wildcard bind is advertised as this machine\'s LAN address (the pairing link must be reachable)', () => {
  expect(advertisedHost('127.0.0.2')).toBe('127.0.0.2');
  expect(advertisedHost('192.168.1.20')).toBe('192.168.1.20');
  const external = Object.values(networkInterfaces()).flatMap((l) => l ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address);
  for (const bind of ['0.0.0.0', '::']) expect(advertisedHost(bind)).toBe(external[0] ?? '127.0.0.1');
});
