/**
 * Issue 43, M2: ask_peer sends the message and the peer's token only to the endpoint the person configured. Deskhand's
 * A2A client (A2aPeerCaller) against an SDK-built server whose agent card names another address for its interface —
 * another port on this machine, `localhost`, IPv6 loopback, a private address, cloud metadata, an echo-DNS name, a
 * numeric spelling of 127.0.0.1, https on the same host and port — is refused before anything is sent there: a
 * listener at the card's address hears nothing, and the peer's own interface receives no message either. A card
 * answered with a redirect elsewhere is not followed. A configured endpoint named by a public-looking name that
 * resolves to this machine is refused at connect (the pinned client's lookup). Positive control: the same server with
 * a card at its own origin gets the message with the token as Bearer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { A2aPeerCaller, sameOriginCard } from '../../src/main/services/peers/peer-client';
import { endpointWords } from '../../src/shared/peer-endpoint';
import { sdkSampleServer } from '../support/a2a';
import { startServer, tableResolver, type TestServer } from '../web/servers';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function caller(endpoint: string, resolver?: Parameters<typeof tableResolver>[0]) {
  const peer = { name: 'carol', enabled: true, endpoint };
  const book = { list: () => [peer], require: () => peer, outboundToken: async () => 'carol-token-123' };
  return new A2aPeerCaller(book as never, resolver ? { resolver: tableResolver(resolver) } : {});
}

async function listener(): Promise<TestServer> {
  const s = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  closers.push(s.close);
  return s;
}

async function sample(opts: Parameters<typeof sdkSampleServer>[2] = {}) {
  const s = await sdkSampleServer('carol-token-123', (text) => `carol says: ${text.length} characters`, opts);
  closers.push(s.close);
  return s;
}

const ask = (c: A2aPeerCaller) => c.ask('carol', 'What is the plan for Friday?', { signal: AbortSignal.timeout(30_000) });

describe('ask_peer uses the agent card only at the configured endpoint', () => {
  it('positive control: a card at its own origin is used; the message arrives with the token', async () => {
    const s = await sample();
    const answer = await ask(caller(s.url));
    expect(answer.state).toBe('completed');
    expect(answer.text).toMatch(/^carol says:/);
    expect(s.received.at(-1)!.authorization).toBe('Bearer carol-token-123');
  });

  const elsewhere: [string, (l: TestServer, own: string) => string][] = [
    ['another port on this machine', (l) => `http://127.0.0.1:${l.port}/rpc`],
    ['localhost', (l) => `http://localhost:${l.port}/rpc`],
    ['IPv6 loopback', (l) => `http://[::1]:${l.port}/rpc`],
    ['IPv4-mapped loopback', (l) => `http://[::ffff:127.0.0.1]:${l.port}/rpc`],
    ['a numeric spelling of 127.0.0.1', (l) => `http://2130706433:${l.port}/rpc`],
    ['an echo-DNS name of loopback', (l) => `http://127.0.0.1.nip.io:${l.port}/rpc`],
    ['a private address', () => 'http://10.0.0.7:8080/rpc'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a public host', () => 'https://attacker.example/rpc'],
    ['https on the same host and port', (_l, own) => own.replace(/^http:/, 'https:') + '/rpc'],
    ['the same host on another path and port', (l, own) => `${new URL(own).protocol}//${new URL(own).hostname}:${l.port}${new URL(own).pathname}`],
  ];

  it.each(elsewhere)('a card naming %s is refused: the listener hears nothing, no message is sent', async (_name, where) => {
    const l = await listener();
    const s = await sample({ interfaceUrl: (own) => where(l, own) });
    await expect(ask(caller(s.url))).rejects.toThrow(/agent card points to .*not to its configured endpoint http:\/\/127\.0\.0\.1:\d+; .*nothing was sent/);
    expect(l.log).toEqual([]);
    expect(s.received).toEqual([]);
    // Only the card was fetched, from the configured endpoint.
    expect(s.requests).toEqual(['GET /.well-known/agent-card.json']);
  });

  it('a card answered with a redirect to another address is not followed', async () => {
    const l = await listener();
    const r = await sample({ cardRedirect: `http://127.0.0.1:${l.port}/.well-known/agent-card.json` });
    await expect(ask(caller(r.url))).rejects.toThrow();
    expect(l.log).toEqual([]);
    expect(r.received).toEqual([]);
  });

  it('a configured endpoint whose public-looking name resolves to this machine is refused at connect', async () => {
    const s = await sample();
    const port = new URL(s.url).port;
    await expect(ask(caller(`http://peer.example.com:${port}`, { 'peer.example.com': '127.0.0.1' }))).rejects.toThrow(/peer\.example\.com resolved to 127\.0\.0\.1 \(loopback.*nothing was sent/);
    expect(s.requests).toEqual([]);
    // Control: the same server by the address the person configured is reached.
    await ask(caller(s.url));
    expect(s.received).toHaveLength(1);
  });

  it('the card check keeps only the interfaces at the endpoint origin, and names where a card pointed', () => {
    const card = { supportedInterfaces: [{ url: 'http://127.0.0.1:9/x', protocolBinding: 'JSONRPC' }, { url: 'https://peer.example.com/a2a/rpc', protocolBinding: 'HTTP+JSON' }] };
    expect(sameOriginCard('carol', card, 'https://peer.example.com').supportedInterfaces).toEqual([{ url: 'https://peer.example.com/a2a/rpc', protocolBinding: 'HTTP+JSON' }]);
    expect(() => sameOriginCard('carol', { supportedInterfaces: [{ url: 'not a url', protocolBinding: 'JSONRPC' }] }, 'https://peer.example.com')).toThrow(/points to not a url/);
    expect(() => sameOriginCard('carol', {}, 'https://peer.example.com')).toThrow(/points to no interface/);
  });

  it.each([
    ['http://127.0.0.1:41241/', 'http://127.0.0.1:41241 (127.0.0.1 is a loopback address (this machine))'],
    ['http://192.168.1.20:8080/a2a', 'http://192.168.1.20:8080 (192.168.1.20 is a private-network address)'],
    ['http://bob.local:8080', 'http://bob.local:8080 (bob.local is a local-network name (.local))'],
    ['https://bob.example.com/a2a', 'https://bob.example.com'],
  ])('the approval names the endpoint %s as %s', (endpoint, words) => {
    expect(endpointWords('bob', endpoint)).toBe(words);
  });
});
