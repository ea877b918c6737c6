/**
 * The model providers' HTTP transport (src/main/services/providers/model-transport.ts): a `fetch` on Node's own HTTP
 * clients. Proved against real local servers, by what the server receives and what the caller reads:
 * - a request arrives as `fetch` would send it (method, path, headers, body bytes) and its answer reads as `fetch`
 *   reads it (status, status text, headers, body), on one kept-alive connection for consecutive requests;
 * - failures look like `fetch`'s: a refused connection rejects with `TypeError('fetch failed')` and its cause (and the
 *   AI SDK calls it a retryable "Cannot connect to API"), an abort rejects or ends the body with the signal's reason,
 *   a connection lost mid-body errors the body (`terminated`);
 * - a kept-alive connection the server dropped as the next request went out is retried once on a new connection;
 * - a connection silent too long is given up (before the answer: `fetch failed`; within it: `terminated`);
 * - the body hands over in one chunk what arrived while its reader was busy, and each read as it comes to a reader
 *   that keeps up (nothing held for a later read);
 * - a compressed body is decompressed; a redirect, a Request object or a body that is not a string go to `fetch`;
 * - https verifies the server's certificate: a self-signed one is refused as `fetch` refuses it, and trusted
 *   (NODE_EXTRA_CA_CERTS, in a process of its own) it carries the request;
 * - the real providers stream through it (a tool call and its text, as the SDK parses them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join, resolve } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { APICallError } from 'ai';
import { streamModelStep } from '../../src/main/runtime/loop/model-call';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { modelTransport, modelTransportTuning } from '../../src/main/services/providers/model-transport';
import { createModel } from '../../src/main/services/providers/providers';
import { reply, startModelServer } from '../support/model-server';
import { providerStep } from '../support/provider-step';
import { tempDir } from '../support/tool-context';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: Socket;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), socket: req.socket };
      seen.push(s);
      handler(req, res, s);
    });
  });
  server.on('connection', () => connections++);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, connections: () => connections };
}

const refuse = (): never => {
  throw new Error('not expected to reach fetch');
};

describe('model transport', () => {
  it('sends what fetch sends and reads what fetch reads, on one kept-alive connection', async () => {
    const srv = await serve((_req, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'text/event-stream', 'x-request-id': 'r-1' });
      res.write('data: {"a":1}\n\n');
      res.end('data: [DONE]\n\n');
    });
    const transport = modelTransport(refuse);
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'héllo ✓' }] });
    const init = { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body };
    const viaTransport = await transport(`${srv.url}/v1/chat/completions?x=1`, init);
    const text = await viaTransport.text();
    const viaFetch = await fetch(`${srv.url}/v1/chat/completions?x=1`, init);
    expect({ status: viaTransport.status, statusText: viaTransport.statusText, ok: viaTransport.ok, type: viaTransport.headers.get('content-type'), id: viaTransport.headers.get('x-request-id'), text }).toEqual({
      status: viaFetch.status,
      statusText: viaFetch.statusText,
      ok: viaFetch.ok,
      type: viaFetch.headers.get('content-type'),
      id: viaFetch.headers.get('x-request-id'),
      text: await viaFetch.text(),
    });
    const [mine, theirs] = srv.seen;
    expect(mine!.method).toBe('POST');
    expect(mine!.url).toBe('/v1/chat/completions?x=1');
    expect(mine!.body).toBe(body);
    expect(mine!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    for (const h of ['content-type', 'authorization', 'content-length']) expect(mine!.headers[h]).toBe(theirs!.headers[h]);

    // The next request goes out on the same connection.
    const before = srv.connections();
    await (await transport(`${srv.url}/again`, init)).text();
    await (await transport(`${srv.url}/again`, init)).text();
    expect(srv.connections()).toBe(before);
    expect(srv.seen[2]!.socket).toBe(srv.seen[3]!.socket);
  });

  it('rejects a refused connection as fetch does, which the SDK calls a retryable connection failure', async () => {
    const srv = await serve(() => undefined);
    const url = srv.url;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    const err = await modelTransport(refuse)(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('fetch failed');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');

    const model = createModel({ provider: 'openai-compatible', model: 'm', baseURL: `${url}/v1`, apiKey: 'k' } as never);
    const sdkErr = await (async () => {
      try {
        for await (const _ of streamModelStep({ model, system: 's', messages: [{ role: 'user', content: 'go' }], tools: [], signal: new AbortController().signal, redactor: new SecretRedactor({ env: {} }), onUsage: () => undefined })) void _;
      } catch (e) {
        return e;
      }
      return null;
    })();
    const api = sdkErr as APICallError;
    expect(APICallError.isInstance(api)).toBe(true);
    expect(api.message).toMatch(/Cannot connect to API/);
    expect(api.isRetryable).toBe(true);
  });

  it('stops on the signal before the answer and while the body streams, with the signal’s reason', async () => {
    const srv = await serve((req, res) => {
      if (req.url === '/hang') return; // never answers
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // and nothing more
    });
    const transport = modelTransport(refuse);
    const early = new AbortController();
    const pending = transport(`${srv.url}/hang`, { method: 'POST', body: 'x', signal: early.signal });
    while (srv.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closed = once(srv.seen[0]!.socket, 'close');
    early.abort(new Error('stopped by the person'));
    await expect(pending).rejects.toThrow('stopped by the person');
    await closed; // the connection is dropped, not left waiting

    const late = new AbortController();
    const res = await transport(`${srv.url}/stream`, { method: 'POST', body: 'x', signal: late.signal });
    const reader = res.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: first\n\n');
    const next = reader.read();
    late.abort();
    const reason = await next.then(
      () => null,
      (e: unknown) => e,
    );
    expect((reason as DOMException).name).toBe('AbortError');

    // Already aborted: nothing is sent.
    const sent = srv.seen.length;
    const gone = new AbortController();
    gone.abort(new Error('before it began'));
    await expect(transport(`${srv.url}/stream`, { method: 'POST', body: 'x', signal: gone.signal })).rejects.toThrow('before it began');
    expect(srv.seen.length).toBe(sent);
  });

  it('hands a busy reader what queued up in one chunk, and a waiting reader each read as it comes', async () => {
    let writeNext: (() => void) | null = null;
    let allWritten: () => void = () => undefined;
    const written = new Promise<void>((r) => (allWritten = r));
    const srv = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url === '/burst') {
        // Three writes, apart in time, while the reader is busy elsewhere.
        res.write('data: 1\n\n');
        setTimeout(() => res.write('data: 2\n\n'), 20);
        setTimeout(() => res.end('data: 3\n\n', allWritten), 40);
        return;
      }
      // Paced: the next write only once the reader has had the one before.
      let n = 0;
      writeNext = () => (++n < 3 ? res.write(`data: ${n}\n\n`) : res.end(`data: ${n}\n\n`));
      writeNext();
    });
    const transport = modelTransport(refuse);
    const busy = await transport(`${srv.url}/burst`, { method: 'POST', body: 'x' });
    // Busy until the server has written all three, and some turns of the event loop more (each reads what the
    // socket holds), however late the timers ran.
    await written;
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
    const reader = busy.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
    expect((await reader.read()).done).toBe(true);

    const paced = await transport(`${srv.url}/paced`, { method: 'POST', body: 'x' });
    const r2 = paced.body!.getReader();
    const got: string[] = [];
    for (;;) {
      const { done, value } = await r2.read();
      if (done) break;
      got.push(Buffer.from(value).toString());
      writeNext!();
    }
    expect(got).toEqual(['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n']);
  });

  it('gives up a connection that stays silent, before the answer and within it', async () => {
    const srv = await serve((req, res) => {
      if (req.url === '/silent') return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // then nothing
    });
    const was = modelTransportTuning.idleMs;
    modelTransportTuning.idleMs = 500; // long enough for a loaded machine to answer the request that streams
    try {
      const transport = modelTransport(refuse);
      const before = await transport(`${srv.url}/silent`, { method: 'POST', body: 'x' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect((before as TypeError).message).toBe('fetch failed');
      expect(((before as TypeError).cause as NodeJS.ErrnoException).code).toBe('ETIMEDOUT');
      const res = await transport(`${srv.url}/stalls`, { method: 'POST', body: 'x' });
      const within = await res.text().then(
        () => null,
        (e: unknown) => e,
      );
      expect((within as TypeError).message).toBe('terminated');
    } finally {
      modelTransportTuning.idleMs = was;
    }
  });

  it('errors the body when the connection is lost mid-answer', async () => {
    const srv = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: part\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const res = await modelTransport(refuse)(`${srv.url}/s`, { method: 'POST', body: 'x' });
    const err = await res.text().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('terminated');
  });

  it('sends a request once more on a new connection when the kept-alive one was dropped under it', async () => {
    let n = 0;
    const srv = await serve((_req, res, seen) => {
      n++;
      // The second request reaches a connection the server is closing: dropped unanswered, as a server's idle close
      // crossing the client's next request is.
      if (n === 2) {
        seen.socket.destroy();
        return;
      }
      res.end(`answer ${n}`);
    });
    const transport = modelTransport(refuse);
    expect(await (await transport(`${srv.url}/a`, { method: 'POST', body: 'one' })).text()).toBe('answer 1');
    expect(await (await transport(`${srv.url}/a`, { method: 'POST', body: 'two' })).text()).toBe('answer 3');
    expect(srv.seen.map((s) => s.body)).toEqual(['one', 'two', 'two']);
    expect(srv.seen[2]!.socket).not.toBe(srv.seen[1]!.socket);
    expect(srv.connections()).toBe(2);
  });

  it('decompresses a compressed body and leaves what it does not carry to fetch', async () => {
    const srv = await serve((req, res) => {
      if (req.url === '/gz') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
        res.end(gzipSync('{"error":{"message":"over quota"}}'));
      } else if (req.url === '/moved') {
        res.writeHead(307, { location: '/there' });
        res.end();
      } else if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
      } else res.end('plain');
    });
    const calls: string[] = [];
    const inner = () => ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${input instanceof Request ? input.url : String(input)}`);
      return fetch(input, init);
    }) as typeof fetch;
    const transport = modelTransport(inner);
    expect(await (await transport(`${srv.url}/gz`, { method: 'POST', body: '{}' })).json()).toEqual({ error: { message: 'over quota' } });
    const empty = await transport(`${srv.url}/empty`, { method: 'POST', body: '{}' });
    expect([empty.status, empty.body]).toEqual([204, null]);
    expect(calls).toEqual([]);

    // A redirect: fetch sends the request again and follows it.
    const moved = await transport(`${srv.url}/moved`, { method: 'POST', body: 'b' });
    expect(await moved.text()).toBe('plain');
    expect(calls).toEqual([`POST ${srv.url}/moved`]);
    expect(srv.seen.filter((s) => s.url === '/there').map((s) => s.body)).toEqual(['b']);

    // Not carried here: a Request, a body that is not a string, another method.
    await (await transport(new Request(`${srv.url}/r`, { method: 'POST', body: 'q' }))).text();
    await (await transport(`${srv.url}/u`, { method: 'POST', body: new Uint8Array([1, 2]) })).text();
    await (await transport(`${srv.url}/p`, { method: 'PUT', body: 'p' })).text();
    expect(calls.slice(1)).toEqual([`GET ${srv.url}/r`, `POST ${srv.url}/u`, `PUT ${srv.url}/p`]);
    // Credentials in the URL: fetch refuses them, and so the call fails as it did.
    const withCredentials = srv.url.replace('http://', 'http://user:pw@');
    await expect(transport(`${withCredentials}/c`, { method: 'POST', body: 'c' })).rejects.toThrow(/credentials/);
    expect(srv.seen.some((s) => s.url === '/c')).toBe(false);
  });

  it('verifies https certificates: a self-signed one is refused as fetch refuses it, a trusted one carries the request', async () => {
    const dir = tempDir('deskhand-transport-tls-');
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const bodies: string[] = [];
    const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => {
        bodies.push(b);
        res.end(`over tls: ${b}`);
      });
    });
    servers.push(server as unknown as http.Server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
    const refused = await modelTransport(refuse)(url, { method: 'POST', body: 'secret prompt' }).then(
      () => null,
      (e: unknown) => e,
    );
    const byFetch = await fetch(url, { method: 'POST', body: 'secret prompt' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((refused as TypeError).message).toBe('fetch failed');
    expect(((refused as TypeError).cause as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(((refused as TypeError).cause as NodeJS.ErrnoException).code).toBe(((byFetch as TypeError).cause as NodeJS.ErrnoException).code);
    expect(bodies).toEqual([]); // nothing was sent to the untrusted server

    const script = join(dir, 'trusted.mts');
    writeFileSync(script, `import { modelTransport } from ${JSON.stringify(resolve('src/main/services/providers/model-transport.ts'))};\nconst res = await modelTransport(() => { throw new Error('not fetch'); })(${JSON.stringify(url)}, { method: 'POST', body: 'hello' });\nprocess.stdout.write(await res.text());\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: cert }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const [code] = (await once(child, 'close')) as [number];
    expect([code, out], err).toEqual([0, 'over tls: hello']);
    expect(bodies).toEqual(['hello']);
  });

  it('carries the real providers: a step with text and a tool call parses as before', async () => {
    const server = await startModelServer();
    try {
      for (const provider of ['openai-compatible', 'anthropic'] as const) {
        server.enqueue(reply().text('Looking it up.').tool('lookup', { q: 'deskhand' }));
        const parts = await providerStep(provider, server.baseURL);
        expect(parts.filter((p) => p.type === 'text').map((p) => (p as { delta: string }).delta).join('')).toBe('Looking it up.');
        const call = parts.find((p) => p.type === 'tool-call') as { toolName: string; input: string } | undefined;
        expect([call?.toolName, JSON.parse(call?.input ?? 'null')]).toEqual(['lookup', { q: 'deskhand' }]);
      }
      expect(server.requests.length).toBe(2);
      // Carried by the transport, not by fetch: fetch adds its own request headers (`sec-fetch-mode`, `accept-language`).
      for (const r of server.requests) expect([r.headers['sec-fetch-mode'], r.headers['accept-language']]).toEqual([undefined, undefined]);
    } finally {
      await server.close();
    }
  });
});
