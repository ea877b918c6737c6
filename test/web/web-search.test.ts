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

/** A backend that answers every request with `body` (its real shape for the kind asked), logging what it got. */
async function backend(body: unknown): Promise<TestServer> {
  const s = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  servers.push(s);
  return s;
}
const params = (s: TestServer, i = 0) => Object.fromEntries(new URL(s.log[i]!.url, s.origin).searchParams);

describe('web_search kinds, freshness, country and language, per backend', () => {
  it('SearXNG: categories, time_range and language (with the country as its region); images and videos with their media', async () => {
    const s = await backend({
      results: [
        { url: 'https://example.org/cat', title: 'A cat', content: 'A photo', img_src: 'https://img.example.org/cat.jpg', thumbnail_src: 'https://img.example.org/t.jpg' },
        { url: 'https://video.example.org/v1', title: 'Cats', content: '', thumbnail: 'https://video.example.org/v1.jpg', length: '3:21' },
      ],
    });
    const { call } = searchTool({ backend: 'searxng', url: s.origin, keySecret: null });
    const news = await call({ query: 'wahlen', kind: 'news', recency: 'day', language: 'DE', country: 'ch' });
    expect(params(s, 0)).toEqual({ q: 'wahlen', format: 'json', pageno: '1', categories: 'news', time_range: 'day', language: 'de-CH' });
    expect(news.output).toContain('1. A cat');
    const images = await call({ query: 'cat', kind: 'images', language: 'en' });
    expect(params(s, 1)).toEqual({ q: 'cat', format: 'json', pageno: '1', categories: 'images', language: 'en' });
    expect(images.output).toContain('   https://example.org/cat\n   media: https://img.example.org/cat.jpg\n   A photo');
    const videos = await call({ query: 'cat', kind: 'videos' });
    expect(params(s, 2)).toEqual({ q: 'cat', format: 'json', pageno: '1', categories: 'videos' });
    expect(videos.output).toContain('2. Cats\n   https://video.example.org/v1\n   media: https://video.example.org/v1.jpg\n   duration: 3:21');
    // A country alone has nowhere to go in SearXNG's API: said, and nothing is sent.
    await expect(call({ query: 'x', country: 'DE' })).rejects.toThrow(/SearXNG backend cannot filter web search by country without a language \(give language too/);
    expect(s.log).toHaveLength(3);
  });

  it('Brave: one endpoint per kind, freshness, country and search_lang; image search has no freshness', async () => {
    const s = await startServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body =
        path === '/res/v1/news/search'
          ? { type: 'news', results: [{ title: 'Wahl <strong>2026</strong>', url: 'https://news.example.de/wahl', description: 'Ergebnisse', age: '2 hours ago', page_age: '2026-12-02T04:00:00' }] }
          : path === '/res/v1/images/search'
            ? { type: 'images', results: [{ title: 'Katze', url: 'https://example.de/katze', source: 'example.de', thumbnail: { src: 'https://imgs.search.brave.com/t' }, properties: { url: 'https://example.de/katze.jpg' } }] }
            : { type: 'videos', results: [{ title: 'Katzen', url: 'https://video.example.de/k', description: 'Ein Video', age: 'May 1, 2026', video: { duration: '04:05' }, thumbnail: { src: 'https://imgs.search.brave.com/v' } }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    servers.push(s);
    const { call } = searchTool({ backend: 'brave', url: s.origin, keySecret: 'BRAVE_API_KEY' }, { BRAVE_API_KEY: 'BSA-k' });
    const news = await call({ query: 'wahl', kind: 'news', recency: 'day', country: 'de', language: 'de', max_results: 7 });
    expect(new URL(s.log[0]!.url, s.origin).pathname).toBe('/res/v1/news/search');
    expect(params(s, 0)).toEqual({ q: 'wahl', count: '7', freshness: 'pd', country: 'DE', search_lang: 'de' });
    expect(news.output).toBe('1. Wahl 2026\n   https://news.example.de/wahl\n   2026-12-02T04:00:00\n   Ergebnisse');
    const images = await call({ query: 'katze', kind: 'images', country: 'AT' });
    expect(new URL(s.log[1]!.url, s.origin).pathname).toBe('/res/v1/images/search');
    expect(params(s, 1)).toEqual({ q: 'katze', count: '5', country: 'AT' });
    expect(images.output).toBe('1. Katze\n   https://example.de/katze\n   media: https://example.de/katze.jpg\n   example.de');
    const videos = await call({ query: 'katzen', kind: 'videos', recency: 'year' });
    expect(new URL(s.log[2]!.url, s.origin).pathname).toBe('/res/v1/videos/search');
    expect(params(s, 2)).toEqual({ q: 'katzen', count: '5', freshness: 'py' });
    expect(videos.output).toContain('media: https://imgs.search.brave.com/v\n   duration: 04:05\n   May 1, 2026');
    await expect(call({ query: 'katze', kind: 'images', recency: 'week' })).rejects.toThrow(/Brave Search backend cannot filter images search by recency \(freshness\)/);
    expect(s.log).toHaveLength(3);
  });

  it('Tavily: topic news, images from include_images, country by name; no videos and no language, said before sending', async () => {
    const s = await backend({
      query: 'q',
      results: [{ title: 'Budget', url: 'https://news.example.com/budget', content: 'The budget passed', published_date: '2026-12-01' }],
      images: [{ url: 'https://img.example.com/a.png', description: 'A chart of the budget' }, 'https://img.example.com/b.png'],
    });
    const { call } = searchTool({ backend: 'tavily', url: s.origin, keySecret: 'TAVILY_API_KEY' }, { TAVILY_API_KEY: 'tvly-k' });
    const news = await call({ query: 'budget', kind: 'news', recency: 'week' });
    expect(JSON.parse(s.log[0]!.body)).toEqual({ query: 'budget', max_results: 5, search_depth: 'basic', topic: 'news', time_range: 'week' });
    expect(news.output).toContain('1. Budget\n   https://news.example.com/budget\n   2026-12-01');
    const images = await call({ query: 'budget chart', kind: 'images' });
    expect(JSON.parse(s.log[1]!.body)).toEqual({ query: 'budget chart', max_results: 5, search_depth: 'basic', include_images: true, include_image_descriptions: true });
    expect(images.output).toBe('1. (image)\n   https://img.example.com/a.png\n   A chart of the budget\n\n2. (image)\n   https://img.example.com/b.png');
    await call({ query: 'budget', country: 'us' });
    expect(JSON.parse(s.log[2]!.body)).toEqual({ query: 'budget', max_results: 5, search_depth: 'basic', country: 'united states' });
    await expect(call({ query: 'x', kind: 'videos' })).rejects.toThrow(/Tavily backend cannot search videos; it searches web, news, images/);
    await expect(call({ query: 'x', language: 'fr' })).rejects.toThrow(/Tavily backend cannot filter web search by language/);
    await expect(call({ query: 'x', kind: 'news', country: 'FR' })).rejects.toThrow(/Tavily backend cannot filter news search by country/);
    expect(s.log).toHaveLength(3);
  });

  it('refuses codes that are not two letters, naming the form', async () => {
    const { tool } = searchTool({ backend: 'searxng', url: 'http://127.0.0.1:9', keySecret: null });
    for (const country of ['USA', 'u', 'U1', 'united states', '']) expect(tool.params.safeParse({ query: 'x', country }).error?.issues[0]?.message, country).toMatch(/two-letter ISO 3166 code/);
    for (const language of ['eng', 'e', 'de-CH', '']) expect(tool.params.safeParse({ query: 'x', language }).error?.issues[0]?.message, language).toMatch(/two-letter ISO 639-1 code/);
    expect(tool.params.safeParse({ query: 'x', kind: 'maps' }).success).toBe(false);
  });
});
