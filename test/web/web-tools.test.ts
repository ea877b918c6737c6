/**
 * web_fetch and http_request against local servers started here, decided by the real engine and run as the runtime
 * runs them (a person's approval carries the decision's reasons). Effects are proven by the servers' request logs
 * and byte counts: what was never requested, what arrived, where a stream was cut.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callEffects, decide } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { createWebFamily } from '../../src/main/tools/web';
import type { PinnedHttpClient } from '../../src/main/services/http/pinned-client';
import { makeContext, tempDir } from '../support/tool-context';
import { clientWith, startServer, type TestServer } from './servers';

let work: string;
const servers: TestServer[] = [];
beforeAll(() => {
  work = tempDir();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

function family(http: PinnedHttpClient, opts: { grants?: string[]; fetchTimeoutMs?: number } = {}) {
  const tools = createWebFamily({ http, urlGrants: () => opts.grants ?? [], search: () => null, keys: null, ...(opts.fetchTimeoutMs ? { fetchTimeoutMs: opts.fetchTimeoutMs } : {}) }).tools;
  const byName = (n: string) => tools.find((t) => t.name === n)!;
  return { fetch: byName('web_fetch'), request: byName('http_request'), grants: opts.grants ?? [] };
}

/** Decides the call with the engine; when it asks, a person approves it (what they saw is what is cleared). */
async function run(tool: ToolDefinition, args: unknown, opts: { policy?: 'read-only' | 'high-risk'; grants?: readonly string[]; approve?: boolean } = {}) {
  const ectx = { cwd: work, workspaceRoots: [work], dataDir: work };
  const parsed = tool.params.parse(args);
  const effects = await callEffects(tool, parsed, ectx);
  const decision = decide({ tool, args: parsed, effects, policy: opts.policy ?? 'read-only', tainted: false, ctx: ectx, urlGrants: opts.grants ?? [] });
  if (decision.decision === 'deny') return { decision, output: null, error: decision.reasons.join('; ') };
  if (decision.decision === 'ask' && opts.approve === false) return { decision, output: null, error: 'not approved' };
  const ctx = { ...makeContext(work), approvedByPerson: decision.decision === 'ask', decisionReasons: decision.reasons };
  try {
    const result = await tool.execute(parsed as never, ctx);
    return { decision, output: result.output, untrusted: result.untrustedSource, error: null };
  } catch (err) {
    return { decision, output: null, error: (err as Error).message };
  }
}

const ARTICLE = (title: string, text: string) =>
  `<html><head><title>${title}</title></head><body><nav><a href="/">Home</a> | menu | login</nav><article><h1>${title}</h1>` +
  `${`<p>${text} This paragraph is long enough to be taken for the article's main content by Readability.</p>`.repeat(6)}` +
  `<p><a href="/next">next page</a> <img src="/pic.png" alt="a picture"></p></article><footer>© footer</footer><script>alert(1)</script></body></html>`;

describe('web_fetch', () => {
  it('extracts the main content as markdown with absolute links, in the untrusted envelope source', async () => {
    const a = await server((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE('Hello world', 'Plain words.')));
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1' }));
    const r = await run(fetch, { url: `http://site.test:${a.port}/post` });
    expect(r.decision.decision).toBe('ask'); // site.test resolves to loopback here: a person approves it
    expect(r.error).toBeNull();
    expect(r.output).toContain('Title: Hello world');
    expect(r.output).toContain('Plain words.');
    expect(r.output).toContain(`[next page](http://site.test:${a.port}/next)`);
    expect(r.output).toContain(`![a picture](http://site.test:${a.port}/pic.png)`);
    expect(r.output).not.toContain('alert(1)');
    expect(r.untrusted).toBe(`web_fetch http://site.test:${a.port}/post`);
    expect(a.log.map((l) => l.url)).toEqual(['/post']);
    expect(a.log[0]!.headers.host).toBe(`site.test:${a.port}`);
  });

  it('decodes pages in their charsets (header, meta, BOM, gzip, undeclared legacy)', async () => {
    const cyrillic1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // Привет
    const sjis = Buffer.from([0x82, 0xb1, 0x82, 0xf1, 0x82, 0xc9, 0x82, 0xbf, 0x82, 0xcd]); // こんにちは
    const koi8 = Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]); // Привет
    const page = (head: string, word: Buffer) => Buffer.concat([Buffer.from(`<html><head>${head}<title>t</title></head><body><article><p>`), word, Buffer.from(` ${'filler text for the reader. '.repeat(20)}</p></article></body></html>`)]);
    const routes: Record<string, [Record<string, string>, Buffer]> = {
      '/cp1251': [{ 'content-type': 'text/html; charset=windows-1251' }, page('', cyrillic1251)],
      '/sjis': [{ 'content-type': 'text/html' }, page('<meta charset="Shift_JIS">', sjis)],
      '/koi8': [{ 'content-type': 'text/html' }, page('<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">', koi8)],
      '/utf16': [{ 'content-type': 'text/html' }, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ARTICLE('Grüße', 'Ünïcödé in UTF-16 ✓'), 'utf16le')])],
      '/gzip': [{ 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }, gzipSync(Buffer.from(ARTICLE('Zipped', 'Emoji 🚀 survives gzip')))],
      '/legacy': [{ 'content-type': 'text/html' }, Buffer.from(ARTICLE('Café', 'Crème brûlée à la carte'), 'latin1')],
    };
    const a = await server((req, res) => {
      const [headers, body] = routes[req.url ?? '']!;
      res.writeHead(200, headers).end(body);
    });
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1' }));
    const expectations: [string, string, string][] = [
      ['/cp1251', 'Привет', 'windows-1251'],
      ['/sjis', 'こんにちは', 'shift_jis'],
      ['/koi8', 'Привет', 'koi8-r'],
      ['/utf16', 'Ünïcödé in UTF-16 ✓', 'utf-16le'],
      ['/gzip', 'Emoji 🚀 survives gzip', 'utf-8'],
      ['/legacy', 'Crème brûlée à la carte', 'windows-1252'],
    ];
    for (const [path, word, charset] of expectations) {
      const r = await run(fetch, { url: `http://site.test:${a.port}${path}`, format: 'text' });
      expect(r.error, path).toBeNull();
      expect(r.output, path).toContain(word);
      expect(r.output, path).toContain(`Charset: ${charset}`);
    }
  });

  it('never follows a redirect from an approved URL to loopback, another local name or a mapped address', async () => {
    const b = await server((_req, res) => res.end('the secret admin page'));
    const targets = [`http://127.0.0.1:${b.port}/admin`, `http://evil.test:${b.port}/admin`, `http://[::ffff:127.0.0.1]:${b.port}/admin`, `http://localhost:${b.port}/admin`, `http://2130706433:${b.port}/admin`];
    const a = await server((req, res) => {
      const i = Number(/\/go\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
      if (i >= 0) return res.writeHead(302, { location: targets[i]! }).end();
      if (req.url === '/same') return res.writeHead(301, { location: '/final' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('final page');
    });
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1', 'evil.test': '127.0.0.1', localhost: '127.0.0.1' }));
    for (let i = 0; i < targets.length; i++) {
      const r = await run(fetch, { url: `http://site.test:${a.port}/go/${i}` });
      expect(r.error, targets[i]).toBeNull();
      expect(r.output, targets[i]).toMatch(/was not followed: .*(loopback|IPv4-mapped)/);
    }
    expect(b.log).toEqual([]); // nothing ever reached the loopback target
    const same = await run(fetch, { url: `http://site.test:${a.port}/same` });
    expect(same.output).toContain('final page'); // the control: a same-destination redirect is followed
    expect(same.output).toContain(`Redirected (301): http://site.test:${a.port}/same → http://site.test:${a.port}/final`);
  });

  it('connects to the address it judged: DNS that turns private after the decision is refused before anything is sent', async () => {
    const a = await server((_req, res) => res.end('should never be read'));
    const { fetch, request } = family(clientWith({ 'flip.test': [['93.184.216.34'], ['127.0.0.1']], 'flop.test': [['93.184.216.34'], ['127.0.0.1']] }));
    const r = await run(fetch, { url: `http://flip.test:${a.port}/` });
    expect(r.decision.decision).toBe('allow'); // public when decided, under read-only
    expect(r.error).toMatch(/flip\.test resolved to 127\.0\.0\.1 .*not approved/);
    // a person approving a public-looking request does not approve the private address it later resolves to
    const h = await run(request, { method: 'GET', url: `http://flop.test:${a.port}/` }, { policy: 'read-only' });
    expect(h.decision.decision).toBe('ask');
    expect(h.error).toMatch(/flop\.test resolved to 127\.0\.0\.1 .*not approved/);
    expect(a.log).toEqual([]);
  });

  it('counts redirects: at most 10 are followed', async () => {
    const a = await server((req, res) => {
      const n = Number(/\/loop\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      res.writeHead(302, { location: `/loop/${n + 1}` }).end();
    });
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1' }));
    const r = await run(fetch, { url: `http://site.test:${a.port}/loop/0` });
    expect(r.output).toContain('more than 10 redirects');
    expect(a.log.map((l) => l.url)).toEqual(Array.from({ length: 11 }, (_, i) => `/loop/${i}`));
  });

  it('cuts an endless response at the time cap and a slow server that never answers is an error', async () => {
    let closed!: () => void;
    const closedByClient = new Promise<void>((r) => (closed = r));
    const a = await server((req, res) => {
      if (req.url === '/silent') return; // headers never come
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('tick\n'), 20);
      res.on('close', () => {
        clearInterval(timer);
        closed();
      });
    });
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1' }), { fetchTimeoutMs: 1500 });
    const r = await run(fetch, { url: `http://site.test:${a.port}/endless` });
    expect(r.error).toBeNull();
    expect(r.output).toContain('Cut after 1500 ms: the server was still sending.');
    expect(r.output).toContain('tick');
    await closedByClient; // the client hung up: the endless stream is not read on in the background
    const silent = await run(fetch, { url: `http://site.test:${a.port}/silent` });
    expect(silent.error).toMatch(/no response from .* within 1500 ms/);
  });

  it('cuts a 50 MB body at the cap without reading it: the server could not send it and memory stays below it', async () => {
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const a = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => done());
      pump();
    });
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1' }));
    const cap = 2 * 1024 * 1024;
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss - before.rss);
    }, 5);
    const r = await run(fetch, { url: `http://site.test:${a.port}/big`, max_bytes: cap });
    clearInterval(sampler);
    await finished;
    expect(r.error).toBeNull();
    expect(r.output).toContain(`Cut at ${cap} bytes`);
    expect(r.output).toContain(`· ${cap} bytes`);
    expect(sent).toBeLessThan(16 * 1024 * 1024); // backpressure: most of the 50 MB was never even written (≈4 MB here)
    expect(peak).toBeLessThan(16 * 1024 * 1024); // resident memory grew by a few MB, never toward 50 MB
  });

  it('hands PDFs over to read_pdf (no reader here) and describes images', async () => {
    const a = await server((req, res) => {
      if (req.url === '/doc.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 ...');
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100));
    });
    const { fetch } = family(clientWith({ 'site.test': '127.0.0.1' }));
    const pdf = (await run(fetch, { url: `http://site.test:${a.port}/doc.pdf` })).output;
    expect(pdf).not.toContain('not available');
    expect(pdf).toContain(`call read_pdf {url: "http://site.test:${a.port}/doc.pdf"}`);
    expect((await run(fetch, { url: `http://site.test:${a.port}/i.png` })).output).toContain(`![image](http://site.test:${a.port}/i.png)`);
  });
});

describe('http_request', () => {
  it('sends the body, keeps the response structured and keeps no cookies', async () => {
    const a = await server((_req, res, body) => {
      res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': 'session=abc123; HttpOnly' }).end(JSON.stringify({ got: JSON.parse(body) as unknown, ok: true }));
    });
    const { request } = family(clientWith({ 'api.test': '127.0.0.1' }));
    const r = await run(request, { method: 'POST', url: `http://api.test:${a.port}/v1/items?x=1`, json: { name: 'x', n: 2 }, headers: { 'X-Trace': 't1' } });
    expect(r.error).toBeNull();
    const out = JSON.parse(r.output!) as { status: number; json: unknown; headers: Record<string, string> };
    expect(out.status).toBe(201);
    expect(out.json).toEqual({ got: { name: 'x', n: 2 }, ok: true });
    expect(out.headers['set-cookie']).toBe('[dropped: Deskhand keeps no cookies]');
    expect(r.output).not.toContain('abc123');
    expect(a.log[0]).toMatchObject({ method: 'POST', url: '/v1/items?x=1', body: '{"name":"x","n":2}' });
    expect(a.log[0]!.headers['content-type']).toBe('application/json');
    expect(a.log[0]!.headers['x-trace']).toBe('t1');
  });

  it('shows method, full URL, headers (placeholders as they are) and body in the approval preview', async () => {
    const { request } = family(clientWith({}));
    const proposal = await request.pair!.propose(
      { method: 'POST', url: 'https://api.example.com/v1/x?q=1', headers: { Authorization: 'Bearer [redacted:GH_TOKEN]' }, body: '{"a":1}' } as never,
      makeContext(work),
    );
    expect(proposal.preview).toBe('POST https://api.example.com/v1/x?q=1\nAuthorization: Bearer [redacted:GH_TOKEN]\n\n{"a":1}');
  });

  it('takes saved secrets only in header values, and a secret always asks', async () => {
    const { request } = family(clientWith({ 'api.example.com': '93.184.216.34' }));
    const ectx = { cwd: work, workspaceRoots: [work], dataDir: work };
    const decideFor = async (args: unknown) => {
      const parsed = request.params.parse(args);
      return decide({ tool: request, args: parsed, effects: await callEffects(request, parsed, ectx), policy: 'high-risk', tainted: false, ctx: ectx, heldSecrets: new Set(['GH_TOKEN']) });
    };
    const inHeader = await decideFor({ method: 'GET', url: 'https://api.example.com/u', headers: { Authorization: 'Bearer [redacted:GH_TOKEN]' } });
    expect(inHeader.decision).toBe('ask');
    expect(inHeader.secrets).toEqual(['GH_TOKEN']);
    for (const args of [
      { method: 'GET', url: 'https://api.example.com/u?token=[redacted:GH_TOKEN]' },
      { method: 'POST', url: 'https://api.example.com/u', body: 'token=[redacted:GH_TOKEN]' },
      { method: 'POST', url: 'https://api.example.com/u', json: { token: '[redacted:GH_TOKEN]' } },
    ]) {
      expect((await decideFor(args)).decision, JSON.stringify(args)).toBe('deny');
    }
  });
});

describe('the HTTP service across origins', () => {
  it('drops credentials and custom headers on a redirect to another origin and never forwards a body there', async () => {
    const b = await server((_req, res) => res.end('b'));
    const a = await server((req, res) => {
      if (req.url === '/hop') return res.writeHead(302, { location: `${b.origin}/landed` }).end();
      if (req.url === '/keep') return res.writeHead(307, { location: `${b.origin}/post` }).end();
      if (req.url === '/same307') return res.writeHead(307, { location: '/again' }).end();
      res.end('a');
    });
    const http = clientWith({});
    const allowPrivate = new Map([
      [`127.0.0.1:${a.port}`, null],
      [`127.0.0.1:${b.port}`, null],
    ]);
    const headers = { authorization: 'Bearer s3cret', 'x-api-key': 'k', cookie: 'sid=1', accept: 'text/plain' };
    const hop = await http.request({ method: 'GET', url: `${a.origin}/hop`, headers, maxBytes: 1000, timeoutMs: 5000, allowPrivate });
    expect(hop.body.toString()).toBe('b');
    expect(a.log[0]!.headers.authorization).toBe('Bearer s3cret');
    const landed = b.log[0]!;
    expect(landed.headers.authorization).toBeUndefined();
    expect(landed.headers['x-api-key']).toBeUndefined();
    expect(landed.headers.cookie).toBeUndefined();
    expect(landed.headers.accept).toBe('text/plain');

    const post = await http.request({ method: 'POST', url: `${a.origin}/keep`, headers, body: 'payload', maxBytes: 1000, timeoutMs: 5000, allowPrivate });
    expect(post.stoppedRedirect?.reason).toContain('bodies are never forwarded across origins');
    expect(b.log.map((l) => l.url)).toEqual(['/landed']); // the POST never reached b

    await http.request({ method: 'POST', url: `${a.origin}/same307`, headers, body: 'payload', maxBytes: 1000, timeoutMs: 5000, allowPrivate });
    expect(a.log.filter((l) => l.method === 'POST').map((l) => [l.url, l.body, l.headers.authorization])).toEqual([
      ['/keep', 'payload', 'Bearer s3cret'],
      ['/same307', 'payload', 'Bearer s3cret'],
      ['/again', 'payload', 'Bearer s3cret'],
    ]);
  });
});
