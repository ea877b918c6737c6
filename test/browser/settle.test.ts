/**
 * settle() after an action, on a real page in Chromium: a navigation the action started is waited for until the new
 * page has loaded, however long the server takes (here longer than the bound for the action's requests); one started
 * by a task the click queued counts too; a navigation that ends without a page (a 204, a download) and a click that
 * changes nothing return without waiting for the navigation bound (each test's timeout is below it). It also says
 * whether the action's click went to a link into another tab that the page did not cancel (browser_act then waits
 * for that tab), from what the page recorded as the click was dispatched: no question to the page before the click.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { findChromium } from '../../src/main/services/chromium/index';
import { settle, TabWatch } from '../../src/main/services/browser/settle';
import { startServer, type TestServer } from '../web/servers';

const chromium = findChromium();
let server: TestServer;
let browser: Browser;

/** Longer than the request bound the tests give settle(). */
const SLOW_MS = 1_500;
const REQUESTS_MS = 200;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const html = (b: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${req.url}</title>${b}`);
    const path = req.url?.split('?')[0];
    if (path === '/before') {
      return html(`<a id="link" href="/slow">slow</a>
        <button id="later" onclick="setTimeout(function () { location.href = '/slow?later' }, 0)">later</button>
        <a id="empty" href="/empty">empty</a> <a id="file" href="/file">file</a>
        <button id="count" onclick="this.textContent = String(Number(this.textContent) + 1)">0</button>
        <a id="cancelled" href="/slow">cancelled</a>
        <script>navigation.addEventListener('navigate', function (e) { if (e.destination.url.endsWith('/slow') && document.activeElement && document.activeElement.id === 'cancelled') e.preventDefault(); });</script>`);
    }
    if (path === '/tabs') {
      return html(`<a id="blank" href="/other" target="_blank">blank</a> <a id="named" href="/other" target="side">named</a>
        <a id="self" href="#here" target="_self">self</a> <a id="stopped" href="/other" target="_blank" onclick="event.preventDefault()">stopped</a>
        <a id="deep" href="/other" target="_blank"><span id="inner">inner</span></a>
        <button id="scripted" onclick="document.getElementById('hidden').click()">scripted</button>
        <a id="hidden" href="/other" target="_blank" style="display:none">hidden</a> <button id="plain">plain</button>`);
    }
    if (path === '/based') return html(`<base target="_blank"><a id="link" href="/other">link</a>`);
    if (path === '/other') return html('<h1>other</h1>');
    if (path === '/slow') return void setTimeout(() => html('<h1>arrived</h1>'), SLOW_MS);
    if (path === '/empty') return void res.writeHead(204).end();
    if (path === '/file') return void res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="a.csv"' }).end('a,b\n');
    res.writeHead(404).end();
  });
  if (chromium) browser = await (await import('playwright-core')).chromium.launch({ executablePath: chromium.path, args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(): Promise<{ page: Page; watch: TabWatch }> {
  const page = await (await browser.newContext({ acceptDownloads: false })).newPage();
  const watch = new TabWatch(page);
  await page.goto(`${server.origin}/before`);
  return { page, watch };
}

/** Clicks `#id` on `path` (Playwright's click, as browser_act's) and returns what the settle saw. */
async function tabClicks(path: string, id: string): Promise<number> {
  const page = await (await browser.newContext()).newPage();
  const watch = new TabWatch(page);
  await page.goto(`${server.origin}${path}`);
  const mark = watch.mark();
  await page.click(`#${id}`);
  const seen = await settle(page, watch, mark, { maxMs: REQUESTS_MS });
  await page.context().close();
  return seen.tabClicks;
}

async function clickAndSettle(id: string): Promise<Page> {
  const { page, watch } = await open();
  const mark = watch.mark();
  await page.click(`#${id}`);
  await settle(page, watch, mark, { maxMs: REQUESTS_MS });
  return page;
}

describe.skipIf(!chromium)('settle after an action', () => {
  it.each([
    ['a link', 'link', '/slow'],
    ['a task the click queued', 'later', '/slow?later'],
  ])('waits for a slow navigation started by %s until the new page has loaded', async (_what, id, path) => {
    const page = await clickAndSettle(id);
    expect(page.url()).toBe(`${server.origin}${path}`);
    expect(await page.textContent('h1')).toBe('arrived');
  }, 20_000);

  it.each([
    ['a 204 answer', 'empty'],
    ['a download', 'file'],
    ['a navigation the page cancels', 'cancelled'],
    ['a click that changes nothing but the page', 'count'],
  ])('returns with the page as it is after %s (no wait for the navigation bound)', async (_what, id) => {
    const page = await clickAndSettle(id);
    expect(page.url()).toBe(`${server.origin}/before`);
    if (id === 'count') expect(await page.textContent('#count')).toBe('1');
  }, 20_000);

  it.each([
    ['a target="_blank" link', '/tabs', 'blank', 1],
    ['a link to a named window', '/tabs', 'named', 1],
    ['an element inside a new-tab link', '/tabs', 'deep', 1],
    ['a link under <base target="_blank">', '/based', 'link', 1],
    ['a target="_self" link', '/tabs', 'self', 0],
    ['a new-tab link whose click the page cancels', '/tabs', 'stopped', 0],
    ['a button whose script clicks a new-tab link (only clicks by an input device are kept)', '/tabs', 'scripted', 0],
    ['a plain button', '/tabs', 'plain', 0],
  ])('says whether the click went to a link into another tab: %s', async (_what, path, id, expected) => {
    expect(await tabClicks(path, id)).toBe(expected);
  }, 20_000);

  it('does not count a new-tab click from before the action (a person clicking between two actions)', async () => {
    const page = await (await browser.newContext()).newPage();
    const watch = new TabWatch(page);
    await page.goto(`${server.origin}/tabs`);
    await page.click('#blank');
    await page.waitForTimeout(50);
    const mark = watch.mark();
    await page.click('#plain');
    expect((await settle(page, watch, mark, { maxMs: REQUESTS_MS })).tabClicks).toBe(0);
    await page.context().close();
  }, 20_000);
});
