/**
 * The model providers' HTTP transport: a `fetch` for the AI SDK's providers (`createOpenAI({ fetch })` and the like)
 * on Node's own `http`/`https` clients with keep-alive agents. The SDK stays the provider layer (it builds every
 * request, reads every stream, classifies every failure); this only carries its requests. Node's built-in `fetch`
 * (undici's web-standard layer: a `Request`, header guards, a web-stream body per side) costs ≈ 0.3–0.5 ms more per
 * round trip, which an agent pays on every step of every run (issue 54: docs/performance.md, twelfth round).
 *
 * It answers as `fetch` would for what the providers send (a POST or GET with a string body or none, http or https):
 * - a network failure before the response rejects with `TypeError('fetch failed')` and the error as its `cause`, as
 *   undici's does, so the SDK reports it as a retryable "Cannot connect to API" and providers.ts classifies it the same;
 *   a failure after it errors the body with `TypeError('terminated')`;
 * - an abort (the request's signal) rejects, or errors the body, with the signal's reason;
 * - a redirect is followed by `fetch` itself (the request sent again there), as is anything else this does not carry
 *   (another method, a body that is not a string, another scheme, credentials in the URL);
 * - a compressed body (a server that compresses though none was asked for) is decompressed;
 * - a request on a kept-alive connection the server had closed (reset before any answer) is sent once more on a new one;
 * - a connection silent for 300 s (before the answer or within it) is given up, as `fetch`'s timeouts give up.
 * No proxy is used, as Node's `fetch` uses none.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';

/**
 * The client and the connections kept open between steps (a step's request follows the last one's answer within
 * milliseconds), per scheme. `https` (with TLS) loads with the first https request, not with a run's start.
 */
const KEEP = { keepAlive: true, timeout: 60_000 };
const plainClient = { request: http.request, agent: new http.Agent(KEEP) };
let tlsClient: Promise<typeof plainClient> | null = null;
const clientFor = (url: URL): typeof plainClient | Promise<typeof plainClient> =>
  url.protocol === 'https:' ? (tlsClient ??= import('node:https').then((https) => ({ request: https.request, agent: new https.Agent(KEEP) }))) : plainClient;

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Where a request goes, or null when this transport does not carry it (then `fetch` does). */
function plan(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): { url: URL; method: string; body: string | undefined } | null {
  if (typeof input !== 'string' && !(input instanceof URL)) return null; // a Request: its own body and options
  const url = new URL(String(input));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null; // `fetch` refuses credentials in a URL; it says so
  const method = (init?.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'POST') return null;
  const body = init?.body ?? undefined;
  if (body !== undefined && body !== null && typeof body !== 'string') return null;
  if (method === 'GET' && typeof body === 'string') return null;
  if (init?.redirect && init.redirect !== 'follow') return null;
  return { url, method, body: body ?? undefined };
}

function headerObject(init: RequestInit | undefined, body: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    out[name] = value;
  });
  if (body !== undefined) {
    out['content-length'] = String(Buffer.byteLength(body));
    out['content-type'] ??= 'text/plain;charset=UTF-8';
  }
  return out;
}

/** The reason an aborted signal rejects with, as `fetch` gives it. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * `enabled`: the bench turns it off to time the same runs on Node's `fetch`, in the same rounds
 * (bench/loop-overhead.bench.ts). `idleMs`: a connection silent this long (no answer, or no more of it) is given up,
 * as `fetch`'s headers and body timeouts give up (300 s); the runtime's own idle limit on a model stream is shorter.
 * Tests shorten it.
 */
export const modelTransportTuning = { enabled: true, idleMs: 300_000 };

/**
 * A `fetch` on Node's HTTP clients for the model providers (see the module comment). `inner` answers what this does
 * not carry (a redirect, another method…): the global `fetch`, looked up per request.
 */
export function modelTransport(inner: () => typeof fetch = () => globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const p = modelTransportTuning.enabled ? plan(input, init) : null;
    if (!p) return inner()(input, init);
    const res = await send(await clientFor(p.url), p.url, p.method, p.body, init, true);
    if (REDIRECT.has(res.statusCode ?? 0) && res.headers.location) {
      res.resume();
      return inner()(input, init);
    }
    return toResponse(res, init?.signal ?? undefined, res.headers['content-encoding'] ? await import('node:zlib') : null);
  };
}

function send(client: typeof plainClient, url: URL, method: string, body: string | undefined, init: RequestInit | undefined, mayRetry: boolean): Promise<http.IncomingMessage> {
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    let settled = false;
    const req = client.request(url, { method, headers: headerObject(init, body), agent: client.agent });
    const onAbort = (): void => {
      if (settled) return;
      settled = true;
      reject(abortReason(signal!));
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      resolve(res);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      // A kept-alive connection the server closed while it was idle: the request never reached it; once more, anew.
      if (mayRetry && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        send(client, url, method, body, init, false).then(resolve, reject);
        return;
      }
      reject(new TypeError('fetch failed', { cause: err }));
    });
    const idle = modelTransportTuning.idleMs;
    req.setTimeout(idle, () => req.destroy(Object.assign(new Error(`the server sent nothing for ${Math.round(idle / 1000)} s`), { code: 'ETIMEDOUT' })));
    req.end(body);
  });
}

/** The response as `fetch` gives it; its body a web stream pulled from the socket (one chunk read ahead). */
function toResponse(res: http.IncomingMessage, signal: AbortSignal | undefined, zlib: typeof import('node:zlib') | null): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode ?? 0;
  const init = { status, statusText: res.statusMessage ?? '', headers };
  if (NULL_BODY.has(status)) {
    res.resume();
    return new Response(null, init);
  }
  return new Response(bodyOf(res, signal, zlib), init);
}

/** The body as sent, decompressed when the server compressed it (`zlib` is loaded only then). */
function decoded(res: http.IncomingMessage, zlib: typeof import('node:zlib') | null): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const unzip = !zlib ? null : encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : null;
  if (!unzip) return res;
  res.on('error', (err) => unzip.destroy(err));
  return res.pipe(unzip);
}

/**
 * The body as a web stream pulled from the response: each pull takes everything the response has buffered by then in
 * one chunk (`read()`), so reads that queued up while the reader was busy (a long reply's burst behind a busy event
 * loop) reach the SDK's stream stages once, and a reader that keeps up gets each read as it arrives (nothing is held
 * back for a later one).
 */
function bodyOf(res: http.IncomingMessage, signal: AbortSignal | undefined, zlib: typeof import('node:zlib') | null): ReadableStream<Uint8Array> {
  const source = decoded(res, zlib);
  let onAbort: (() => void) | null = null;
  let finished = false;
  /** The pull waiting for data, resolved by the next data, the end or a failure. */
  let waiting: (() => void) | null = null;
  const wake = (): void => {
    const w = waiting;
    waiting = null;
    w?.();
  };
  const done = (): void => {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    onAbort = null;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (err: unknown): void => {
        if (finished) return;
        finished = true;
        done();
        controller.error(err);
        res.destroy();
        wake();
      };
      source.on('readable', wake);
      source.on('end', () => {
        if (finished) return;
        finished = true;
        done();
        controller.close();
        wake();
      });
      source.on('error', (err) => fail(new TypeError('terminated', { cause: err })));
      // A connection closed before the body's end (no error event from the parser in every Node version).
      res.on('aborted', () => fail(new TypeError('terminated', { cause: new Error('the connection closed before the response ended') })));
      if (signal) {
        if (signal.aborted) fail(abortReason(signal));
        else {
          onAbort = () => fail(abortReason(signal));
          signal.addEventListener('abort', onAbort, { once: true });
        }
      }
    },
    async pull(controller) {
      for (;;) {
        if (finished) return;
        const chunk = source.read() as Buffer | null;
        if (chunk !== null) {
          controller.enqueue(chunk);
          return;
        }
        await new Promise<void>((resolve) => (waiting = resolve));
      }
    },
    cancel() {
      finished = true;
      done();
      res.destroy();
      wake();
    },
    // Pulled only when read: what arrives before is left in the response's buffer, to be taken in one piece.
  }, { highWaterMark: 0 });
}
