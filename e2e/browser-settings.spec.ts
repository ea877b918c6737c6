/**
 * Settings → Browser: a person keeps a site signed in. The spelling they type becomes the site (a URL becomes its host),
 * one that names no site is refused in words, and Save writes `browser.keepSignedIn` to settings.json (the file the
 * browser service reads when a session ends); Remove and Save take it out again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support';

const kept = (dataDir: string): unknown => (JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { browser?: { keepSignedIn?: unknown } }).browser?.keepSignedIn;

test('Settings → Browser keeps a site signed in, saved to settings.json', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings' }).click();
  const input = page.getByLabel('Add a site to keep signed in');
  await input.fill('not a site');
  await page.getByRole('button', { name: 'Keep signed in' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'is not a host name such as example.com' })).toBeVisible();
  await input.fill('https://Mail.Example.com/inbox');
  await input.press('Enter');
  const list = page.getByRole('list', { name: 'Keep signed in on these sites' });
  await expect(list.getByRole('listitem')).toHaveText(['mail.example.comRemove']);
  await page.getByRole('button', { name: 'Save Browser' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  expect(kept(deskhand.dataDir)).toEqual(['mail.example.com']);

  await page.getByRole('button', { name: 'Stop keeping mail.example.com signed in' }).click();
  await expect(list.getByRole('listitem')).toHaveText(['None: every site is signed out when a session ends.']);
  await page.getByRole('button', { name: 'Save Browser' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  expect(kept(deskhand.dataDir)).toEqual([]);
});
