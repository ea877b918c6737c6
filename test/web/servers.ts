/** Local HTTP servers started by the web tests, with a log of every request they received (method, URL, headers, body). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { PinnedHttpClient } from '../../src/main/services/http/pinned-client';

export interface Logged {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestServer {
  port: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  log: Logged[];
  close(): Promise<void>;
}

export async function startServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<TestServer> {
  const log: Logged[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      log.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/**
 * A resolver from a table (names the tests pretend are public or private); anything else does not resolve. A value
 * may be a list of answers given in turn (DNS that changes between the decision and the connect).
 */
export function tableResolver(table: Record<string, string | string[] | string[][]>) {
  const turns = new Map<string, number>();
  return async (host: string): Promise<LookupAddress[]> => {
    const entry = table[host];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    let answer: string[];
    if (typeof entry === 'string') answer = [entry];
    else if (entry.every((e) => typeof e === 'string')) answer = entry as string[];
    else {
      const n = turns.get(host) ?? 0;
      turns.set(host, n + 1);
      const list = entry as string[][];
      answer = list[Math.min(n, list.length - 1)]!;
    }
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

export function clientWith(table: Record<string, string | string[] | string[][]>): PinnedHttpClient {
  return new PinnedHttpClient({ resolver: tableResolver(table) });
}
