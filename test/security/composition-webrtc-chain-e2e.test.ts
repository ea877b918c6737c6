/**
 * Security round three (issue 29), mechanism 8, end to end: the scripted model makes a composition through the built
 * `deskhand run` — HTML that opens with `<head>` in a comment (issue 43, M6), whose script starts an RTCPeerConnection with a STUN server at a UDP listener the test runs
 * (and a WebTransport at it), then tries to navigate the app's tab out (`top.location`), to open a popup, and to
 * navigate its own frame to a local server. A person then opens it the way they would: `deskhand web` over the same
 * data folder in Debian's Chromium, the conversation from the sidebar, the composition from the Compositions panel.
 * The UDP listener must receive no datagram, the local server must hear nothing, the app's tab must stay on the app,
 * and the viewer's address opened in a tab of its own must run nothing (so it cannot navigate that tab out either).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../../src/main/services/chromium/index';
import { reply } from '../support/model-server';
import { approvalsOf, openChainWorld, toolResultsOf, type ChainWorld } from '../support/chain-world-a';
import { startServer, type TestServer } from '../web/servers';
import { startUdpListener, type UdpListener } from '../browser/egress-listeners';

const found = findChromium();
let world: ChainWorld | null = null;
let udp: UdpListener | null = null;
let local: TestServer | null = null;
let browser: Browser | null = null;
afterEach(async () => {
  await browser?.close();
  await world?.close();
  await udp?.close();
  await local?.close();
  browser = world = udp = local = null;
});

/** The composition: each attempt writes its outcome into #out; the frame's own navigation comes last. */
function composition(udpPort: number, out: string): string {
  // It opens with `<head>` inside a comment (issue 43, M6): a viewer that searched for `<head>` put its safeguard there.
  return `<!--<head>--><!doctype html><html><head><title>Live chart</title></head><body><h1>Chart</h1><p id="out">start</p>
<script>
function say(x) { document.getElementById('out').textContent += ' ' + x; }
(async function () {
  try {
    var pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }] });
    pc.createDataChannel('x');
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise(function (r) { if (pc.iceGatheringState === 'complete') r(); pc.onicegatheringstatechange = function () { if (pc.iceGatheringState === 'complete') r(); }; setTimeout(r, 5000); });
    say('stun:gathered');
  } catch (e) { say('stun:refused-' + e.name); }
  try { var t = new WebTransport('https://127.0.0.1:${udpPort}/'); t.ready.catch(function () {}); say('wt:made'); } catch (e) { say('wt:refused'); }
  try { top.location.href = '${out}/top'; say('top:assigned'); } catch (e) { say('top:refused'); }
  try { var w = window.open('${out}/popup'); say(w ? 'popup:opened' : 'popup:refused'); } catch (e) { say('popup:refused'); }
  say('done');
  // Late enough for the test to read #out first (the frame's error page replaces it).
  setTimeout(function () { location.href = '${out}/frame'; }, 5000);
})();
</script></body></html>`;
}

describe.skipIf(!found)('chain: a composition made through deskhand run tries WebRTC and navigation out of the viewer', () => {
  it('opened in the web host by a person: no datagram reaches the listener, nothing reaches the local server, the tab stays on the app', async () => {
    world = await openChainWorld({ prefix: 'deskhand-cmpchain-' });
    udp = await startUdpListener();
    local = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>local</title>reached'));
    const w = world;
    w.server.enqueue(reply().tool('create_composition', { title: 'Live chart', kind: 'html', content: composition(udp.port, local.origin) }), reply().text('I made a live chart for you to review.'));
    const made = await w.run('Make me a live chart');
    expect(made.code, made.stderr).toBe(0);
    expect(approvalsOf(made)).toEqual([]);
    expect(toolResultsOf(made).join('\n')).toMatch(/cmp_[0-9a-f]+/);

    // The person opens it in the app, as they would.
    const web = await w.startWeb();
    browser = await chromium.launch({ executablePath: found!.path, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    const popups: string[] = [];
    page.on('popup', (p) => popups.push(p.url()));
    await page.goto(web.url);
    const app = new URL(page.url());
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button').filter({ hasText: /chart/i }).first().click();
    await page.getByRole('complementary', { name: 'Compositions' }).getByRole('button', { name: 'Open composition Live chart' }).click();
    const frameEl = page.locator('iframe[title="Live chart, version 1"]');
    await frameEl.waitFor();
    const frame = page.frameLocator('iframe[title="Live chart, version 1"]');
    // The composition ran to its end: WebRTC and WebTransport were not there, the top navigation and popup refused.
    await expect.poll(async () => frame.locator('#out').textContent({ timeout: 1000 }).catch(() => ''), { timeout: 30_000 }).toMatch(/done/);
    // The STUN attempt is over (gathered or refused): no datagram reached the listener.
    expect(udp.log).toEqual([]);
    const outcome = (await frame.locator('#out').textContent())!;
    expect(outcome).toContain('stun:refused-TypeError');
    expect(outcome).toContain('wt:refused');
    expect(outcome).not.toContain('popup:opened');
    // The frame's own navigation to the local server is refused by the app page's policy (Chromium's error page).
    const viewerSrc = (await frameEl.getAttribute('src'))!;
    await expect.poll(() => page.frames().find((f) => f !== page.mainFrame())?.url(), { timeout: 20_000 }).toBe('chrome-error://chromewebdata/');
    expect(udp.log).toEqual([]);
    expect(local.log).toEqual([]);
    expect(new URL(page.url()).origin + new URL(page.url()).pathname).toBe(app.origin + app.pathname);
    expect(popups).toEqual([]);

    // The viewer's address in a tab of its own: refused, nothing of the composition runs, the tab goes nowhere.
    const tab = await browser.newPage();
    const res = await tab.goto(new URL(viewerSrc, app).href, { waitUntil: 'domcontentloaded' });
    expect(await tab.locator('#out').count()).toBe(0);
    expect(await tab.textContent('body')).toContain('shown only inside the Deskhand viewer');
    expect(res?.status()).toBe(403);
    expect(tab.url()).toMatch(/\/cv\//);
    expect(udp.log).toEqual([]);
    expect(local.log).toEqual([]);
  }, 240_000);
});
