/**
 * What browser_act waits for after a click, in a real Chromium: a tab the click opens is waited for in the acting
 * conversation only, and not at all when the page cancelled the click; another conversation's tab being adopted
 * never holds an action back. Proved by effect and order, not time: the waits' bounds are set far beyond the test's
 * timeout, so a call that waited for them would never answer, and the held page is still unanswered when the other
 * conversation's action returns. (The settle itself — a slow navigation waited for, a click that starts nothing
 * answered after one frame — is test/browser/settle.test.ts.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { PlaywrightBrowser } from '../../src/main/services/browser/playwright-browser';
import { actTuning } from '../../src/main/services/browser/tab-book';
import { findChromium } from '../../src/main/services/chromium/index';
import { createBrowserFamily } from '../../src/main/tools/browser';
import { makeContext, tempDir, type TestContext } from '../support/tool-context';
import { startServer, type TestServer } from '../web/servers';

const chromium = findChromium();
const DEFAULTS = { ...actTuning };
let server: TestServer;
let browser: PlaywrightBrowser;
let tools: Map<string, ToolDefinition>;
let release: () => void = () => undefined;
let held: Promise<void>;
let holdSeen: () => void = () => undefined;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const html = (t: string, b: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${t}</title>${b}`);
    const path = req.url?.split('?')[0];
    if (path === '/cancelled') {
      return html('Cancelled', `<a href="/other" target="_blank" onclick="event.preventDefault(); document.getElementById('n').textContent = 'clicked'">Open elsewhere</a><p id="n">not yet</p>`);
    }
    if (path === '/opens') return html('Opens', `<a href="/hold" target="_blank">Open the held page</a>`);
    if (path === '/framed') return html('Framed', `<iframe title="inner" src="/inner"></iframe>`);
    if (path === '/inner') return html('Inner', `<a href="/other" target="_blank">Open from the frame</a>`);
    if (path === '/counter') return html('Counter', `<button onclick="document.getElementById('n').textContent = 'one'">Add one</button><p id="n">none</p>`);
    if (path === '/hold') {
      holdSeen();
      return void held.then(() => html('Held', '<h1>held page</h1>'));
    }
    return html('Other', 'other');
  });
  const dataDir = tempDir('deskhand-data-');
  browser = new PlaywrightBrowser({ dataDir, settings: () => ({ headless: true }) });
  tools = new Map(createBrowserFamily({ browser, dataDir, urlGrants: () => [], endpoint: () => undefined, resolve: async () => [] }).tools.map((t) => [t.name, t]));
}, 60_000);
afterEach(() => {
  Object.assign(actTuning, DEFAULTS);
  release();
});
afterAll(async () => {
  await browser?.shutdown();
  await server?.close();
});

function conversation(id: string): TestContext {
  const dataDir = tempDir('deskhand-data-');
  const ctx = { ...makeContext(tempDir('deskhand-work-'), { dataDir }), conversationId: id };
  browser.approveDestination(id, `127.0.0.1:${server.port}`);
  return ctx;
}

async function call(ctx: TestContext, name: string, args: Record<string, unknown>): Promise<string> {
  const tool = tools.get(name)!;
  return (await tool.execute(tool.params.parse(args), ctx)).output;
}

const refOf = (outline: string, re: RegExp): string => /\[((?:f\d+)?e\d+)\]/.exec(outline.split('\n').find((l) => re.test(l)) ?? '')![1]!;

describe.skipIf(!chromium)('browser_act waits for its own new tab only', () => {
  it('a new-tab link whose click the page cancels answers without waiting for a tab', async () => {
    // A wait for the tab would outlast the test's timeout by far.
    actTuning.adoptWaitMs = 600_000;
    const a = conversation('conv_cancelled');
    await call(a, 'browser_navigate', { url: `${server.origin}/cancelled` });
    const out = await call(a, 'browser_act', { ref: refOf(await call(a, 'browser_snapshot', {}), /link "Open elsewhere"/), action: 'click' });
    // The click reached the page (its handler ran), and no tab opened.
    expect(out).toContain('clicked');
    expect(out).not.toMatch(/opened a new tab/);
    expect(await call(a, 'browser_tabs', { action: 'list' })).not.toMatch(/tab\d+/);
    await browser.close(a.conversationId);
  }, 30_000);

  it("another conversation's tab being adopted does not hold an action back; the opener's own action waits for it", async () => {
    actTuning.adoptWaitMs = 600_000;
    actTuning.popupLoadMs = 600_000;
    held = new Promise<void>((r) => (release = r));
    const seen = new Promise<void>((r) => (holdSeen = r));
    const b = conversation('conv_b');
    // B's session first: a popup's first request is approved for the one session open (with several, none covers it).
    await call(b, 'browser_navigate', { url: `${server.origin}/opens` });
    const order: string[] = [];
    // B opens a tab whose page the server holds: B's adoption is under way until it is released.
    const bAct = call(b, 'browser_act', { ref: refOf(await call(b, 'browser_snapshot', {}), /link "Open the held page"/), action: 'click' }).then((out) => {
      order.push('b answered');
      return out;
    });
    await seen;
    order.push('held page asked for');
    const a = conversation('conv_a');
    await call(a, 'browser_navigate', { url: `${server.origin}/counter` });
    const addOne = refOf(await call(a, 'browser_snapshot', {}), /button "Add one"/);
    const aOut = await call(a, 'browser_act', { ref: addOne, action: 'click' });
    order.push('a answered');
    expect(aOut).toContain('one');
    expect(aOut).not.toMatch(/opened a new tab/);
    release();
    const bOut = await bAct;
    // A answered while B's new tab was still loading; B waited for its own tab and reports it.
    expect(order).toEqual(['held page asked for', 'a answered', 'b answered']);
    expect(bOut).toMatch(/opened a new tab "tab\d+"/);
  }, 30_000);

  it('a new-tab link inside a frame has its tab reported (its ref is the frame\'s, fNeM)', async () => {
    const c = conversation('conv_framed');
    await call(c, 'browser_navigate', { url: `${server.origin}/framed` });
    const ref = refOf(await call(c, 'browser_snapshot', {}), /link "Open from the frame"/);
    expect(ref).toMatch(/^f\d+e\d+$/);
    const out = await call(c, 'browser_act', { ref, action: 'click' });
    expect(out).toMatch(/opened a new tab "tab\d+"/);
    await browser.close(c.conversationId);
  }, 30_000);
});
