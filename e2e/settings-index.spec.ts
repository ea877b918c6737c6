/**
 * Settings has a section list and a search (issue 52 item 4): every section is listed by its title, a click brings it
 * into view, and typed words keep only the sections that mention them. Also at 1000 px: nothing scrolls sideways.
 */
import { expect, test } from './support';

test('the section list brings a section into view; search keeps only the sections that match', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const index = page.getByRole('navigation', { name: 'Settings sections' });
  const entries = index.getByRole('button');
  await expect(entries.filter({ hasText: 'Schedule' })).toHaveCount(1);
  expect(await entries.count()).toBeGreaterThan(10);
  for (const title of ['Provider for new messages', 'MCP servers', 'Rules', 'Peers']) await expect(index.getByRole('button', { name: title, exact: true })).toBeVisible();

  // A click brings the section to the top of the page.
  await index.getByRole('button', { name: 'MCP servers', exact: true }).click();
  const mcp = page.locator('.settings-body .card').filter({ has: page.getByRole('heading', { name: 'MCP servers' }) });
  await expect(mcp).toBeInViewport();

  // Search: only sections that mention the words stay, in the page and in the list.
  const search = index.getByRole('searchbox', { name: 'Search settings' });
  await search.fill('reminders');
  await expect(page.locator('.settings-body').getByRole('heading', { name: 'Schedule' })).toBeVisible();
  await expect(page.getByRole('group', { name: 'Provider for new messages' })).toBeHidden();
  await expect(index.getByRole('button', { name: 'Provider for new messages', exact: true })).toHaveCount(0);
  await expect(index.getByRole('button', { name: 'Schedule', exact: true })).toBeVisible();
  await search.fill('zzqx nothing');
  await expect(index).toContainText('No setting matches');
  await search.fill('');
  await expect(page.getByRole('group', { name: 'Provider for new messages' })).toBeVisible();

  // A long path without a break point (a folder in the draft, not saved) must wrap, not push the page sideways.
  const long = `/tmp/${'averylongfoldernamewithoutanybreakpoint'.repeat(6)}/project`;
  await page.getByRole('textbox', { name: 'Add workspace folder' }).fill(long);
  await page.getByRole('button', { name: 'Add folder' }).click();
  await expect(page.getByRole('button', { name: `Remove workspace folder ${long}` })).toBeVisible();

  // Below 1200 px the app lays itself out again on the media query's change event (a render after the resize): look
  // until the layout has settled, and name what sticks out if anything does.
  await page.setViewportSize({ width: 1000, height: 760 });
  await expect(page.locator('.app.narrow')).toHaveCount(1);
  const sideways = () =>
    page.evaluate(`(() => {
      const overflow = [document.documentElement, document.body, document.querySelector('.settings')].map((el) => el.scrollWidth - el.clientWidth);
      const edge = document.querySelector('.settings-body').getBoundingClientRect().right;
      const sticks = (el) => el.getBoundingClientRect().right > edge + 1;
      // The innermost elements that stick out past the sections' column (their boxes, not their ancestors').
      const out = [...document.querySelectorAll('.settings-body *')].filter((el) => sticks(el) && ![...el.children].some(sticks));
      return { overflow, out: out.slice(0, 5).map((el) => el.tagName.toLowerCase() + '.' + el.className + ': ' + (el.textContent || '').slice(0, 40)) };
    })()`);
  await expect.poll(sideways).toEqual({ overflow: [0, 0, 0], out: [] });
});
