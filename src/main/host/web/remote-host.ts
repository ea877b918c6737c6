/**
 * Driving a bigger machine (issue 51, item 3): `deskhand web --remote URL` serves the UI on this machine's loopback (the
 * same token-gated address as `deskhand web`) and relays the contract to a Deskhand runtime on another machine that
 * runs `deskhand web --listen`, as a paired device: its credential (kept in this machine's keyring), the remote's
 * certificate pinned by its SHA-256, and a socket that reconnects and resumes (`?after=`) without losing events. The
 * page shows a banner naming the machine it drives (the `deskhand-remote` meta tag this host adds to the page).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { stderrLogger, type Logger } from '../assembly/logger';
import { serveRendererFile } from './web-host';

export interface RemoteHostOptions {
  /** https://HOST:PORT/ of the remote listener. */
  remoteUrl: string;
  /** The remote certificate's SHA-256 (AA:BB:…), pinned, and the certificate itself (the one trust anchor). */
  fingerprint: string;
  certPem: string;
  /** This machine's device credential on the remote. */
  credential: string;
  /** What the banner calls the remote machine. */
  machine: string;
  rendererDir: string;
  port?: number;
  token?: string;
  log?: Logger;
}

export interface RemoteHost {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** TLS options that trust only the pinned certificate: it is the one CA, and its SHA-256 is compared again. */
function pinned(certPem: string, fingerprint: string) {
  return {
    ca: certPem,
    checkServerIdentity: ((_host: string, cert: { fingerprint256?: string }) => (cert.fingerprint256 === fingerprint ? undefined : new Error(`The remote's certificate is not the paired one (expected SHA-256 ${fingerprint}).`))) as never,
  };
}

/** Connects to the remote's socket with the credential; nothing is sent before the pinned certificate was checked. */
export function upstream(o: Pick<RemoteHostOptions, 'remoteUrl' | 'credential' | 'certPem' | 'fingerprint'>, after: string | null): WebSocket {
  const base = o.remoteUrl.replace(/^https:/, 'wss:').replace(/\/?$/, '/');
  return new WebSocket(`${base}app/ws${after ? `?after=${encodeURIComponent(after)}` : ''}`, { headers: { authorization: `Bearer ${o.credential}` }, ...pinned(o.certPem, o.fingerprint) });
}

/**
 * The remote's certificate, fetched once over a TLS handshake that sends nothing, and accepted only when its SHA-256 is
 * the one the pairing link named: from then on it is the only certificate this machine trusts for that remote.
 */
export function fetchPinnedCertificate(remoteUrl: string, fingerprint: string): Promise<string> {
  const u = new URL(remoteUrl);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host, port: Number(u.port || 443), rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) }, () => {
      const peer = s.getPeerX509Certificate();
      s.end();
      if (!peer || peer.fingerprint256 !== fingerprint) reject(new Error(`The certificate at ${u.host} is not the one the pairing link named (expected SHA-256 ${fingerprint}, got ${peer?.fingerprint256 ?? 'none'}). Someone may be in the middle; pair again on a network you trust.`));
      else resolve(peer.toString());
    });
    s.once('error', reject);
  });
}

/** Pairs this machine with the remote as a program (the code from the pairing link): its credential and name. */
export async function pairWithRemote(remoteUrl: string, certPem: string, fingerprint: string, code: string, name: string): Promise<{ credential: string; device: { id: string; name: string } }> {
  const u = new URL('pair', remoteUrl.replace(/\/?$/, '/'));
  const body = JSON.stringify({ code, name });
  return new Promise((resolve, reject) => {
    const req = httpsRequest(u, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, ...pinned(certPem, fingerprint) }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let parsed: { credential?: string; device?: { id: string; name: string }; error?: string } = {};
        try {
          parsed = JSON.parse(text) as typeof parsed;
        } catch {
          // said below
        }
        if (res.statusCode === 201 && parsed.credential && parsed.device) resolve({ credential: parsed.credential, device: parsed.device });
        else reject(new Error(`Pairing with ${u.host} failed (HTTP ${res.statusCode}): ${parsed.error ?? text.slice(0, 200)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function startRemoteHost(o: RemoteHostOptions): Promise<RemoteHost> {
  const log = o.log ?? stderrLogger;
  const token = o.token ?? randomBytes(24).toString('base64url');
  const tokenBytes = Buffer.from(token);
  let port = 0;
  const hostOk = (req: IncomingMessage) => req.headers.host === `127.0.0.1:${port}` || req.headers.host === `localhost:${port}`;
  const originOk = (req: IncomingMessage) => req.headers.origin === undefined || req.headers.origin === `http://127.0.0.1:${port}` || req.headers.origin === `http://localhost:${port}`;
  const afterToken = (raw: string | undefined): string | null => {
    const m = /^\/([^/?]+)(\/[^?]*)?/.exec(raw ?? '/');
    if (!m) return null;
    const given = Buffer.from(m[1]!);
    return given.length === tokenBytes.length && timingSafeEqual(given, tokenBytes) ? (m[2] ?? '') : null;
  };
  const csp = () => `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; font-src 'self'; connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  const machineMeta = `<meta name="deskhand-remote" content="${o.machine.replace(/[<>"&]/g, '')}">`;

  const server = createServer((req, res) => {
    const rest = hostOk(req) && originOk(req) ? afterToken(req.url) : null;
    if (rest === null) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end('Forbidden. Open the full address deskhand web --remote printed.\n');
    }
    if (rest === '') return void (res.writeHead(308, { location: `/${token}/` }), res.end());
    if (rest === '/' || rest === '/index.html') {
      // The page, with the machine it drives named for the banner.
      const html = readFileSync(join(o.rendererDir, 'index.html'), 'utf8').replace('<head>', `<head>${machineMeta}`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp(), 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
      return void res.end(html);
    }
    serveRendererFile(o.rendererDir, rest, req, res, csp());
  });

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!hostOk(req) || req.headers.origin === undefined || !originOk(req) || afterToken(req.url) !== '/ws') {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });

  const relays = new Set<() => void>();
  wss.on('connection', (page: WebSocket) => {
    // One upstream per page; a dropped upstream reconnects and resumes where it was, the page's requests wait meanwhile.
    let resume: string | null = null;
    let up: WebSocket | null = null;
    let closed = false;
    let retry = 0;
    const outbox: string[] = [];
    const connect = () => {
      if (closed) return;
      const ws = upstream(o, resume);
      up = ws;
      ws.on('open', () => {
        retry = 0;
        for (const m of outbox.splice(0)) ws.send(m);
      });
      ws.on('message', (data: Buffer) => {
        const text = data.toString();
        try {
          const msg = JSON.parse(text) as { t?: string; resume?: string };
          if (typeof msg.resume === 'string') resume = msg.resume;
          // A resync means events were lost upstream: the page loads everything again after a reconnect of its own.
          if (msg.t === 'resync') return void page.close(1012, 'Resync with the remote machine');
        } catch {
          return;
        }
        if (page.readyState === page.OPEN) page.send(text);
      });
      ws.on('unexpected-response', (_req, res) => {
        log.warn(`remote: ${o.machine} refused the connection (HTTP ${res.statusCode})`);
        if (res.statusCode === 401) {
          closed = true;
          page.close(4401, 'This machine is no longer paired with the remote (revoked).');
        }
      });
      ws.on('error', () => undefined);
      ws.on('close', () => {
        up = null;
        if (closed) return;
        retry++;
        setTimeout(connect, Math.min(5000, 100 * 2 ** Math.min(retry, 6))).unref();
      });
    };
    const stop = () => {
      closed = true;
      up?.close();
    };
    relays.add(stop);
    page.on('message', (data: Buffer) => {
      const text = data.toString();
      if (up?.readyState === WebSocket.OPEN) up.send(text);
      else outbox.push(text);
    });
    page.on('close', () => {
      relays.delete(stop);
      stop();
    });
    connect();
  });

  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(o.port ?? 0, '127.0.0.1', () => res());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    port,
    token,
    close: () =>
      new Promise<void>((res) => {
        for (const stop of relays) stop();
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.close(() => res());
        server.closeAllConnections();
      }),
  };
}
