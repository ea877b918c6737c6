/**
 * `deskhand web`: the built renderer and the contract over a WebSocket, on 127.0.0.1 only. Every request must carry
 * the per-launch token as the first path segment (`http://127.0.0.1:PORT/TOKEN/`), else 403 — the WebSocket upgrade
 * included. Host and Origin are checked too, so another site in the person's browser (or a DNS-rebound name) cannot
 * drive the agent.
 *
 * An MCP App's view (mcp-apps.ts) is shown through a sandbox proxy on a different origin, as the MCP Apps spec asks of
 * web hosts: the same listener under the other loopback name (a page on `127.0.0.1:PORT` frames
 * `http://localhost:PORT/sp/<ticket>`, and the other way round), which frames the view (`/cv/<ticket>`, opaque origin)
 * and relays the bridge's messages between it and the page (`sandboxProxyPage`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, realpathSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_PAYLOAD_BYTES, type ContractEvent } from '../../../shared/contract';
import type { AppService } from '../app/app-service';
import { stderrLogger, type Logger } from '../assembly/logger';
import { createDispatch } from '../app/dispatch';
import { EventBatcher } from '../app/event-batcher';

export interface WebHostOptions {
  service: AppService;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 (default) picks a free port. */
  port?: number;
  token?: string;
  log?: Logger;
}

export interface WebHost {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** Wire format over the socket. Client → server: {id, method, params}. Server → client: replies and event batches. */
export type ServerMessage = { t: 'reply'; id: number; ok: true; result: unknown } | { t: 'reply'; id: number; ok: false; error: { code: string; message: string } } | { t: 'events'; events: ContractEvent[] };

/** How long a WebSocket client has to answer the close handshake when the host stops. */
const CLOSE_GRACE_MS = 300;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  const log = opts.log ?? stderrLogger;
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const tokenBytes = Buffer.from(token);
  const rendererDir = existsSync(opts.rendererDir) ? realpathSync(opts.rendererDir) : resolve(opts.rendererDir);
  const dispatch = createDispatch(opts.service, log);
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  /** The path after the token, or null when the token is missing or wrong (compared in constant time). */
  function afterToken(rawUrl: string | undefined): string | null {
    let pathname: string;
    try {
      pathname = new URL(rawUrl ?? '/', 'http://127.0.0.1').pathname;
    } catch {
      return null;
    }
    const match = /^\/([^/]+)(\/.*)?$/.exec(pathname);
    if (!match) return null;
    const given = Buffer.from(match[1]!);
    if (given.length !== tokenBytes.length || !timingSafeEqual(given, tokenBytes)) return null;
    return match[2] ?? '';
  }

  function refuse(req: IncomingMessage): string | null {
    if (!allowedHosts().has(req.headers.host ?? '')) return 'wrong Host header';
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) return `foreign Origin ${origin}`;
    return null;
  }

  const csp = () =>
    [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "media-src 'self' data:",
      "font-src 'self'",
      `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
      // MCP App views: their sandbox proxy, on the other loopback name (only its /sp/ pages frame into this page).
      `frame-src 'self' http://127.0.0.1:${port} http://localhost:${port}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');

  function forbid(res: ServerResponse, why: string, req: IncomingMessage): void {
    log.warn(`web: 403 for ${req.method} (${why})`);
    res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end('Forbidden. Open Deskhand with the full URL it printed when it started (it carries an access token; `deskhand web --new-address` makes a new one).\n');
  }

  const server = createServer((req, res) => {
    const refused = refuse(req);
    if (refused) return forbid(res, refused, req);
    // A composition's viewer page: its own short-lived ticket instead of the token (see composition-host.ts).
    const viewer = /^\/cv\/([A-Za-z0-9_-]{24})$/.exec((req.url ?? '').split('?')[0]!);
    if (viewer && (req.method === 'GET' || req.method === 'HEAD')) return serveComposition(viewer[1]!, req, res);
    const proxy = /^\/sp\/([A-Za-z0-9_-]{24})$/.exec((req.url ?? '').split('?')[0]!);
    if (proxy && (req.method === 'GET' || req.method === 'HEAD')) return serveSandboxProxy(proxy[1]!, req, res);
    const rest = afterToken(req.url);
    if (rest === null) return forbid(res, 'missing or wrong token', req);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return;
    }
    if (rest === '') {
      // `/TOKEN` → `/TOKEN/`, so the page's relative asset URLs carry the token.
      res.writeHead(308, { location: `/${token}/` });
      res.end();
      return;
    }
    serveRendererFile(rendererDir, rest, req, res, csp());
  });

  function serveComposition(ticket: string, req: IncomingMessage, res: ServerResponse): void {
    // Only into the app's frame, whose policy bounds where the frame may go: in a tab of its own, the sandboxed page
    // could navigate itself anywhere (this machine's servers included). Browsers say where a response goes.
    if (req.headers['sec-fetch-dest'] !== 'iframe') {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; sandbox" });
      res.end('A composition is shown only inside the Deskhand viewer: open it from the Compositions panel.\n');
      return;
    }
    const page = opts.service.compositionPage(ticket);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('This composition view has expired. Open it again from the Compositions panel.\n');
      return;
    }
    // An MCP App's view is framed only by its sandbox proxy, which is on this same origin (the page's is the other
    // loopback name): a frame of the page itself is refused.
    if (page.view && req.headers['sec-fetch-site'] !== 'same-origin') return forbid(res, 'an MCP App view outside its sandbox proxy', req);
    res.writeHead(200, {
      'content-type': page.type,
      // Sandboxed (an opaque origin, scripts only), nothing fetched, framed only by this app.
      'content-security-policy': `${page.csp}; frame-ancestors http://127.0.0.1:${port} http://localhost:${port}`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : page.body);
  }

  function serveSandboxProxy(ticket: string, req: IncomingMessage, res: ServerResponse): void {
    const page = opts.service.compositionPage(ticket);
    const host = req.headers.host ?? '';
    // The page that frames the proxy is on the other loopback name: the proxy's origin is never the page's.
    const ui = host.startsWith('localhost:') ? `http://127.0.0.1:${port}` : `http://localhost:${port}`;
    if (req.headers['sec-fetch-dest'] !== 'iframe' || !page?.view) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; sandbox" });
      res.end('This view has expired or is shown only inside Deskhand. Open it again from its tool call.\n');
      return;
    }
    const nonce = randomBytes(16).toString('base64');
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      // Its own script only; it frames the view from this origin and reaches nothing; framed only by the page.
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; frame-src http://${host}; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors ${ui}`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : sandboxProxyPage(ticket, ui, page.view.allow, nonce));
  }

  // maxPayload is twice the contract's limit: requests between the two get a readable refusal, beyond it the
  // socket is closed (1009) before the frame is even buffered.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * MAX_PAYLOAD_BYTES, perMessageDeflate: false });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused = refuse(req) ?? (req.headers.origin === undefined ? 'no Origin' : null) ?? (afterToken(req.url) !== '/ws' ? 'missing or wrong token' : null);
    if (refused) {
      log.warn(`web: refused WebSocket upgrade (${refused})`);
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    const send = (message: ServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const batcher = new EventBatcher((events) => send({ t: 'events', events }));
    const unsubscribe = opts.service.onEvent((e) => batcher.push(e));
    ws.on('message', (data, isBinary) => {
      const raw = isBinary ? null : data.toString();
      const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      let message: { id?: unknown; method?: unknown; params?: unknown } = {};
      if (raw !== null && bytes <= MAX_PAYLOAD_BYTES) {
        try {
          const parsed: unknown = JSON.parse(raw);
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) message = parsed as typeof message;
        } catch {
          // answered below as an invalid request
        }
      }
      // An oversized request is not parsed; its id is read from its first bytes so the caller still gets its answer.
      const leading = raw !== null && bytes > MAX_PAYLOAD_BYTES ? /^\s*\{\s*"id"\s*:\s*(\d{1,15})\s*,/.exec(raw.slice(0, 64)) : null;
      const id = typeof message.id === 'number' && Number.isSafeInteger(message.id) ? message.id : leading ? Number(leading[1]) : -1;
      const method = raw === null ? undefined : message.method;
      void dispatch(method, message.params, { source: 'ws', bytes }).then((reply) => send({ t: 'reply', id, ...reply }));
    });
    ws.on('close', () => {
      unsubscribe();
      batcher.close();
    });
    ws.on('error', () => ws.terminate());
  });

  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port ?? 0, '127.0.0.1', () => res());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/${token}/`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    token,
    close() {
      closing ??= new Promise<void>((res) => {
        for (const client of wss.clients) client.close(1001, 'Deskhand is shutting down');
        // A client that does not answer the close handshake at once is cut off (ws would wait 30 s for it).
        const cut = setTimeout(() => {
          for (const client of wss.clients) client.terminate();
        }, CLOSE_GRACE_MS);
        cut.unref();
        wss.close();
        // Resolves once every connection ended: keep-alive sockets are closed now, WebSockets by the lines above.
        server.close(() => {
          clearTimeout(cut);
          res();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

const escapeAttr = (s: string) => s.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The MCP Apps sandbox proxy (the outer frame of a view in the web UI): it frames the view's ticketed page from its
 * own origin with `sandbox="allow-scripts"` (an opaque origin, the view's policy in the response header) and relays
 * messages: from the page (`ui`, checked by origin and window) to the view, and from the view's window to the page
 * only. Deskhand loads the view by URL instead of receiving its HTML over `ui/notifications/sandbox-resource-ready`,
 * so the view's policy stays a response header built in main.
 */
export function sandboxProxyPage(ticket: string, ui: string, allow: readonly string[], nonce: string): string {
  const allowAttr = allow.length ? ` allow="${escapeAttr(allow.join('; '))}"` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><style nonce="${nonce}">html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style></head><body>
<iframe id="view" sandbox="allow-scripts"${allowAttr} referrerpolicy="no-referrer" src="/cv/${ticket}"></iframe>
<script nonce="${nonce}">
const UI = ${JSON.stringify(ui)};
const view = document.getElementById('view');
addEventListener('message', (e) => {
  if (e.source === window.parent && e.origin === UI) view.contentWindow?.postMessage(e.data, '*');
  else if (e.source === view.contentWindow && e.source !== null) window.parent.postMessage(e.data, UI);
});
</script></body></html>`;
}

/**
 * One file of the built renderer (`rest`: the path after the page's prefix), never anything outside `rendererDir`
 * (the real path is checked after symlinks); `csp` is the page's Content-Security-Policy. Shared with the paired-device
 * listener (device-host.ts).
 */
export function serveRendererFile(rendererDir: string, rest: string, req: IncomingMessage, res: ServerResponse, csp: string): void {
  let rel: string;
  try {
    rel = decodeURIComponent(rest === '/' ? '/index.html' : rest);
  } catch {
    res.writeHead(400);
    res.end();
    return;
  }
  const file = resolve(rendererDir, `.${rel}`);
  const inside = relative(rendererDir, file);
  if (inside.startsWith('..') || isAbsolute(inside) || rel.includes('\0')) {
    res.writeHead(404);
    res.end();
    return;
  }
  let real: string;
  try {
    real = realpathSync(file);
    if (!statSync(real).isFile() || !(real === rendererDir || real.startsWith(rendererDir + sep))) throw new Error('not a file');
  } catch {
    if (!existsSync(join(rendererDir, 'index.html'))) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The renderer is not built. Run `npm run build`, then start `deskhand web` again.\n');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found.\n');
    return;
  }
  const type = TYPES[extname(real)] ?? 'application/octet-stream';
  res.writeHead(200, {
    'content-type': type,
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    // Assets have content hashes; the page itself must always be fresh (a new launch has a new token).
    'cache-control': real.includes(`${sep}assets${sep}`) ? 'private, max-age=31536000, immutable' : 'no-store',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(real).pipe(res);
}
