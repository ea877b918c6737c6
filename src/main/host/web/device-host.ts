/**
 * The paired-device listener (issue 51): a second, TLS-only server next to `deskhand web`'s loopback one, started only
 * with `deskhand web --listen ADDR[:PORT]`. A phone (or another Deskhand) pairs at `/pair` with the short code the
 * desktop shows (`deskhand devices pair`), receives its own credential (a Secure, HttpOnly cookie for a browser; the
 * JSON answer for a program), and then gets the same UI at `/app/` and the same contract over `/app/ws`.
 *
 * - Never the desktop's token: nothing here reads or serves it; the pages are the built renderer, the socket is
 *   authenticated by the device's credential only.
 * - A revoked device is refused at once: every request and every message checks the credential again, and a change of
 *   the devices file (`deskhand devices revoke` in another process) closes the sockets whose device is gone.
 * - TLS 1.3 only (no downgrade), a self-signed certificate whose SHA-256 the pairing QR carries.
 * - Every action a device takes is audited with its name; an approval it answers records "the paired device NAME".
 */
import { watch, type FSWatcher } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { randomBytes } from 'node:crypto';
import { MAX_PAYLOAD_BYTES, type ContractEvent } from '../../../shared/contract';
import { pairingLink, type DeviceCertificate, type DeviceRecord, type DeviceRegistry } from '../../services/devices/index';
import type { AppService } from '../app/app-service';
import { createDispatch } from '../app/dispatch';
import { asDevice } from '../app/device-actor';
import { EventBatcher } from '../app/event-batcher';
import { stderrLogger, type Logger } from '../assembly/logger';
import { serveRendererFile, type ServerMessage } from './web-host';

export interface DeviceHostOptions {
  service: AppService;
  registry: DeviceRegistry;
  rendererDir: string;
  /** The address to bind (127.0.0.1 unless the person chose another with --listen). */
  host: string;
  /** 0 picks a free port. */
  port: number;
  certificate: DeviceCertificate;
  log?: Logger;
}

export interface DeviceHost {
  /** https://ADDR:PORT/ */
  readonly url: string;
  readonly port: number;
  readonly fingerprint: string;
  /** What the pairing QR encodes: the page, the code and the certificate's fingerprint (in the fragment, never sent). */
  pairingLink(code: string): string;
  /** Closes the sockets of devices that are no longer paired (called after an in-process revocation; a file watch does it for others). */
  recheck(): void;
  close(): Promise<void>;
}

/** The address to put in links for a bind address: itself, or for 0.0.0.0 / :: the first external IPv4 (else 127.0.0.1). */
export function advertisedHost(bind: string): string {
  if (bind !== '0.0.0.0' && bind !== '::') return bind;
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

export const DEVICE_COOKIE = 'deskhand_device';
/** Events kept for a device that reconnects (`/app/ws?after=EPOCH.SEQ`) to receive what it missed. */
const RESUME_EVENTS = 5000;

/**
 * What the device socket sends: the web host's messages, with `resume` on each event batch (the position to resume
 * after), and `resync` when a reconnecting device asked for events no longer kept (or from an earlier launch): it
 * loads everything again.
 */
export type DeviceServerMessage = Exclude<ServerMessage, { t: 'events' }> | { t: 'events'; events: ContractEvent[]; resume: string } | { t: 'resync'; resume: string };
/** Pairing attempts one address may make per minute, whatever the codes (the window's own limit is MAX_WRONG_CODES). */
const PAIR_ATTEMPTS_PER_MINUTE = 10;
/** Reads that a device makes all the time are not audited; everything else is. */
const QUIET = /^(list|get|search|read|explain|preview|browse|export|count|find)/;

export async function startDeviceHost(opts: DeviceHostOptions): Promise<DeviceHost> {
  const log = opts.log ?? stderrLogger;
  const { registry } = opts;
  const dispatch = createDispatch(opts.service, log);
  const sockets = new Map<WebSocket, string>();
  // Every event gets a number in this launch (the epoch); the last RESUME_EVENTS are kept for resuming devices.
  const epoch = randomBytes(6).toString('hex');
  let seq = 0;
  const history: { seq: number; event: ContractEvent }[] = [];
  const offHistory = opts.service.onEvent((event) => {
    history.push({ seq: ++seq, event });
    if (history.length > RESUME_EVENTS) history.shift();
  });
  const attempts = new Map<string, number[]>();
  let port = 0;
  const wildcard = opts.host === '0.0.0.0' || opts.host === '::';
  // The address devices are told (the pairing link, the page's socket): for a wildcard bind, this machine's LAN address.
  const shown = advertisedHost(opts.host);
  const hostPart = isIP(shown) === 6 ? `[${shown}]` : shown;

  const hostAllowed = (h: string | undefined): boolean => {
    if (!h) return false;
    if (wildcard) return h.endsWith(`:${port}`);
    const loopback = opts.host === '127.0.0.1' || opts.host === '::1' || opts.host === 'localhost';
    return h === `${hostPart}:${port}` || (loopback && (h === `127.0.0.1:${port}` || h === `localhost:${port}`));
  };
  /** Origin, when a browser sends one, must be this very listener (no other site's page may use the cookie). */
  const originAllowed = (req: IncomingMessage): boolean => req.headers.origin === undefined || req.headers.origin === `https://${req.headers.host ?? ''}`;

  const credentialOf = (req: IncomingMessage): string | null => {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [k, ...v] = part.trim().split('=');
      if (k === DEVICE_COOKIE) return v.join('=');
    }
    return null;
  };

  const csp = () =>
    [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "media-src 'self' data:",
      "font-src 'self'",
      `connect-src 'self' wss://${hostPart}:${port}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');

  const plain = (res: ServerResponse, status: number, text: string, more: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...more });
    res.end(`${text}\n`);
  };
  const json = (res: ServerResponse, status: number, value: unknown, more: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...more });
    res.end(JSON.stringify(value));
  };

  function tooMany(address: string): boolean {
    const now = Date.now();
    const recent = (attempts.get(address) ?? []).filter((t) => now - t < 60_000);
    recent.push(now);
    attempts.set(address, recent);
    return recent.length > PAIR_ATTEMPTS_PER_MINUTE;
  }

  function pair(req: IncomingMessage, res: ServerResponse): void {
    if (tooMany(req.socket.remoteAddress ?? '?')) return json(res, 429, { error: 'Too many pairing attempts from this address; wait a minute.' }, { 'retry-after': '60' });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return json(res, 415, { error: 'Send the code as JSON: {"code": "XXXX-XXXX", "name": "my phone"}.' });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 2048) req.destroy();
    });
    req.on('end', () => {
      let given: { code?: unknown; name?: unknown };
      try {
        given = JSON.parse(body) as typeof given;
      } catch {
        return json(res, 400, { error: 'Send the code as JSON: {"code": "XXXX-XXXX", "name": "my phone"}.' });
      }
      if (typeof given.code !== 'string' || !given.code.trim() || given.code.length > 32) return json(res, 400, { error: 'The code is missing: type the code the desktop shows.' });
      let outcome;
      try {
        outcome = registry.pair(given.code, typeof given.name === 'string' ? given.name : null);
      } catch (err) {
        return json(res, 400, { error: (err as Error).message });
      }
      if (!outcome.ok) {
        log.warn(`devices: pairing refused (${outcome.reason}) from ${req.socket.remoteAddress ?? '?'}`);
        const status = { no_window: 404, expired: 410, wrong_code: 403, locked: 429 }[outcome.reason];
        return json(res, status, { error: outcome.message, reason: outcome.reason });
      }
      log.warn(`devices: paired "${outcome.device.name}" (${outcome.device.id}) from ${req.socket.remoteAddress ?? '?'}`);
      registry.audit(outcome.device, 'paired');
      const cookie = `${DEVICE_COOKIE}=${outcome.credential}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${400 * 24 * 3600}`;
      // A browser (it sends Origin) keeps the credential only in the HttpOnly cookie; a program gets it in the answer too.
      const program = req.headers.origin === undefined;
      json(res, 201, { device: outcome.device, ...(program ? { credential: outcome.credential } : {}) }, { 'set-cookie': cookie });
    });
  }

  const server: Server = createServer({ cert: opts.certificate.certPem, key: opts.certificate.keyPem, minVersion: 'TLSv1.3' }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    // Host guards what a browser sends on its own (the cookie); a program (no Origin, a Bearer credential or the pairing
    // exchange) may come through any name or forwarder: its credential or code is the check.
    const program = req.headers.origin === undefined && (req.headers.authorization?.startsWith('Bearer ') === true || (path === '/pair' && req.method === 'POST'));
    if (!program && !hostAllowed(req.headers.host)) return plain(res, 403, 'Forbidden (wrong Host).');
    if (!originAllowed(req)) return plain(res, 403, 'Forbidden (foreign Origin).');
    const security = { 'strict-transport-security': 'max-age=31536000', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
    if (path === '/pair' && req.method === 'POST') return pair(req, res);
    if (path === '/pair' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'", ...security });
      return void res.end(req.method === 'HEAD' ? undefined : PAIR_PAGE);
    }
    if (path === '/pair.js' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store', ...security });
      return void res.end(PAIR_SCRIPT);
    }
    const device = registry.verify(credentialOf(req));
    if (!device) {
      if (path === '/' || path.startsWith('/app')) return void (res.writeHead(302, { location: '/pair', 'cache-control': 'no-store' }), res.end());
      return plain(res, 401, 'This device is not paired (or was revoked). Pair it again: on the desktop, Settings → Devices or `deskhand devices pair`.');
    }
    registry.touch(device.id);
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method not allowed.', { allow: 'GET, HEAD' });
    if (path === '/' || path === '/app') return void (res.writeHead(302, { location: '/app/' }), res.end());
    if (!path.startsWith('/app/')) return plain(res, 404, 'Not found.');
    serveRendererFile(opts.rendererDir, path.slice('/app'.length), req, res, csp());
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * MAX_PAYLOAD_BYTES, perMessageDeflate: false });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const credential = credentialOf(req);
    const fromCookie = !req.headers.authorization;
    const device = registry.verify(credential);
    const refused = fromCookie && !hostAllowed(req.headers.host)
      ? 'wrong Host'
      : !originAllowed(req) || (fromCookie && req.headers.origin === undefined)
        ? 'foreign or missing Origin'
        : (req.url ?? '').split('?')[0] !== '/app/ws'
          ? 'wrong path'
          : !device
            ? 'unknown or revoked device'
            : null;
    if (refused) {
      log.warn(`devices: refused WebSocket upgrade (${refused}) from ${req.socket.remoteAddress ?? '?'}`);
      socket.end(`HTTP/1.1 ${refused.includes('device') ? '401 Unauthorized' : '403 Forbidden'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const after = new URL(req.url ?? '/', 'https://device.invalid').searchParams.get('after');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req, device, credential, after));
  });

  const cut = (ws: WebSocket) => {
    ws.close(4401, 'This device was revoked.');
    setTimeout(() => ws.terminate(), 300).unref();
  };

  wss.on('connection', (ws: WebSocket, _req: IncomingMessage, device: DeviceRecord, credential: string, after: string | null) => {
    sockets.set(ws, credential);
    registry.touch(device.id);
    const send = (message: ServerMessage | DeviceServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    // A reconnecting device first gets what it missed (or, when that is no longer kept, a resync), then live events.
    if (after !== null) {
      const m = /^([a-f0-9]{12})\.(\d{1,15})$/.exec(after);
      const from = m && m[1] === epoch ? Number(m[2]) : null;
      const kept = from !== null && from <= seq && (from === seq || (history[0]?.seq ?? Infinity) <= from + 1);
      if (!kept) send({ t: 'resync', resume: `${epoch}.${seq}` });
      else if (from < seq) send({ t: 'events', events: history.filter((h) => h.seq > from).map((h) => h.event), resume: `${epoch}.${seq}` });
    }
    let upTo = seq;
    const batcher = new EventBatcher((events) => send({ t: 'events', events, resume: `${epoch}.${upTo}` }));
    const unsubscribe = opts.service.onEvent((e) => {
      // The history's listener came first: `seq` is this event's number.
      upTo = seq;
      batcher.push(e);
    });
    ws.on('message', (data, isBinary) => {
      // Revoked since the socket opened: nothing more is answered.
      const still = registry.verify(credential);
      if (!still) return cut(ws);
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
      const id = typeof message.id === 'number' && Number.isSafeInteger(message.id) ? message.id : -1;
      const method = raw === null ? undefined : message.method;
      if (typeof method === 'string' && !QUIET.test(method)) registry.audit(still, method);
      registry.touch(still.id);
      void asDevice(still, () => dispatch(method, message.params, { source: `device ${still.name}`, bytes })).then((reply) => send({ t: 'reply', id, ...reply }));
    });
    ws.on('close', () => {
      sockets.delete(ws);
      unsubscribe();
      batcher.close();
    });
    ws.on('error', () => ws.terminate());
  });

  function recheck(): void {
    for (const [ws, credential] of sockets) if (!registry.verify(credential)) cut(ws);
  }

  // `deskhand devices revoke` in another process changes the file: the sockets of the revoked device close at once.
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(registry.dir, () => recheck());
  } catch {
    watcher = null;
  }
  const poll = setInterval(recheck, 2000);
  poll.unref();

  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port, opts.host, () => res());
  });
  port = (server.address() as AddressInfo).port;
  const url = `https://${hostPart}:${port}/`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    fingerprint: opts.certificate.fingerprint,
    pairingLink: (code) => pairingLink(url, code, opts.certificate.fingerprint),
    recheck,
    close() {
      closing ??= new Promise<void>((res) => {
        watcher?.close();
        clearInterval(poll);
        offHistory();
        for (const client of wss.clients) client.close(1001, 'Deskhand is shutting down');
        const t = setTimeout(() => {
          for (const client of wss.clients) client.terminate();
        }, 300);
        t.unref();
        wss.close();
        server.close(() => {
          clearTimeout(t);
          res();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

const PAIR_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pair with Deskhand</title>
<style>
body{font:17px/1.4 system-ui,sans-serif;margin:0;padding:24px;max-width:420px;margin:auto;color:#1d1d1f;background:#fafafa}
h1{font-size:22px}label{display:block;margin:16px 0 6px;font-weight:600}
input{width:100%;box-sizing:border-box;font-size:22px;padding:12px;border:1px solid #999;border-radius:10px}
#code{letter-spacing:4px;text-transform:uppercase;font-family:ui-monospace,monospace}
button{margin-top:20px;width:100%;min-height:52px;font-size:19px;border:0;border-radius:12px;background:#0a66d8;color:#fff}
#status{margin-top:16px;min-height:1.4em}#status.error{color:#b00020}.fp{font:12px ui-monospace,monospace;word-break:break-all;color:#555}
</style></head><body>
<h1>Pair this device with Deskhand</h1>
<p>Type the code your desktop shows (Settings → Devices, or <code>deskhand devices pair</code>).</p>
<form id="form"><label for="code">Pairing code</label><input id="code" autocomplete="one-time-code" autocapitalize="characters" maxlength="12" required>
<label for="name">Name this device</label><input id="name" maxlength="40" placeholder="my phone">
<button type="submit" id="pair">Pair</button></form>
<p id="status" role="status"></p>
<p class="fp" id="fp"></p>
</body><script src="/pair.js"></script></html>`;

const PAIR_SCRIPT = `(() => {
  const params = new URLSearchParams(location.hash.slice(1));
  const code = document.getElementById('code'), name = document.getElementById('name'), status = document.getElementById('status');
  if (params.get('code')) code.value = params.get('code');
  if (params.get('fp')) document.getElementById('fp').textContent = 'Expected certificate SHA-256: ' + params.get('fp').match(/../g).join(':') + ' (compare it with the one your browser shows for this page).';
  history.replaceState(null, '', location.pathname);
  document.getElementById('form').addEventListener('submit', async (e) => {
    e.preventDefault();
    status.className = ''; status.textContent = 'Pairing…';
    try {
      const r = await fetch('/pair', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: code.value, name: name.value }) });
      const body = await r.json();
      if (!r.ok) { status.className = 'error'; status.textContent = body.error || 'Pairing failed.'; return; }
      status.textContent = 'Paired as ' + body.device.name + '. Opening Deskhand…';
      location.replace('/app/');
    } catch (err) { status.className = 'error'; status.textContent = 'Could not reach Deskhand: ' + err; }
  });
})();`;
