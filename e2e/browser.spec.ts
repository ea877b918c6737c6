/**
 * The browser session in the app: the model opens a page on this machine (the approval card asks: a loopback
 * destination), the Browser card shows the page's title and URL with a live screenshot, and Stop browsing closes it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { artifact, expect, test } from './support';

test('shows the open page with a screenshot while browsing, and Stop closes the session', async ({ deskhand }) => {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Local shop</title><h1>Welcome to the shop</h1>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    await deskhand.startModel([
      { tools: [{ name: 'search_tools', args: { query: 'browser' } }] }, // off in a new conversation: the model loads the family first
     { text: ['Opening the shop.'], tools: [{ name: 'browser_navigate', args: { url } }] }, { text: ['The shop is open.'] }]);
    const page = await deskhand.start();
    await deskhand.newConversation('Shopping');
    await deskhand.send('Open the local shop');

    const card = page.getByRole('region', { name: 'Open a web page' });
    await expect(card).toBeVisible();
    await expect(card).toContainText('loopback');
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('The shop is open.');

    const browser = page.getByRole('complementary', { name: 'Browser' });
    await expect(browser).toContainText('Local shop');
    await expect(browser).toContainText(url);
    await expect(browser.getByRole('img', { name: 'The page now: Local shop' })).toBeVisible();
    await browser.screenshot({ path: artifact(`${deskhand.kind}-browser-panel.png`) });

    await browser.getByRole('button', { name: 'Stop browsing' }).click();
    await expect(browser).toBeHidden();
  } finally {
    server.closeAllConnections(); // Chromium's keep-alive connections would hold close() open
    await new Promise((r) => server.close(r));
  }
});

test('a browser_screenshot shows its PNG inside its own tool card', async ({ deskhand }) => {
  test.setTimeout(240_000); // Chromium starts on a loaded machine
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Gallery</title><body style="background:#2a6"><h1>Painted green</h1></body>'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    await deskhand.startModel([
      { tools: [{ name: 'search_tools', args: { query: 'browser' } }] }, // off in a new conversation: the model loads the family first
     
      { text: ['Opening it.'], tools: [{ name: 'browser_navigate', args: { url } }] },
      { text: ['Taking a picture.'], tools: [{ name: 'browser_screenshot', args: {} }] },
      { text: ['Here it is.'] },
    ]);
    const page = await deskhand.start();
    await deskhand.newConversation('Pictures');
    await deskhand.send('Show me the gallery');
    await page.getByRole('region', { name: 'Open a web page' }).getByRole('button', { name: 'Approve' }).click();
    // Under "read-only" a low-risk call asks too.
    await page.getByRole('region', { name: 'Screenshot the page' }).getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Here it is.');

    // The image is in the screenshot call's card, not only on the Browser panel, and it decodes.
    const card = page.getByRole('article', { name: /^Tool call browser_screenshot/ });
    const img = card.getByRole('img', { name: 'Screenshot saved by this call' });
    await expect(img).toBeVisible();
    const decoded = (el: unknown) => {
      const i = el as { complete: boolean; naturalWidth: number };
      return i.complete ? i.naturalWidth : 0;
    };
    await expect.poll(() => img.evaluate(decoded)).toBeGreaterThan(0);
    expect(await img.evaluate((el) => (el as unknown as { src: string }).src.startsWith('data:image/png;base64,'))).toBe(true);
    await card.screenshot({ path: artifact(`${deskhand.kind}-browser-shot-card.png`) });

    // The navigate card shows no saved screenshot (it saved none).
    await expect(page.getByRole('article', { name: /^Tool call browser_navigate/ }).getByRole('img', { name: 'Screenshot saved by this call' })).toHaveCount(0);
    await page.getByRole('complementary', { name: 'Browser' }).getByRole('button', { name: 'Stop browsing' }).click();
  } finally {
    server.closeAllConnections(); // Chromium's keep-alive connections would hold close() open
    await new Promise((r) => server.close(r));
  }
});
