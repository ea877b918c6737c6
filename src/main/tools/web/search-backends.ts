/**
 * web_search backends, each in its real wire format, with what each can search (kinds, freshness, country, language):
 * - SearXNG (self-hosted, no key): `GET {url}/search?q=…&format=json[&categories=general|news|images|videos]
 *   [&time_range=day|week|month|year][&language=xx|xx-CC]`, results `{results: [{url, title, content, publishedDate,
 *   img_src, thumbnail_src, thumbnail, length}]}`. A country only as the region of a language (`de-CH`).
 * - Brave Search API: `GET {url}/res/v1/{web|news|images|videos}/search?q=…&count=N[&freshness=pd|pw|pm|py]
 *   [&country=CC][&search_lang=xx]` with `X-Subscription-Token`; web results `{web: {results: [{title, url,
 *   description, page_age, age}]}}`, the others `{results: [...]}` (images: `properties.url`, `thumbnail.src`;
 *   videos: `video.duration`). Image search has no freshness filter.
 * - Tavily: `POST {url}/search` with `Authorization: Bearer KEY` and `{query, max_results, topic: general|news,
 *   include_domains, time_range, country, include_images}`, results `{results: [{title, url, content,
 *   published_date}], images: [url | {url, description}]}`. No video search, no language filter; a country (its
 *   English name, lower case) only for general web search.
 */
import type { SearchBackend, SearchSettings } from '../../../shared/contract';

export const SEARCH_KINDS = ['web', 'news', 'images', 'videos'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchQuery {
  query: string;
  maxResults: number;
  site?: string;
  recency?: 'day' | 'week' | 'month' | 'year';
  kind?: SearchKind;
  /** ISO 3166-1 alpha-2, upper case (`DE`). */
  country?: string;
  /** ISO 639-1, lower case (`de`). */
  language?: string;
}

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  date: string | null;
  /** Images: the image file itself; videos: a thumbnail. */
  media?: string | null;
  /** Videos: the length as the backend gives it. */
  duration?: string | null;
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

/** What each backend can do, per kind: freshness, country, language. */
const SUPPORT: Record<SearchBackend, Partial<Record<SearchKind, { recency: boolean; country: boolean; language: boolean }>>> = {
  searxng: {
    web: { recency: true, country: false, language: true },
    news: { recency: true, country: false, language: true },
    images: { recency: true, country: false, language: true },
    videos: { recency: true, country: false, language: true },
  },
  brave: {
    web: { recency: true, country: true, language: true },
    news: { recency: true, country: true, language: true },
    images: { recency: false, country: true, language: true },
    videos: { recency: true, country: true, language: true },
  },
  tavily: {
    web: { recency: true, country: true, language: false },
    news: { recency: true, country: false, language: false },
    images: { recency: true, country: true, language: false },
  },
};

const NAMES: Record<SearchBackend, string> = { searxng: 'SearXNG', brave: 'Brave Search', tavily: 'Tavily' };

/** Why the configured backend cannot run this query as asked (a message the model can act on), or null. */
export function unsupported(backend: SearchBackend, q: SearchQuery): string | null {
  const kind = q.kind ?? 'web';
  const name = NAMES[backend];
  const kinds = SUPPORT[backend];
  const can = kinds[kind];
  if (!can) return `The ${name} backend cannot search ${kind}; it searches ${SEARCH_KINDS.filter((k) => kinds[k]).join(', ')}. Search another kind, or ask the person to configure a backend that does (Brave Search searches all four).`;
  const missing: string[] = [];
  if (q.recency && !can.recency) missing.push('recency (freshness)');
  // SearXNG takes a country only as the region of a language (de-CH).
  if (q.country && !can.country && !(backend === 'searxng' && q.language)) missing.push(backend === 'searxng' ? 'country without a language (give language too: the region goes with it, e.g. de-CH)' : 'country');
  if (q.language && !can.language) missing.push('language');
  if (!missing.length) return null;
  return `The ${name} backend cannot filter ${kind} search by ${missing.join(' or ')}. Leave ${missing.length > 1 ? 'those' : 'that'} out and call again${backend !== 'brave' ? ' (Brave Search supports them)' : ''}.`;
}

export function endpointOf(settings: SearchSettings): string | null {
  return (settings.url ?? DEFAULT_ENDPOINTS[settings.backend])?.replace(/\/+$/, '') ?? null;
}

const BRAVE_FRESHNESS = { day: 'pd', week: 'pw', month: 'pm', year: 'py' } as const;
const SEARXNG_CATEGORY: Record<SearchKind, string> = { web: 'general', news: 'news', images: 'images', videos: 'videos' };

/** Tavily's `country`: the country's English name in lower case ("united states"). */
function countryName(code: string): string {
  return (new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code).toLowerCase();
}

export function buildSearchRequest(settings: SearchSettings, q: SearchQuery, key: string | null): BackendRequest {
  const base = endpointOf(settings);
  if (!base) throw new Error(`the ${settings.backend} backend needs a URL`);
  const kind = q.kind ?? 'web';
  switch (settings.backend) {
    case 'searxng': {
      const u = new URL(`${base}/search`);
      u.searchParams.set('q', q.site ? `site:${q.site} ${q.query}` : q.query);
      u.searchParams.set('format', 'json');
      u.searchParams.set('pageno', '1');
      if (kind !== 'web') u.searchParams.set('categories', SEARXNG_CATEGORY[kind]);
      if (q.recency) u.searchParams.set('time_range', q.recency);
      if (q.language) u.searchParams.set('language', q.country ? `${q.language}-${q.country}` : q.language);
      return { method: 'GET', url: u.href, headers: { accept: 'application/json' } };
    }
    case 'brave': {
      const u = new URL(`${base}/res/v1/${kind}/search`);
      u.searchParams.set('q', q.site ? `site:${q.site} ${q.query}` : q.query);
      u.searchParams.set('count', String(Math.min(q.maxResults, 20)));
      if (q.recency) u.searchParams.set('freshness', BRAVE_FRESHNESS[q.recency]);
      if (q.country) u.searchParams.set('country', q.country);
      if (q.language) u.searchParams.set('search_lang', q.language);
      return { method: 'GET', url: u.href, headers: { accept: 'application/json', 'x-subscription-token': key ?? '' } };
    }
    case 'tavily': {
      const body: Record<string, unknown> = { query: q.query, max_results: Math.min(q.maxResults, 20), search_depth: 'basic' };
      if (kind === 'news') body.topic = 'news';
      if (kind === 'images') {
        body.include_images = true;
        body.include_image_descriptions = true;
      }
      if (q.site) body.include_domains = [q.site];
      if (q.recency) body.time_range = q.recency;
      if (q.country) body.country = countryName(q.country);
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

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

/** The hits of a backend's JSON response for a kind of search; throws when the response is not in the backend's format. */
export function parseSearchResponse(backend: SearchBackend, json: unknown, kind: SearchKind = 'web'): SearchHit[] {
  const root = obj(json);
  let items: Record<string, unknown>[];
  if (backend === 'brave') {
    if (kind === 'web') {
      const web = root.web as Record<string, unknown> | undefined;
      if (!web && !('query' in root)) throw new Error('the response has no "web" section (is this a Brave Search API endpoint?)');
      items = list(web?.results);
    } else {
      if (!Array.isArray(root.results)) throw new Error(`the response has no "results" list (is this Brave's ${kind} search endpoint?)`);
      items = list(root.results);
    }
    return items.map((r) => ({
      title: stripTags(str(r.title)),
      url: str(r.url),
      snippet: stripTags(str(r.description)) || (kind === 'images' ? str(r.source) : ''),
      date: str(r.page_age) || str(r.age) || null,
      ...(kind === 'images' ? { media: str(obj(r.properties).url) || str(obj(r.thumbnail).src) || null } : {}),
      ...(kind === 'videos' ? { media: str(obj(r.thumbnail).src) || null, duration: str(obj(r.video).duration) || null } : {}),
    }));
  }
  if (!Array.isArray(root.results)) throw new Error(`the response has no "results" list (is this a ${backend} endpoint?)`);
  items = list(root.results);
  if (backend === 'searxng') {
    return items.map((r) => ({
      title: stripTags(str(r.title)),
      url: str(r.url),
      snippet: stripTags(str(r.content)),
      date: str(r.publishedDate) || null,
      ...(kind === 'images' ? { media: str(r.img_src) || str(r.thumbnail_src) || null } : {}),
      ...(kind === 'videos' ? { media: str(r.thumbnail) || null, duration: str(r.length) || null } : {}),
    }));
  }
  if (kind === 'images') {
    const images = Array.isArray(root.images) ? root.images : [];
    return images.map((im) => (typeof im === 'string' ? { title: '(image)', url: im, snippet: '', date: null, media: im } : { title: '(image)', url: str(obj(im).url), snippet: str(obj(im).description), date: null, media: str(obj(im).url) }));
  }
  return items.map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content), date: str(r.published_date) || null }));
}
