/**
 * Listeners the browser egress tests aim at: a TCP listener on every loopback address (IPv4 and IPv6) that logs each
 * connection before a byte is read and answers WebSocket handshakes (so a connection that gets through is seen both
 * here and by the page), and a UDP listener that logs every datagram (STUN, QUIC).
 */
import { createHash } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpListener {
  port: number;
  /** One entry per connection: the first line the client sent (or '' when it sent nothing readable). */
  log: { from: string; first: string }[];
  close(): Promise<void>;
}

/** Listens on `::` (dual stack: 127.0.0.1, ::1, 0.0.0.0 all reach it). */
export async function startTcpListener(): Promise<TcpListener> {
  const log: TcpListener['log'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => sock.destroy());
    const entry = { from: sock.remoteAddress ?? '', first: '' };
    log.push(entry);
    let buf = '';
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      if (!entry.first) entry.first = buf.split('\r\n')[0] ?? '';
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const key = /sec-websocket-key:\s*(\S+)/i.exec(buf.slice(0, end))?.[1];
      if (key) {
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
        // One text frame: "hello".
        sock.write(Buffer.from([0x81, 5, ...Buffer.from('hello')]));
      } else {
        sock.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\naccess-control-allow-origin: *\r\ncontent-length: 7\r\nconnection: close\r\n\r\nreached');
      }
      buf = '';
    });
  });
  await new Promise<void>((r) => server.listen(0, '::', r));
  return {
    port: (server.address() as AddressInfo).port,
    log,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface UdpListener {
  port: number;
  log: { from: string; bytes: number }[];
  close(): Promise<void>;
}

export async function startUdpListener(): Promise<UdpListener> {
  const log: UdpListener['log'] = [];
  const sock: UdpSocket = createSocket({ type: 'udp4' });
  sock.on('message', (msg, rinfo) => log.push({ from: rinfo.address, bytes: msg.length }));
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  return { port: sock.address().port, log, close: () => new Promise<void>((r) => sock.close(() => r())) };
}
