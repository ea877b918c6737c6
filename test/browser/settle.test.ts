/**
 * settle() after an action, on a real page in Chromium: a navigation the action started is waited for until the new
 * page has loaded, however long the server takes (here longer than the bound for the action's requests); one started
 * by a task the click queued counts too; a navigation that ends without a page (a 204, a download) and a click that
 * changes nothing return without waiting for the navigation bound (each test's timeout is below it).
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
});
