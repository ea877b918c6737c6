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
    await deskhand.startModel([{ text: ['Opening the shop.'], tools: [{ name: 'browser_navigate', args: { url } }] }, { text: ['The shop is open.'] }]);
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
    await new Promise((r) => server.close(r));
  }
});
