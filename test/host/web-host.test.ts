/**
 * The web host over real sockets: the token gates every request (the WebSocket upgrade included), Host and Origin are
 * checked, files never leave the renderer folder, and the contract round-trips over the socket with events pushed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import WebSocket from 'ws';
import { MAX_PAYLOAD_BYTES } from '../../src/shared/contract';
import { startWebHost, type ServerMessage, type WebHost } from '../../src/main/host/web/web-host';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, RecordingLogger, type Harness } from './helpers';

let server: ModelServer;
let h: Harness;
let host: WebHost;
let log: RecordingLogger;
let work: string;

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-web-data-');
  work = tempDir('deskhand-web-work-');
  const renderer = tempDir('deskhand-web-renderer-');
  mkdirSync(join(renderer, 'assets'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Deskhand</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dataDir, 'secret.txt'), 'do not serve');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
  log = new RecordingLogger();
  host = await startWebHost({ service: h.service, rendererDir: renderer, log });
});

afterEach(async () => {
  await host.close();
  h.close();
  await server.close();
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers: { host: `127.0.0.1:${host.port}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const origin = () => `http://127.0.0.1:${host.port}`;

function connect(path: string, headers: Record<string, string> = { origin: origin() }): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${path}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function client(ws: WebSocket) {
  let id = 0;
  const messages: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data: Buffer) => {
    messages.push(JSON.parse(data.toString()) as ServerMessage);
    for (const w of [...waiters]) w();
  });
  const until = <T,>(pick: () => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; got ${JSON.stringify(messages).slice(0, 500)}`)), 5000);
      const check = () => {
        const v = pick();
        if (v !== undefined) {
          clearTimeout(t);
          waiters.delete(check);
          resolve(v);
        }
      };
      waiters.add(check);
      check();
    });
  return {
    messages,
    sendRaw(text: string) {
      ws.send(text);
    },
    async call(method: string, params: unknown): Promise<Extract<ServerMessage, { t: 'reply' }>> {
      const n = ++id;
      ws.send(JSON.stringify({ id: n, method, params }));
      return until(() => messages.find((m): m is Extract<ServerMessage, { t: 'reply' }> => m.t === 'reply' && m.id === n));
    },
    until,
  };
}

describe('HTTP', () => {
  it('answers 403 without the token, with a wrong one, or with a foreign Host', async () => {
    expect((await get('/')).status).toBe(403);
    expect((await get('/index.html')).status).toBe(403);
    expect((await get(`/${host.token.slice(0, -1)}${host.token.endsWith('x') ? 'y' : 'x'}/`)).status).toBe(403);
    expect((await get(`/${host.token}/`, { host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await get(`/${host.token}/`, { origin: 'http://evil.example' })).status).toBe(403);
    expect(log.text()).toMatch(/403/);
  });

  it('serves the renderer with the token, with a strict CSP, and nothing outside it', async () => {
    const page = await get(`/${host.token}/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Deskhand</title>');
    expect(String(page.headers['content-security-policy'])).toMatch(/default-src 'self'/);
    expect(String(page.headers['content-security-policy'])).toMatch(/script-src 'self'(;|$)/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect((await get(`/${host.token}/assets/app.js`)).status).toBe(200);
    expect((await get(`/${host.token}`)).status).toBe(308);
    for (const path of [`/${host.token}/../secret.txt`, `/${host.token}/%2e%2e/%2e%2e/etc/passwd`, `/${host.token}/assets/../../x`]) {
      const r = await get(path);
      expect(r.status, path).not.toBe(200);
      expect(r.body).not.toContain('do not serve');
    }
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/${host.token}/`);
  });
});

describe('WebSocket', () => {
  it('refuses the upgrade without the token, with a foreign or missing Origin', async () => {
    await expect(connect('/ws')).rejects.toThrow(/403/);
    await expect(connect(`/nottoken/ws`)).rejects.toThrow(/403/);
    await expect(connect(`/${host.token}/ws`, { origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(connect(`/${host.token}/ws`, {})).rejects.toThrow(/403/);
    expect(log.text()).toMatch(/refused WebSocket upgrade \(foreign Origin http:\/\/evil\.example\)/);
  });

  it('round-trips contract calls, rejects bad requests, and pushes events', async () => {
    const ws = await connect(`/${host.token}/ws`);
    const c = client(ws);
    expect(await c.call('listConversations', {})).toEqual({ t: 'reply', id: 1, ok: true, result: { conversations: [] } });
    expect(await c.call('launchMissiles', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await c.call('createConversation', { folder: work, policy: 'sudo' })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    const huge = await c.call('sendMessage', { conversationId: 'conv_x', text: 'x'.repeat(MAX_PAYLOAD_BYTES + 10) });
    expect(huge).toMatchObject({ ok: false, error: { code: 'too_large' } });
    c.sendRaw('{not json');
    await c.until(() => c.messages.find((m) => m.t === 'reply' && m.id === -1));

    const created = await c.call('createConversation', { folder: work, policy: 'read-only' });
    expect(created).toMatchObject({ ok: true, result: { folder: work } });
    await c.until(() => c.messages.find((m) => m.t === 'events' && m.events.some((e) => e.event === 'conversationsChanged')));

    // A streamed reply arrives as merged text deltas in event batches.
    server.enqueue(reply().text('one ').text('two ').text('three'));
    const conversationId = (created as { result: { id: string } }).result.id;
    const sent = await c.call('sendMessage', { conversationId, text: 'count' });
    expect(sent).toMatchObject({ ok: true, result: { runId: expect.stringMatching(/^run_/) } });
    await c.until(() => c.messages.find((m) => m.t === 'events' && m.events.some((e) => e.event === 'run' && e.payload.type === 'run.finished')));
    const text = c.messages
      .flatMap((m) => (m.t === 'events' ? m.events : []))
      .flatMap((e) => (e.event === 'run' && e.payload.type === 'text' ? [e.payload.delta] : []))
      .join('');
    expect(text).toBe('one two three');
    expect(log.text()).toMatch(/unknown_method|Unknown method/);
    ws.close();
  });

  it('closes a socket that sends far more than the limit', async () => {
    const ws = await connect(`/${host.token}/ws`);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send('x'.repeat(2 * MAX_PAYLOAD_BYTES + 100));
    expect(await closed).toBe(1009);
  });
});
