/**
 * The floor under the agent's browser: Chromium is started with this proxy as its only way out (`--proxy-server`, and
 * `<-loopback>` so even this machine's own addresses go through it), so every connection any page, frame, worker or
 * service worker opens — documents, fetches, WebSockets (ws and wss), EventSource, beacons — arrives here as a CONNECT
 * or an absolute-form request before it reaches anything. Each is judged by the shared URL rules on its host and on
 * the addresses it resolves to now (the socket is then pinned to the address judged, so DNS cannot change between
 * the two); a destination on this machine or its network goes through only when the browser's policy says a person
 * approved it. The proxy knows destinations, not tabs: per-conversation approvals are applied above it (the page
 * route), and here a private destination passes when some open conversation approved it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { destinationKey, isIpLiteral, judgeDestination, parseWebUrl, type Destination, type PrivateFinding } from '../../../shared/url-guard';

export interface ProxyPolicy {
  /** Whether a private destination (host:port key) may be reached: a person approved it. */
  allowsPrivate(dest: Destination, findings: readonly PrivateFinding[]): boolean;
  /** Told of each refusal (for notes and tests). */
  refused?(dest: Destination, findings: readonly PrivateFinding[], how: 'tunnel' | 'request' | 'upgrade'): void;
}

export type ProxyResolver = (host: string) => Promise<string[]>;

const systemResolve: ProxyResolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Hop-by-hop headers a forwarding proxy does not pass on. */
const HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'transfer-encoding']);

export class EgressProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly sockets: Set<Duplex>,
  ) {}

  /** `http://127.0.0.1:PORT`: what Chromium's `--proxy-server` names. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The Chromium flags that make this proxy the browser's only way out, loopback included. */
  chromiumArgs(): string[] {
    return [`--proxy-server=${this.url}`, '--proxy-bypass-list=<-loopback>'];
  }

  static async start(policy: ProxyPolicy, opts: { resolve?: ProxyResolver } = {}): Promise<EgressProxy> {
    const resolve = opts.resolve ?? systemResolve;
    const sockets = new Set<Duplex>();
    const track = (s: Duplex) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    };
    /** The address to connect to, or the reason it may not be reached. */
    const judge = async (dest: Destination, how: 'tunnel' | 'request' | 'upgrade'): Promise<{ address: string } | { refused: string }> => {
      let addresses: string[];
      if (isIpLiteral(dest.host)) addresses = [dest.host];
      else {
        addresses = await resolve(dest.host).catch(() => []);
        if (!addresses.length) return { refused: `${dest.host} did not resolve` };
      }
      const findings = judgeDestination(dest, isIpLiteral(dest.host) ? [] : addresses);
      if (findings.length && !policy.allowsPrivate(dest, findings)) {
        policy.refused?.(dest, findings, how);
        return { refused: `${dest.key} is on this machine or its network (${findings.map((f) => f.detail).join('; ')}) and was not approved` };
      }
      return { address: addresses[0]! };
    };

    const server = createServer((req, res) => void forward(req, res));
    server.on('connection', track);

    // https, wss (and ws, which Chromium tunnels too): CONNECT host:port.
    server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
      track(client);
      const dest = authority(req.url ?? '');
      if (!dest) return refuse(client, 400, 'a CONNECT names host:port');
      void judge(dest, 'tunnel').then((j) => {
        if ('refused' in j) return refuse(client, 403, j.refused);
        const upstream = connect({ host: j.address, port: dest.port });
        track(upstream);
        upstream.once('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.once('error', () => refuse(client, 502, `could not connect to ${dest.key}`));
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      });
    });

    // ws:// sent as an absolute-form upgrade (when not tunnelled).
    server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
      track(client);
      const parsed = absolute(req.url ?? '');
      if (!parsed) return refuse(client, 400, 'a proxied request names an absolute http URL');
      void judge(parsed.dest, 'upgrade').then((j) => {
        if ('refused' in j) return refuse(client, 403, j.refused);
        const upstream = connect({ host: j.address, port: parsed.dest.port });
        track(upstream);
        upstream.once('connect', () => {
          const lines = [`${req.method} ${parsed.path} HTTP/1.1`];
          for (let i = 0; i < req.rawHeaders.length; i += 2) {
            const name = req.rawHeaders[i]!;
            if (/^proxy-/i.test(name)) continue;
            lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
          }
          upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.once('error', () => refuse(client, 502, `could not connect to ${parsed.dest.key}`));
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      });
    });

    // Plain http: GET http://host:port/path.
    async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const parsed = absolute(req.url ?? '');
      if (!parsed) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('This is the browser egress proxy of Deskhand: it forwards proxied requests only.\n');
        return;
      }
      const j = await judge(parsed.dest, 'request');
      if ('refused' in j) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end(`Blocked by Deskhand: ${j.refused}.\n`);
        return;
      }
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
      const upstream = httpRequest({ host: j.address, port: parsed.dest.port, method: req.method, path: parsed.path, headers, setHost: false, agent: false }, (up) => {
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
        up.on('error', () => res.destroy());
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`Could not connect to ${parsed.dest.key}.\n`);
        else res.destroy();
      });
      req.pipe(upstream);
    }

    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolveListen());
    });
    return new EgressProxy(server, (server.address() as AddressInfo).port, sockets);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

function refuse(client: Duplex, status: number, reason: string): void {
  const text = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway';
  const body = `Blocked by Deskhand: ${reason}.\n`;
  if (client.writable) client.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  (client as Socket).destroySoon?.();
}

/** `host:port` of a CONNECT (IPv6 in brackets) as a destination. */
function authority(raw: string): Destination | null {
  const m = /^(\[[0-9a-fA-F:.%]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(raw);
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  const parsed = parseWebUrl(`http://${m[1]}:${port}/`);
  if (!parsed.ok) return null;
  // parseWebUrl drops a default port from the URL; the key keeps the one asked for.
  return { ...parsed.dest, port, key: destinationKey(parsed.dest.host, port) };
}

/** An absolute-form http(s) request target (ws:// arrives as http:// from Chromium). */
function absolute(raw: string): { dest: Destination; path: string } | null {
  if (!/^(https?|wss?):\/\//i.test(raw)) return null;
  const parsed = parseWebUrl(raw.replace(/^ws(s?):/i, 'http$1:'));
  if (!parsed.ok) return null;
  return { dest: parsed.dest, path: `${parsed.dest.url.pathname}${parsed.dest.url.search}` };
}
