/**
 * Layout and themes (issue 21 item 11): resizable and collapsible side panels whose widths survive a reload, a window
 * of 800×600 with nothing clipped and the message box in view (the right panel a drawer), suggestions in an empty
 * conversation that go to the model as sent, light and dark following the OS with the Settings override winning,
 * and Settings → General taking effect on a new conversation. Screenshots of both themes and 800 px in e2e/artifacts.
 */
import { artifact, expect, test } from './support';
import type { Page } from '@playwright/test';

// Evaluated in the page (strings: the e2e project type-checks without the DOM library).
const background = (page: Page) => page.evaluate('getComputedStyle(document.body).backgroundColor') as Promise<string>;
const sideScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

test('side panels resize by keyboard and mouse, collapse, and keep their widths after a reload', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Here is how the tests run.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Layout');

  // An empty conversation offers things to start from; one goes to the model as sent.
  const empty = page.getByRole('region', { name: 'Start from a suggestion' });
  await empty.getByRole('button', { name: /Run the tests/ }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue(/run them, and summarise any failures/);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByText('Here is how the tests run.')).toBeVisible();
  expect(JSON.stringify(deskhand.requests().at(-1)?.body.messages)).toContain('Find how this project runs its tests');

  const sidebar = page.locator('.sidebar');
  const handle = page.getByRole('separator', { name: 'Resize sidebar' });
  const before = (await sidebar.boundingBox())!.width;
  await handle.focus();
  await handle.press('ArrowRight');
  await handle.press('Shift+ArrowRight');
  await expect(handle).toHaveAttribute('aria-valuenow', String(Math.round(before) + 80));
  expect(Math.round((await sidebar.boundingBox())!.width)).toBe(Math.round(before) + 80);

  const panelHandle = page.getByRole('separator', { name: 'Resize side panel' });
  const box = (await panelHandle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 60, box.y + 200, { steps: 4 });
  await page.mouse.up();
  await expect(panelHandle).toHaveAttribute('aria-valuenow', '360');
  expect(Math.round((await page.locator('.panel-stack').boundingBox())!.width)).toBe(360);

  await page.getByRole('button', { name: 'Hide sidebar' }).click();
  await expect(sidebar).toBeHidden();
  await expect(page.getByRole('separator', { name: 'Resize sidebar' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Hide side panel' }).click();
  await expect(page.locator('.panel-stack')).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await page.screenshot({ path: artifact(`${deskhand.kind}-layout-collapsed.png`) });

  await page.reload();
  await expect(page.getByRole('button', { name: 'Show sidebar' })).toBeVisible();
  await page.getByRole('button', { name: 'Show sidebar' }).click();
  await expect(page.getByRole('separator', { name: 'Resize sidebar' })).toHaveAttribute('aria-valuenow', String(Math.round(before) + 80));
  // The right panel opens again on a wide window; its width is the one dragged to.
  await expect(page.getByRole('separator', { name: 'Resize side panel' })).toHaveAttribute('aria-valuenow', '360');
  expect(Math.round((await page.locator('.panel-stack').boundingBox())!.width)).toBe(360);
});

test('works at 800×600: no horizontal scroll, the message box in view, the right panel a drawer', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = deskhand.pageForListeners()!;
  await page.setViewportSize({ width: 800, height: 600 });
  await deskhand.start();
  await deskhand.newConversation('A narrow window with a long title that must not push anything off the screen');

  const message = page.getByRole('textbox', { name: 'Message' });
  await expect(message).toBeVisible();
  const m = (await message.boundingBox())!;
  expect(m.x).toBeGreaterThanOrEqual(0);
  expect(m.x + m.width).toBeLessThanOrEqual(800);
  expect(m.y + m.height).toBeLessThanOrEqual(600);
  const overflow = await page.evaluate("[document.documentElement, document.body, document.querySelector('.app')].map((el) => el.scrollWidth - el.clientWidth)");
  expect(overflow).toEqual([0, 0, 0]);
  // The conversation header's controls stay inside the window.
  for (const control of await page.locator('.conv-header select').all()) {
    const b = (await control.boundingBox())!;
    expect(b.x + b.width).toBeLessThanOrEqual(800);
  }

  // The right panel starts closed at this width and opens as a drawer over the conversation; Escape closes it.
  await expect(page.locator('.panel-stack')).toHaveCount(0);
  await page.screenshot({ path: artifact(`${deskhand.kind}-layout-800.png`) });
  await page.getByRole('button', { name: 'Show side panel' }).click();
  const drawer = page.getByRole('dialog', { name: 'Side panel' });
  await expect(drawer).toBeVisible();
  const d = (await drawer.boundingBox())!;
  expect(d.x + d.width).toBeLessThanOrEqual(800);
  expect(await sideScroll(page)).toBe(0);
  await page.screenshot({ path: artifact(`${deskhand.kind}-layout-800-drawer.png`) });
  await expect(drawer).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(drawer).toHaveCount(0);
});

test('light and dark follow the OS; the theme in Settings wins and is kept', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await deskhand.newConversation('Themes');
  // The page follows the OS through a media-query change event, so each reading waits for the theme it follows.
  const html = page.locator('html');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(html).toHaveAttribute('data-theme', 'light');
  const light = await background(page);
  await page.screenshot({ path: artifact(`${deskhand.kind}-theme-light.png`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-theme', 'dark');
  const dark = await background(page);
  expect(dark).not.toBe(light);
  await page.screenshot({ path: artifact(`${deskhand.kind}-theme-dark.png`) });

  // The OS says dark; Settings says light: light wins, also after a reload (saved through the contract).
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('combobox', { name: /^Theme/ }).selectOption('light');
  await page.getByRole('button', { name: 'Save Appearance and storage' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  await expect.poll(() => background(page)).toBe(light);
  await page.reload();
  await expect(page.getByRole('button', { name: 'Settings', exact: true })).toBeVisible();
  await expect.poll(() => background(page)).toBe(light);
  // And dark under a light OS.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('combobox', { name: /^Theme/ }).selectOption('dark');
  await page.getByRole('button', { name: 'Save Appearance and storage' }).click();
  await expect.poll(() => background(page)).toBe(dark);
});

test('Settings → General: default policy, sandbox and workspace folders shape a new conversation', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Default policy').selectOption('none');
  await page.getByLabel('Default sandbox').selectOption('read-only');
  await page.getByLabel('Add workspace folder').fill(deskhand.work);
  await page.getByRole('button', { name: 'Add folder' }).click();
  await page.getByRole('button', { name: 'Save New conversations' }).click();
  await page.getByLabel('Keep background command logs (days)').fill('3');
  await page.getByRole('button', { name: 'Save Appearance and storage' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toHaveCount(2);
  await page.screenshot({ path: artifact(`${deskhand.kind}-settings-general.png`), fullPage: true });

  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Keep background command logs (days)')).toHaveValue('3');
  await expect(page.getByRole('list', { name: /Workspace folders/ })).toContainText(deskhand.work);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();

  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  // The workspace folder is offered (already filled in), the policy is the default one.
  await expect(dialog.getByLabel('Working folder')).toHaveValue(deskhand.work);
  await expect(dialog.getByLabel('Policy')).toHaveValue('none');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.waitFor({ state: 'detached' });
  const header = page.locator('.conv-header');
  await expect(header.getByRole('combobox', { name: /Policy/ })).toHaveValue('none');
  await expect(header.getByRole('combobox', { name: /Sandbox/ })).toHaveValue('read-only');
});
