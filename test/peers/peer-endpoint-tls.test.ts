/**
 * TLS in the endpoint itself: `deskhand peers serve --tls-cert FILE --tls-key FILE` (and the same in the setting)
 * serves HTTPS with node:https, and its agent card names https. The certificate is self-signed, made here with
 * openssl; the SDK's own client reaches the endpoint when told to trust it (NODE_EXTRA_CA_CERTS, in a process of its
 * own) and refuses it when not. An address off the machine is refused without TLS, accepted with it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { addPeer, servePeers, type Served } from '../support/peers';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { PeerEndpointHost } from '../../src/main/host/peers/peer-endpoint-host';
import { openHarness } from '../host/helpers';

const ROOT = resolve(__dirname, '../..');
let model: ModelServer;
let served: Served | null = null;
let cert = '';
let key = '';
beforeAll(async () => {
  requireBuild();
  model = await startModelServer();
  const dir = tempDir('deskhand-peer-tls-');
  cert = join(dir, 'cert.pem');
  key = join(dir, 'key.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
});
afterAll(async () => model.close());
afterEach(async () => {
  await served?.stop();
  served = null;
});

/** The SDK's client in a process of its own (NODE_EXTRA_CA_CERTS is read at start): the card's URL and the answer. */
function sdkClientProcess(url: string, token: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    import { ClientFactory } from '@a2a-js/sdk/client';
    import { Role } from '@a2a-js/sdk';
    const [url, token] = process.argv.slice(1);
    const card = await (await fetch(url + '/.well-known/agent-card.json')).json();
    const client = await new ClientFactory().createFromUrl(url);
    const message = { messageId: 'm1', contextId: '', taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'hello over TLS' }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] };
    let text = '';
    for await (const ev of client.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: undefined }, { serviceParameters: { Authorization: 'Bearer ' + token } })) {
      for (const p of ev.payload?.value?.status?.message?.parts ?? []) if (p.content?.$case === 'text') text = p.content.value;
    }
    process.stdout.write(JSON.stringify({ card: card.supportedInterfaces[0].url, text }));
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, url, token], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('TLS in the peer endpoint', () => {
  it('peers serve --tls-cert --tls-key serves HTTPS; the card names https; the SDK client trusting the certificate gets the answer', async () => {
    const dataDir = tempDir('deskhand-peer-b-');
    const alice = await addPeer(dataDir, 'alice', ['--tier', 'public']);
    served = await servePeers(dataDir, tempDir('deskhand-peer-work-'), model.baseURL, {}, ['--tls-cert', cert, '--tls-key', key]);
    expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    model.enqueue(reply().text('Answered over TLS.'));
    const trusted = await sdkClientProcess(served.url, alice.inboundToken, { NODE_EXTRA_CA_CERTS: cert });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual({ card: `${served.url}/a2a`, text: 'Answered over TLS.' });

    // Not trusted: the client refuses the certificate; plain HTTP on that port gets no agent card.
    const untrusted = await sdkClientProcess(served.url, alice.inboundToken, { NODE_EXTRA_CA_CERTS: '' });
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/self[- ]signed|certificate/i);
    const plain = await fetch(served.url.replace('https:', 'http:') + '/.well-known/agent-card.json').then((r) => r.status, () => 'refused');
    expect(plain).not.toBe(200);
  }, 120_000);

  it('peers serve refuses an address off the machine without TLS, and a certificate without its key', async () => {
    const dataDir = tempDir('deskhand-peer-b-');
    const bare = await runCli(['peers', 'serve', '--host', '0.0.0.0', '--data-dir', dataDir, '--provider', 'openai', '--base-url', model.baseURL, '--model', 'm']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/0\.0\.0\.0 leaves this machine.*--tls-cert|TLS certificate and key.*tunnel/s);
    const half = await runCli(['peers', 'serve', '--tls-cert', cert, '--data-dir', dataDir, '--provider', 'openai', '--base-url', model.baseURL, '--model', 'm']);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/both a certificate and its key/);
  }, 60_000);

  it('the setting with a certificate and key serves HTTPS; an unreadable certificate is the reason it is not running', async () => {
    const dataDir = tempDir('deskhand-peer-host-');
    const h = openHarness({ dataDir });
    const host = new PeerEndpointHost({ runtime: h.runtime, service: h.service, dataDir, log: h.log, folder: tempDir('deskhand-peer-host-work-') });
    try {
      await host.start();
      const dispatch = createDispatch(h.service, h.log);
      const on = await dispatch('setPeerEndpoint', { enabled: true, host: '127.0.0.1', port: 0, tlsCert: cert, tlsKey: key }, { source: 'test', bytes: 10 });
      const url = (on as { result: { url: string } }).result.url;
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const { Agent, fetch: undiciFetch } = await import('undici');
      const { readFileSync } = await import('node:fs');
      const card = (await (await undiciFetch(`${url}/.well-known/agent-card.json`, { dispatcher: new Agent({ connect: { ca: readFileSync(cert) } }) })).json()) as { supportedInterfaces: { url: string }[] };
      expect(card.supportedInterfaces[0]!.url).toBe(`${url}/a2a`);

      const bad = await dispatch('setPeerEndpoint', { enabled: true, host: '127.0.0.1', port: 0, tlsCert: join(dataDir, 'missing.pem'), tlsKey: key }, { source: 'test', bytes: 10 });
      expect(bad).toMatchObject({ ok: true, result: { running: false } });
      expect((bad as { result: { error: string } }).result.error).toMatch(/Could not read the TLS certificate .*missing\.pem/);
      // Off the machine with TLS: accepted (the check; not bound here).
      const { endpointBindingProblem } = await import('../../src/shared/peers');
      expect(endpointBindingProblem({ host: '0.0.0.0', tlsCert: cert, tlsKey: key })).toBeNull();
      expect(endpointBindingProblem({ host: '192.168.1.5', tlsInFront: true })).toBeNull();
      expect(endpointBindingProblem({ host: '::1' })).toBeNull();
      expect(endpointBindingProblem({ host: '10.0.0.1' })).toMatch(/leaves this machine/);
    } finally {
      await host.close();
      h.close();
    }
  }, 60_000);
});
