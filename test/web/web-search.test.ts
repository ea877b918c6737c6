/** web_search against local servers speaking each backend's real wire format; the request each received is checked. */
import { afterEach, describe, expect, it } from 'vitest';
import type { SearchSettings } from '../../src/shared/contract';
import { createWebFamily } from '../../src/main/tools/web';
import { makeContext, tempDir } from '../support/tool-context';
import { clientWith, startServer, type TestServer } from './servers';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function searchTool(settings: SearchSettings | null, keys: Record<string, string> = {}) {
  const learned: string[] = [];
  const tool = createWebFamily({
    http: clientWith({}),
    urlGrants: () => [],
    search: () => settings,
    keys: { get: async (n) => keys[n] ?? null, learn: (n) => void learned.push(n) },
  }).tools.find((t) => t.name === 'web_search')!;
  return { tool, learned, call: (args: unknown) => tool.execute(tool.params.parse(args) as never, makeContext(tempDir())) };
}

describe('web_search backends', () => {
  it('SearXNG: GET /search?format=json with site and time range; results with dates', async () => {
    const s = await startServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: 'q',
          number_of_results: 2,
          results: [
            { url: 'https://docs.python.org/3/library/asyncio.html', title: 'asyncio', content: 'Asynchronous <b>I/O</b>', engine: 'duckduckgo', publishedDate: '2026-11-01T00:00:00' },
            { url: 'https://docs.python.org/3/', title: 'Python docs', content: 'Docs', engine: 'bing', publishedDate: null },
          ],
          answers: [],
          suggestions: [],
        }),
      ),
    );
    servers.push(s);
    const { call } = searchTool({ backend: 'searxng', url: `${s.origin}/searx/`, keySecret: null });
    const r = await call({ query: 'asyncio tutorial', site: 'docs.python.org', recency: 'month', max_results: 2 });
    const u = new URL(s.log[0]!.url, s.origin);
    expect(u.pathname).toBe('/searx/search');
    expect(Object.fromEntries(u.searchParams)).toEqual({ q: 'site:docs.python.org asyncio tutorial', format: 'json', pageno: '1', time_range: 'month' });
    expect(r.output).toBe(
      '1. asyncio\n   https://docs.python.org/3/library/asyncio.html\n   2026-11-01T00:00:00\n   Asynchronous I/O\n\n2. Python docs\n   https://docs.python.org/3/\n   Docs',
    );
    expect(r.untrustedSource).toBe('web_search searxng');
  });

  it('Brave: GET /res/v1/web/search with X-Subscription-Token from the vault; web.results', async () => {
    const s = await startServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'search',
          query: { original: 'rust async' },
          web: { type: 'search', results: [{ title: 'Async in <strong>Rust</strong>', url: 'https://rust-lang.org/async', description: 'The <strong>async</strong> book', age: 'November 3, 2026', page_age: '2026-11-03T10:00:00', language: 'en' }] },
        }),
      ),
    );
    servers.push(s);
    const { call, learned } = searchTool({ backend: 'brave', url: s.origin, keySecret: 'BRAVE_API_KEY' }, { BRAVE_API_KEY: 'BSA-test-key' });
    const r = await call({ query: 'rust async', recency: 'week', max_results: 3 });
    const req = s.log[0]!;
    const u = new URL(req.url, s.origin);
    expect(req.method).toBe('GET');
    expect(u.pathname).toBe('/res/v1/web/search');
    expect(Object.fromEntries(u.searchParams)).toEqual({ q: 'rust async', count: '3', freshness: 'pw' });
    expect(req.headers['x-subscription-token']).toBe('BSA-test-key');
    expect(req.headers.accept).toBe('application/json');
    expect(learned).toEqual(['BRAVE_API_KEY']); // the key is redacted from everything from now on
    expect(r.output).toBe('1. Async in Rust\n   https://rust-lang.org/async\n   2026-11-03T10:00:00\n   The async book');
  });

  it('Tavily: POST /search with a Bearer key and the JSON body; results', async () => {
    const s = await startServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: 'electron ipc',
          answer: null,
          results: [{ title: 'IPC', url: 'https://electronjs.org/docs/latest/tutorial/ipc', content: 'Inter-process communication', score: 0.93, published_date: '2026-10-10' }],
          response_time: 0.8,
        }),
      ),
    );
    servers.push(s);
    const { call } = searchTool({ backend: 'tavily', url: s.origin, keySecret: 'TAVILY_API_KEY' }, { TAVILY_API_KEY: 'tvly-test' });
    const r = await call({ query: 'electron ipc', site: 'electronjs.org', recency: 'year', max_results: 4 });
    const req = s.log[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/search');
    expect(req.headers.authorization).toBe('Bearer tvly-test');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ query: 'electron ipc', max_results: 4, search_depth: 'basic', include_domains: ['electronjs.org'], time_range: 'year' });
    expect(r.output).toBe('1. IPC\n   https://electronjs.org/docs/latest/tutorial/ipc\n   2026-10-10\n   Inter-process communication');
  });

  it('says how to configure a backend when none is, or when its key is missing', async () => {
    await expect(searchTool(null).call({ query: 'x' })).rejects.toThrow(/deskhand search set searxng --url/);
    await expect(searchTool({ backend: 'brave', url: null, keySecret: 'BRAVE_API_KEY' }).call({ query: 'x' })).rejects.toThrow(/deskhand secrets set BRAVE_API_KEY/);
  });

  it('reports a backend error and a response in the wrong format', async () => {
    const s = await startServer((req, res) => {
      if (req.url?.startsWith('/bad')) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"unexpected":true}');
      res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":"rate limited"}');
    });
    servers.push(s);
    await expect(searchTool({ backend: 'searxng', url: s.origin, keySecret: null }).call({ query: 'x' })).rejects.toThrow(/answered 429/);
    await expect(searchTool({ backend: 'searxng', url: `${s.origin}/bad`, keySecret: null }).call({ query: 'x' })).rejects.toThrow(/no "results" list/);
  });
});
