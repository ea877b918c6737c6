/**
 * Every connection a page of the agent's browser opens is judged like a navigation, below the page (Debian's
 * Chromium, headless, real listeners): WebSockets in many spellings of this machine's address, from the page, an
 * iframe, a dedicated worker, a blob worker, a shared worker and a service worker, fetches from a worker — none reaches
 * a loopback listener nobody approved (its connection log stays empty), while the same probes reach a listener a person
 * approved (the positive control). WebRTC and WebTransport send no UDP datagram to a listener; the same probes in a
 * Chromium started without Deskhand's flags do (so the probe itself works). Approvals belong to one conversation:
 * another conversation's page is refused the same destination.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium as playwright } from 'playwright-core';
import type { Page } from 'playwright-core';
import { PlaywrightBrowser } from '../../src/main/services/browser/playwright-browser';
import { findChromium } from '../../src/main/services/chromium/index';
import { createBrowserFamily } from '../../src/main/tools/browser';
import { tempDir } from '../support/tool-context';
import { startServer, type TestServer } from '../web/servers';
import { startTcpListener, startUdpListener, type TcpListener, type UdpListener } from './egress-listeners';

const found = findChromium();

/** The page's probes: each settles with what the page saw ("open:<first message>", "error", "closed:<code>"…). */
const PROBE = `
function probe(url) {
  return new Promise((resolve) => {
    let ws;
    try { ws = new WebSocket(url); } catch (e) { return resolve('throws:' + e.name); }
    ws.onmessage = (m) => { resolve('open:' + m.data); ws.close(); };
    ws.onerror = () => resolve('error');
    ws.onclose = (c) => resolve('closed:' + c.code);
  });
}
async function fetchProbe(url) {
  try { const r = await fetch(url); return 'fetched:' + r.status + ':' + (await r.text()); } catch (e) { return 'error'; }
}
`;

const PAGE = `<!doctype html><title>Probes</title><script>${PROBE}
function viaWorker(url) {
  return new Promise((resolve) => { const w = new Worker('/worker.js'); w.onmessage = (e) => resolve(e.data); w.postMessage({ kind: 'ws', url }); });
}
function fetchViaWorker(url) {
  return new Promise((resolve) => { const w = new Worker('/worker.js'); w.onmessage = (e) => resolve(e.data); w.postMessage({ kind: 'fetch', url }); });
}
function viaBlobWorker(url) {
  const src = ${JSON.stringify(PROBE)} + 'onmessage = async (e) => postMessage(await probe(e.data));';
  return new Promise((resolve) => { const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' }))); w.onmessage = (e) => resolve(e.data); w.postMessage(url); });
}
function viaSharedWorker(url) {
  return new Promise((resolve) => { const w = new SharedWorker('/shared.js'); w.port.onmessage = (e) => resolve(e.data); w.port.start(); w.port.postMessage(url); });
}
async function viaServiceWorker(url) {
  const reg = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const active = reg.active || (await new Promise((r) => { const w = reg.installing || reg.waiting; w.onstatechange = () => w.state === 'activated' && r(w); }));
  return new Promise((resolve) => { const ch = new MessageChannel(); ch.port1.onmessage = (e) => resolve(e.data); active.postMessage(url, [ch.port2]); });
}
function viaIframe(url) {
  return new Promise((resolve) => {
    const f = document.createElement('iframe');
    f.src = '/frame';
    f.onload = () => f.contentWindow.probe(url).then(resolve);
    document.body.append(f);
  });
}
function viaFreshIframe(url) {
  const f = document.createElement('iframe');
  document.body.append(f);
  return new Promise((resolve) => {
    const ws = new f.contentWindow.WebSocket(url);
    ws.onmessage = (m) => resolve('open:' + m.data);
    ws.onerror = () => resolve('error');
    ws.onclose = (c) => resolve('closed:' + c.code);
  });
}
</script><body><h1>Probes</h1></body>`;

const WORKER = `${PROBE}
onmessage = async (e) => postMessage(e.data.kind === 'fetch' ? await fetchProbe(e.data.url) : await probe(e.data.url));`;
const SHARED = `${PROBE}
onconnect = (c) => { const port = c.ports[0]; port.onmessage = async (e) => port.postMessage(await probe(e.data)); };`;
const SW = `${PROBE}
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => { probe(e.data).then((r) => e.ports[0].postMessage(r)); });`;

/** WebRTC and WebTransport aimed at a UDP port: each settles when the attempt is over (gathering complete, ready failed). */
const UDP_PROBES = `
async function stun(port) {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:' + port }] });
  pc.createDataChannel('x');
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((r) => { if (pc.iceGatheringState === 'complete') r(); pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') r(); }; });
  const sdp = pc.localDescription.sdp;
  pc.close();
  return sdp;
}
async function webTransport(port) {
  try { const t = new WebTransport('https://127.0.0.1:' + port + '/'); await t.ready; return 'ready'; } catch (e) { return 'failed:' + e.name; }
}
`;

let server: TestServer;
let blocked: TcpListener;
let approved: TcpListener;
let udp: UdpListener;
let browser: PlaywrightBrowser;
const CONV = 'conv_egress';
const OTHER = 'conv_other';

beforeAll(async () => {
  server = await startServer((req, res) => {
    const js = (body: string) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    switch (req.url) {
      case '/page':
        return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      case '/frame':
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Frame</title><script>${PROBE}</script>`);
      case '/udp':
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>UDP</title><script>${UDP_PROBES}</script>`);
      case '/worker.js':
        return js(WORKER);
      case '/shared.js':
        return js(SHARED);
      case '/sw.js':
        return js(SW);
      default:
        return res.writeHead(404).end();
    }
  });
  [blocked, approved, udp] = await Promise.all([startTcpListener(), startTcpListener(), startUdpListener()]);
  browser = new PlaywrightBrowser({ dataDir: tempDir('deskhand-data-'), settings: () => ({ headless: true }) });
  // The person approved the probe site and one listener, in this conversation only.
  browser.approveDestination(CONV, `127.0.0.1:${server.port}`);
  browser.approveDestination(CONV, `127.0.0.1:${approved.port}`);
  browser.approveDestination(OTHER, `127.0.0.1:${server.port}`);
}, 60_000);
afterAll(async () => {
  await browser?.shutdown();
  await Promise.all([server?.close(), blocked?.close(), approved?.close(), udp?.close()]);
});

async function probePage(conv = CONV): Promise<Page> {
  await browser.navigate(conv, `${server.origin}/page`);
  const page = browser.pageOf(conv)!;
  expect(await page.title()).toBe('Probes');
  return page;
}

const run = (page: Page, fn: string, url: string) => page.evaluate(([f, u]) => (globalThis as unknown as Record<string, (u: string) => Promise<string>>)[f!]!(u!), [fn, url]);

describe.skipIf(!found)('browser connections are judged below the page', () => {
  const spellings = (p: () => number): [string, () => string][] => [
    ['ws://127.0.0.1', () => `ws://127.0.0.1:${p()}/`],
    ['ws://localhost', () => `ws://localhost:${p()}/`],
    ['ws://[::1]', () => `ws://[::1]:${p()}/`],
    ['ws://0.0.0.0', () => `ws://0.0.0.0:${p()}/`],
    ['ws:// decimal 2130706433', () => `ws://2130706433:${p()}/`],
    ['ws:// hex 0x7f000001', () => `ws://0x7f000001:${p()}/`],
    ['ws:// short 127.1', () => `ws://127.1:${p()}/`],
    ['ws:// octal 0177.0.0.1', () => `ws://0177.0.0.1:${p()}/`],
    ['ws://[::ffff:127.0.0.1]', () => `ws://[::ffff:127.0.0.1]:${p()}/`],
    ['ws://LOCALHOST.', () => `ws://LOCALHOST.:${p()}/`],
    ['ws://a.localhost', () => `ws://a.localhost:${p()}/`],
    ['ws://127.0.0.1.nip.io', () => `ws://127.0.0.1.nip.io:${p()}/`],
    ['wss://127.0.0.1', () => `wss://127.0.0.1:${p()}/`],
    ['wss://localhost', () => `wss://localhost:${p()}/`],
    ['http(s) scheme given to WebSocket', () => `http://127.0.0.1:${p()}/`],
  ];

  it.each(spellings(() => blocked.port))('a page WebSocket to a never-approved loopback port: %s', async (_what, url) => {
    const page = await probePage();
    const before = blocked.log.length;
    const seen = await run(page, 'probe', url());
    expect(seen).not.toMatch(/^open/);
    expect(blocked.log.slice(before)).toEqual([]);
  });

  const contexts = ['viaWorker', 'viaBlobWorker', 'viaSharedWorker', 'viaServiceWorker', 'viaIframe', 'viaFreshIframe'] as const;
  const shortList = (p: () => number): [string, () => string][] => [
    ['ws://127.0.0.1', () => `ws://127.0.0.1:${p()}/`],
    ['ws://[::1]', () => `ws://[::1]:${p()}/`],
    ['ws://0.0.0.0', () => `ws://0.0.0.0:${p()}/`],
    ['wss://localhost', () => `wss://localhost:${p()}/`],
  ];
  const table = contexts.flatMap((c) => shortList(() => blocked.port).map(([what, url]) => [c, what, url] as const));

  it.each(table)('%s: a WebSocket to a never-approved loopback port (%s)', async (via, _what, url) => {
    const page = await probePage();
    const before = blocked.log.length;
    const seen = await run(page, via, url());
    expect(seen).not.toMatch(/^open/);
    expect(blocked.log.slice(before)).toEqual([]);
  });

  it('a worker fetch to a never-approved loopback port does not reach it', async () => {
    const page = await probePage();
    const before = blocked.log.length;
    for (const url of [`http://127.0.0.1:${blocked.port}/x`, `http://[::1]:${blocked.port}/x`, `http://0.0.0.0:${blocked.port}/x`]) {
      expect(await run(page, 'fetchViaWorker', url)).not.toMatch(/reached/);
    }
    expect(blocked.log.slice(before)).toEqual([]);
  });

  it.each(contexts.map((c) => [c] as const))('positive control: %s reaches the listener a person approved in this conversation', async (via) => {
    const page = await probePage();
    const before = approved.log.length;
    expect(await run(page, via, `ws://127.0.0.1:${approved.port}/`)).toBe('open:hello');
    expect(approved.log.length).toBeGreaterThan(before);
  });

  it('positive control: a page WebSocket and a worker fetch reach the approved listener', async () => {
    const page = await probePage();
    const before = approved.log.length;
    expect(await run(page, 'probe', `ws://127.0.0.1:${approved.port}/`)).toBe('open:hello');
    expect(await run(page, 'fetchViaWorker', `http://127.0.0.1:${approved.port}/x`)).toBe('fetched:200:reached');
    expect(approved.log.length).toBe(before + 2);
  });

  it("another conversation's approval covers nothing: its navigation and a link there are refused", async () => {
    // Both conversations have pages open; only CONV approved the listener.
    await probePage(CONV);
    const other = await probePage(OTHER);
    const before = approved.log.length;
    const nav = await browser.navigate(OTHER, `http://127.0.0.1:${approved.port}/`);
    expect(nav.notes.join(' ')).toMatch(/was blocked/);
    await other.evaluate((u) => { (globalThis as unknown as { location: { href: string } }).location.href = u; }, `http://127.0.0.1:${approved.port}/link`).catch(() => undefined);
    await other.waitForLoadState('load').catch(() => undefined);
    expect(approved.log.slice(before)).toEqual([]);
    // The tool asks in the other conversation (its effects name the URL for the url-guard inspector), not in CONV.
    const family = createBrowserFamily({ browser, dataDir: tempDir('deskhand-data-'), urlGrants: () => [], endpoint: () => undefined, resolve: async () => [] });
    const nav2 = family.tools.find((t) => t.name === 'browser_navigate')!;
    const effects = (conv: string) => nav2.effects!({ url: `http://127.0.0.1:${approved.port}/` } as never, { cwd: '/', workspaceRoots: [], dataDir: '/', conversationId: conv });
    expect((await effects(OTHER)).urls).toEqual([`http://127.0.0.1:${approved.port}/`]);
    expect((await effects(CONV)).urls).toBeUndefined();
  });

  describe('UDP', () => {
    it('WebRTC sends no STUN packet and WebTransport no QUIC packet to a listener', async () => {
      await browser.navigate(CONV, `${server.origin}/udp`);
      const page = browser.pageOf(CONV)!;
      await page.evaluate((p) => (globalThis as unknown as { stun(p: number): Promise<string> }).stun(p), udp.port);
      expect(await page.evaluate((p) => (globalThis as unknown as { webTransport(p: number): Promise<string> }).webTransport(p), udp.port)).toMatch(/^failed/);
      expect(udp.log).toEqual([]);
    });

    it.each([['stun'], ['webTransport']] as const)('positive control: %s in a Chromium without these flags reaches the listener', async (probe) => {
      const plain = await playwright.launch({ executablePath: found!.path, headless: true });
      try {
        const page = await plain.newPage();
        await page.goto(`${server.origin}/udp`);
        const before = udp.log.length;
        // Not awaited: the attempt may take long to give up; its first datagram is what counts.
        void page.evaluate(([f, p]) => (globalThis as unknown as Record<string, (p: number) => Promise<string>>)[f as string]!(p as number), [probe, udp.port]).catch(() => undefined);
        await expect.poll(() => udp.log.length, { timeout: 20_000 }).toBeGreaterThan(before);
        udp.log.splice(before);
      } finally {
        await plain.close();
      }
    }, 40_000);
  });
});
