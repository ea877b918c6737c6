/**
 * Security round three (issue 29), mechanism 4, end to end through the built `deskhand run --enable browser` (Debian's
 * Chromium) with the scripted model server: the model opens a page on a loopback origin the person approves; the
 * page's script opens WebSockets to a loopback port nobody approved, in several spellings, from the page, a dedicated
 * worker and a shared worker, and an EventSource to the same port (blocked by the page route even before the fix: the
 * contrast). The listener's connection log must stay empty, and the snapshot the model is sent next shows each probe
 * failed (no `open:`), which is what the run told it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/main/services/chromium/index';
import { reply } from '../support/model-server';
import { approvalsOf, openChainWorld, toolMessagesOf, type ChainWorld } from '../support/chain-world-a';
import { startServer, type TestServer } from '../web/servers';
import { startTcpListener, type TcpListener } from '../browser/egress-listeners';

let world: ChainWorld | null = null;
let site: TestServer | null = null;
let listener: TcpListener | null = null;
afterEach(async () => {
  await world?.close();
  await site?.close();
  await listener?.close();
  world = site = listener = null;
});

/** Each probe writes `<name>: <outcome>` into its own paragraph; `waiting` until it settles. */
function probesPage(port: number): string {
  const probe = `function probe(u){return new Promise(function(r){var w;try{w=new WebSocket(u)}catch(e){return r('throws')}w.onmessage=function(m){r('open:'+m.data)};w.onerror=function(){r('error')};w.onclose=function(c){r('closed:'+c.code)}})}`;
  const inWorker = (url: string) => `${probe};probe('${url}').then(function(x){postMessage(x)})`;
  const shared = `${probe};onconnect=function(e){var p=e.ports[0];probe('ws://localhost:${port}/shared').then(function(x){p.postMessage(x)})}`;
  const pageProbes: [string, string][] = [
    ['ws-ipv4', `ws://127.0.0.1:${port}/a`],
    ['ws-localhost', `ws://localhost:${port}/b`],
    ['ws-ipv6', `ws://[::1]:${port}/c`],
    ['ws-zero', `ws://0.0.0.0:${port}/d`],
    ['ws-decimal', `ws://2130706433:${port}/e`],
    ['wss-ipv4', `wss://127.0.0.1:${port}/f`],
  ];
  const names = [...pageProbes.map(([n]) => n), 'worker', 'shared-worker', 'eventsource'];
  const show = `function show(n,x){document.getElementById(n).textContent=n+': '+x}`;
  const blob = (src: string) => `URL.createObjectURL(new Blob([${JSON.stringify(src)}],{type:'text/javascript'}))`;
  return `<!doctype html><html><head><title>Sockets</title></head><body><h1>Live prices</h1>
${names.map((n) => `<p id="${n}">${n}: waiting</p>`).join('\n')}
<script>${probe};${show};
${pageProbes.map(([n, u]) => `probe('${u}').then(function(x){show('${n}',x)});`).join('\n')}
var w=new Worker(${blob(inWorker(`ws://127.0.0.1:${port}/worker`))});w.onmessage=function(e){show('worker',e.data)};
try{var s=new SharedWorker(${blob(shared)});s.port.onmessage=function(e){show('shared-worker',e.data)};s.port.start()}catch(e){show('shared-worker','throws')}
var es=new EventSource('http://127.0.0.1:${port}/events');es.onopen=function(){show('eventsource','open:')};es.onerror=function(){es.close();show('eventsource','error')};
</script></body></html>`;
}

const PROBES = ['ws-ipv4', 'ws-localhost', 'ws-ipv6', 'ws-zero', 'ws-decimal', 'wss-ipv4', 'worker', 'shared-worker', 'eventsource'];

describe.skipIf(!findChromium())('chain: a page opens sockets to a loopback port nobody approved', () => {
  it('the listener hears nothing, and the snapshot the model is sent next shows every probe failed', async () => {
    world = await openChainWorld({ prefix: 'deskhand-sockets-' });
    listener = await startTcpListener();
    const port = listener.port;
    site = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(probesPage(port)));
    const url = `${site.origin}/prices`;
    const w = world;
    let snapshots = 0;
    w.server.setFallback((req) => {
      const tools = toolMessagesOf(req);
      if (tools.length === 0) return reply().tool('browser_navigate', { url });
      // Snapshot until no probe is still waiting (or give up after 20: the assertions below then say which).
      if (snapshots < 20 && (snapshots === 0 || / waiting/.test(tools.at(-1) ?? ''))) {
        snapshots++;
        return reply().tool('browser_snapshot', {});
      }
      return reply().text('The page could not reach its price feed.');
    });

    // The page's own origin is a loopback destination: the person approves that navigation, and only that.
    const runs = await w.runApproving('open the prices page', (a) => a.tool === 'browser_navigate', { enable: ['browser'] });
    const asked = runs.flatMap(approvalsOf);
    expect(asked.map((a) => a.tool)).toEqual(['browser_navigate']);
    expect(JSON.stringify(asked[0]!.reasons)).toMatch(new RegExp(`private destination 127\\.0\\.0\\.1:${site.port}`));
    const last = runs.at(-1)!;
    expect(last.code, last.stderr).toBe(0);
    // The page loaded (the approved origin heard the navigation).
    expect(site.log.map((l) => l.url)).toContain('/prices');

    // The listener never saw a connection: not the page's, the workers' or the EventSource's.
    expect(listener.log).toEqual([]);

    // What the model was sent last: the snapshot with every probe settled and none open.
    const final = toolMessagesOf(w.server.requests.at(-1)!).at(-1)!;
    for (const name of PROBES) {
      expect(final, name).toMatch(new RegExp(`${name}: (error|closed:\\d+|throws)`));
    }
    expect(final).not.toContain('open:');
    expect(final).not.toMatch(/ waiting/);
  }, 240_000);
});
