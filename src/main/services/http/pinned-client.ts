/**
 * The HTTP client behind web_search, web_fetch and http_request (undici). Each hop gets its own dispatcher whose
 * connection `lookup` resolves the host once, judges every address with the shared URL rules, and hands the socket
 * exactly the address it judged: there is no second resolution to race. Literal addresses are judged before any
 * dispatcher exists (no lookup happens for them).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Agent, request as undiciRequest } from 'undici';
/** undici loads with the first request (web_fetch, web_search, http_request, a peer), not with the runtime. */
const loadUndici = () => import('undici');
import { classifyAddress, classifyHost, isIpLiteral, parseWebUrl, type Destination } from '../../../shared/url-guard';
import { DestinationRefused, type HttpRequestSpec, type HttpResponseData, type HttpService, type RedirectHop } from './index';

export type Resolver = (host: string) => Promise<LookupAddress[]>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;
/** Headers that carry nothing of the caller's and so may follow a redirect to another origin. */
const CROSS_ORIGIN_SAFE = new Set(['accept', 'accept-language', 'user-agent']);
/** Headers the client sets itself: a caller cannot point Host at another virtual host or smuggle framing. */
const CLIENT_OWNED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'accept-encoding', 'te', 'trailer', 'proxy-authorization', 'proxy-connection']);
export const USER_AGENT = 'Deskhand/0.1 (desktop agent)';

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

type Allowed = ReadonlySet<string> | null | undefined;

function permits(allowed: Allowed, address: string): boolean {
  return allowed !== undefined && (allowed === null || allowed.has(address.toLowerCase()));
}

export class PinnedHttpClient implements HttpService {
  private readonly resolver: Resolver;

  constructor(opts: { resolver?: Resolver } = {}) {
    this.resolver = opts.resolver ?? systemResolver;
  }

  async resolve(host: string): Promise<string[]> {
    const h = host.replace(/^\[|\]$/g, '');
    if (isIpLiteral(h)) return [h];
    return (await this.resolver(h)).map((a) => a.address);
  }

  async request(spec: HttpRequestSpec): Promise<HttpResponseData> {
    const deadline = AbortSignal.timeout(spec.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, deadline]) : deadline;
    const maxRedirects = Math.min(spec.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS);
    let method = spec.method.toUpperCase();
    let body = spec.body;
    let headers = requestHeaders(spec.headers);
    let url = spec.url;
    const redirects: RedirectHop[] = [];
    let previous: { status: number; headers: Record<string, string>; url: string } | null = null;
    const stopAt = (to: string, reason: string): HttpResponseData => ({
      url: previous!.url,
      status: previous!.status,
      headers: previous!.headers,
      body: Buffer.alloc(0),
      cut: null,
      redirects,
      stoppedRedirect: { to, reason },
      remoteAddress: null,
    });

    for (;;) {
      const parsed = parseWebUrl(url);
      if (!parsed.ok) {
        if (previous) return stopAt(url, parsed.reason);
        throw new DestinationRefused(url, parsed.reason);
      }
      const dest = parsed.dest;
      const allowed = spec.allowPrivate?.get(dest.key);
      const refusal = judgeBeforeConnect(dest, allowed);
      if (refusal) {
        if (previous) return stopAt(url, refusal);
        throw new DestinationRefused(url, refusal);
      }
      const pinned: { address: string | null } = { address: isIpLiteral(dest.host) ? dest.host : null };
      const undici = await loadUndici();
      const agent = new undici.Agent({
        connect: { lookup: this.guardedLookup(dest, allowed, pinned) as never },
        headersTimeout: spec.timeoutMs,
        bodyTimeout: spec.timeoutMs,
      });
      try {
        let res: Awaited<ReturnType<typeof undiciRequest>>;
        try {
          res = await undici.request(dest.url, { method: method as never, headers, body: body ?? null, dispatcher: agent, signal });
        } catch (err) {
          const refused = refusedIn(err);
          if (refused && previous) return stopAt(url, refused.reason);
          if (refused) throw refused;
          if (deadline.aborted && !spec.signal?.aborted) throw new Error(`no response from ${dest.url.origin} within ${spec.timeoutMs} ms`);
          throw err;
        }
        const resHeaders = flattenHeaders(res.headers);
        const location = resHeaders.location;
        if (REDIRECTS.has(res.statusCode) && location && maxRedirects > 0) {
          await res.body.dump().catch(() => undefined);
          let to: URL;
          try {
            to = new URL(location, dest.url);
          } catch {
            previous = { status: res.statusCode, headers: resHeaders, url };
            return stopAt(location, 'the Location header is not a valid URL');
          }
          previous = { status: res.statusCode, headers: resHeaders, url };
          if (redirects.length >= maxRedirects) return stopAt(to.href, `more than ${maxRedirects} redirects; not followed`);
          const hopRefusal = spec.hopCheck?.(to.href);
          if (hopRefusal) return stopAt(to.href, hopRefusal);
          const crossOrigin = to.origin !== dest.url.origin;
          // 303 (and 301/302 after a POST, as browsers do) turn into a GET without a body.
          if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            headers = withoutBodyHeaders(headers);
          }
          if (crossOrigin && body !== undefined) {
            return stopAt(to.href, `a ${res.statusCode} redirect would send the request body to another origin (${to.origin}); bodies are never forwarded across origins`);
          }
          if (crossOrigin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_SAFE.has(k)));
          redirects.push({ status: res.statusCode, from: url, to: to.href });
          url = to.href;
          continue;
        }
        const { data, cut } = await readCapped(res.body, resHeaders['content-encoding'], spec.maxBytes, deadline, spec.signal);
        return { url, status: res.statusCode, headers: resHeaders, body: data, cut, redirects, stoppedRedirect: null, remoteAddress: pinned.address };
      } finally {
        void agent.destroy().catch(() => undefined);
      }
    }
  }

  /** The connection's lookup: resolve once, judge every address, hand the socket the address judged. */
  private guardedLookup(dest: Destination, allowed: Allowed, pinned: { address: string | null }) {
    return guardedLookup(this.resolver, dest, allowed, pinned);
  }
}

/**
 * A `fetch` for a client that streams (the A2A SDK's): each request's destination is judged as a hop of `request` is
 * (a private one only where `allowPrivate` clears it; every address judged at connect time and pinned), and no
 * redirect is followed (one is an error). `close` ends its connections once the caller is done with the responses.
 */
export function pinnedFetch(opts: { resolver?: Resolver; allowPrivate?: ReadonlyMap<string, ReadonlySet<string> | null> } = {}): { fetch: typeof fetch; close(): Promise<void> } {
  const resolver = opts.resolver ?? systemResolver;
  const agents: Agent[] = [];
  const pinned = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof input !== 'string' && !(input instanceof URL)) throw new Error('pinnedFetch takes a URL, not a Request');
    const url = String(input);
    const parsed = parseWebUrl(url);
    if (!parsed.ok) throw new DestinationRefused(url, parsed.reason);
    const allowed = opts.allowPrivate?.get(parsed.dest.key);
    const refusal = judgeBeforeConnect(parsed.dest, allowed);
    if (refusal) throw new DestinationRefused(url, refusal);
    const undici = await loadUndici();
    const agent = new undici.Agent({ connect: { lookup: guardedLookup(resolver, parsed.dest, allowed, { address: null }) as never } });
    agents.push(agent);
    try {
      return (await undici.fetch(parsed.dest.url, { ...(init as Record<string, unknown>), dispatcher: agent, redirect: 'error' })) as unknown as Response;
    } catch (err) {
      throw refusedIn(err) ?? err;
    }
  };
  return {
    fetch: pinned as typeof fetch,
    close: async () => {
      await Promise.all(agents.splice(0).map((a) => a.destroy().catch(() => undefined)));
    },
  };
}

/** The connection's lookup: resolve once, judge every address, hand the socket the address judged. */
function guardedLookup(resolver: Resolver, dest: Destination, allowed: Allowed, pinned: { address: string | null }) {
  return (hostname: string, options: { all?: boolean }, callback: (err: Error | null, address?: unknown, family?: number) => void) => {
    resolver(hostname).then(
      (addresses) => {
        if (!addresses.length) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }));
        for (const a of addresses) {
          const finding = classifyAddress(a.address);
          if (finding && !permits(allowed, a.address)) {
            return callback(new DestinationRefused(dest.url.href, `${hostname} resolved to ${a.address} (${finding.kind}: ${finding.detail}), which was not approved for this call; nothing was sent`));
          }
        }
        const first = addresses[0]!;
        pinned.address = first.address;
        if (options?.all) callback(null, [{ address: first.address, family: first.family }]);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  };
}

/** A literal address, or a name that is private by itself (localhost, metadata…), judged before connecting. */
function judgeBeforeConnect(dest: Destination, allowed: Allowed): string | null {
  const finding = classifyHost(dest.host);
  if (!finding) return null;
  if (isIpLiteral(dest.host) ? permits(allowed, dest.host) : allowed !== undefined) return null;
  return `${finding.detail}, which was not approved for this call; nothing was sent`;
}

function refusedIn(err: unknown): DestinationRefused | null {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if (DestinationRefused.isInstance(e)) return e;
  }
  return null;
}

function requestHeaders(given: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(given ?? {})) {
    const key = k.toLowerCase();
    if (!CLIENT_OWNED.has(key)) out[key] = v;
  }
  out['user-agent'] ??= USER_AGENT;
  out['accept-encoding'] = 'gzip, deflate, br';
  return out;
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'content-type' && !k.startsWith('content-')));
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    // Deskhand keeps no cookies: what a server sets is neither stored nor shown.
    out[k.toLowerCase()] = k.toLowerCase() === 'set-cookie' ? '[dropped: Deskhand keeps no cookies]' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Reads at most `maxBytes` of the decoded body; stops reading (and closes the stream) at the cap or the deadline. */
async function readCapped(body: Readable, encoding: string | undefined, maxBytes: number, deadline: AbortSignal, outer?: AbortSignal): Promise<{ data: Buffer; cut: 'bytes' | 'time' | null }> {
  const enc = encoding?.trim().toLowerCase();
  const decoder = enc === 'gzip' || enc === 'x-gzip' ? createGunzip() : enc === 'deflate' ? createInflate() : enc === 'br' ? createBrotliDecompress() : null;
  let source: Readable = body;
  if (decoder) {
    body.on('error', (e) => decoder.destroy(e));
    source = body.pipe(decoder);
  }
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut: 'bytes' | 'time' | null = null;
  try {
    for await (const chunk of source) {
      const buf = chunk as Buffer;
      if (kept + buf.length > maxBytes) {
        chunks.push(buf.subarray(0, maxBytes - kept));
        kept = maxBytes;
        cut = 'bytes';
        break;
      }
      chunks.push(buf);
      kept += buf.length;
    }
  } catch (err) {
    if (outer?.aborted || !deadline.aborted) throw err;
    cut = 'time';
  } finally {
    if (cut) {
      body.destroy();
      decoder?.destroy();
    }
  }
  return { data: Buffer.concat(chunks, kept), cut };
}
