/**
 * web_search backends, each in its real wire format:
 * - SearXNG (self-hosted, no key): `GET {url}/search?q=…&format=json[&time_range=day|week|month|year]`,
 *   results `{results: [{url, title, content, publishedDate}]}`.
 * - Brave Search API: `GET {url}/res/v1/web/search?q=…&count=N[&freshness=pd|pw|pm|py]` with
 *   `X-Subscription-Token`, results `{web: {results: [{title, url, description, page_age, age}]}}`.
 * - Tavily: `POST {url}/search` with `Authorization: Bearer KEY` and `{query, max_results, include_domains, time_range}`,
 *   results `{results: [{title, url, content, published_date}]}`.
 */
import type { SearchBackend, SearchSettings } from '../../../shared/contract';

export interface SearchQuery {
  query: string;
  maxResults: number;
  site?: string;
  recency?: 'day' | 'week' | 'month' | 'year';
}

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  date: string | null;
}

export interface BackendRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export const DEFAULT_ENDPOINTS: Record<SearchBackend, string | null> = {
  searxng: null,
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
};

export const NEEDS_KEY: Record<SearchBackend, boolean> = { searxng: false, brave: true, tavily: true };

export function endpointOf(settings: SearchSettings): string | null {
  return (settings.url ?? DEFAULT_ENDPOINTS[settings.backend])?.replace(/\/+$/, '') ?? null;
}

const BRAVE_FRESHNESS = { day: 'pd', week: 'pw', month: 'pm', year: 'py' } as const;

export function buildSearchRequest(settings: SearchSettings, q: SearchQuery, key: string | null): BackendRequest {
  const base = endpointOf(settings);
  if (!base) throw new Error(`the ${settings.backend} backend needs a URL`);
  switch (settings.backend) {
    case 'searxng': {
      const u = new URL(`${base}/search`);
      u.searchParams.set('q', q.site ? `site:${q.site} ${q.query}` : q.query);
      u.searchParams.set('format', 'json');
      u.searchParams.set('pageno', '1');
      if (q.recency) u.searchParams.set('time_range', q.recency);
      return { method: 'GET', url: u.href, headers: { accept: 'application/json' } };
    }
    case 'brave': {
      const u = new URL(`${base}/res/v1/web/search`);
      u.searchParams.set('q', q.site ? `site:${q.site} ${q.query}` : q.query);
      u.searchParams.set('count', String(Math.min(q.maxResults, 20)));
      if (q.recency) u.searchParams.set('freshness', BRAVE_FRESHNESS[q.recency]);
      return { method: 'GET', url: u.href, headers: { accept: 'application/json', 'x-subscription-token': key ?? '' } };
    }
    case 'tavily': {
      const body: Record<string, unknown> = { query: q.query, max_results: Math.min(q.maxResults, 20), search_depth: 'basic' };
      if (q.site) body.include_domains = [q.site];
      if (q.recency) body.time_range = q.recency;
      return {
        method: 'POST',
        url: `${base}/search`,
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key ?? ''}` },
        body: JSON.stringify(body),
      };
    }
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const stripTags = (s: string): string =>
  s
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : [];
}

/** The hits of a backend's JSON response; throws when the response is not in the backend's format. */
export function parseSearchResponse(backend: SearchBackend, json: unknown): SearchHit[] {
  const root = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  let items: Record<string, unknown>[];
  if (backend === 'brave') {
    const web = root.web as Record<string, unknown> | undefined;
    if (!web && !('query' in root)) throw new Error('the response has no "web" section (is this a Brave Search API endpoint?)');
    items = list(web?.results);
    return items.map((r) => ({ title: stripTags(str(r.title)), url: str(r.url), snippet: stripTags(str(r.description)), date: str(r.page_age) || str(r.age) || null }));
  }
  if (!Array.isArray(root.results)) throw new Error(`the response has no "results" list (is this a ${backend} endpoint?)`);
  items = list(root.results);
  if (backend === 'searxng') {
    return items.map((r) => ({ title: stripTags(str(r.title)), url: str(r.url), snippet: stripTags(str(r.content)), date: str(r.publishedDate) || null }));
  }
  return items.map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content), date: str(r.published_date) || null }));
}
