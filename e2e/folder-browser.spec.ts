/**
 * The web New-conversation dialog's folder picker (issue 34 item 7): without the desktop app's native dialog, Browse…
 * lists a folder's sub-folders, opens one by a click, goes up, shows hidden folders on request, and never offers or
 * opens what the path guard calls sensitive (credentials, a link to them, Deskhand's own data); "Use this folder"
 * fills in the field and the conversation starts there.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect, test } from './support';

test('Browse… picks a folder in web mode, through the path guard', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', 'The desktop app opens the system folder dialog instead.');
  const projects = join(deskhand.work, 'projects');
  for (const d of ['alpha', 'beta', '.cache', '.ssh']) mkdirSync(join(projects, d), { recursive: true });
  writeFileSync(join(projects, 'readme.txt'), 'not a folder\n');
  symlinkSync(join(projects, '.ssh'), join(projects, 'keys'));
  await deskhand.startModel([]);
  // Every folder listing answers late (a loaded host): a move made from the listing still shown, before the asked one
  // arrives, would start from the wrong folder. Three quick clicks on Up once went up one folder, not three.
  const slow = deskhand.pageForListeners()!;
  await slow.routeWebSocket(/\/ws(\?|$)/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      if (String(m).includes('"method":"listFolders"')) setTimeout(() => server.send(m), 400);
      else server.send(m);
    });
  });
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await dialog.getByLabel('Working folder').fill(projects);
  await dialog.getByRole('button', { name: 'Browse…' }).click();
  const browser = dialog.getByRole('region', { name: 'Choose a folder' });
  const names = () => browser.getByRole('list', { name: /^Folders in / }).getByRole('button').allInnerTexts();
  await expect(browser.getByRole('list', { name: `Folders in ${projects}` })).toBeVisible();
  expect(await names()).toEqual(['📁 alpha', '📁 beta']);

  // Hidden folders on request; the credentials folder and the link to it never.
  await browser.getByLabel('Show hidden folders').check();
  await expect(browser.getByRole('button', { name: '📁 .cache' })).toBeVisible();
  expect(await names()).toEqual(['📁 alpha', '📁 beta', '📁 .cache']);

  // Into a folder and back up, up to where Deskhand's data lives: its data folder is not offered.
  await browser.getByRole('button', { name: '📁 alpha' }).click();
  await expect(browser.getByLabel('Folder shown')).toHaveText(join(projects, 'alpha'));
  await browser.getByRole('button', { name: 'Up one folder' }).click();
  await browser.getByRole('button', { name: 'Up one folder' }).click();
  await browser.getByRole('button', { name: 'Up one folder' }).click();
  const root = dirname(deskhand.work);
  await expect(browser.getByRole('list', { name: `Folders in ${root}` })).toBeVisible();
  await expect(browser.getByRole('button', { name: `📁 ${basename(deskhand.work)}` })).toBeVisible();
  await expect(browser.getByRole('button', { name: `📁 ${basename(deskhand.dataDir)}` })).toHaveCount(0);

  // Back down, pick beta: the field holds it, and the conversation starts there (the next dialog offers it as last used).
  await browser.getByRole('button', { name: `📁 ${basename(deskhand.work)}` }).click();
  await browser.getByRole('button', { name: '📁 projects' }).click();
  await browser.getByRole('button', { name: '📁 beta' }).click();
  await browser.getByRole('button', { name: 'Use this folder' }).click();
  await expect(browser).toHaveCount(0);
  await expect(dialog.getByLabel('Working folder')).toHaveValue(join(projects, 'beta'));
  await dialog.getByLabel('Title (optional)').fill('Beta work');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  await expect(dialog.getByLabel('Working folder')).toHaveValue(join(projects, 'beta'));

  // A sensitive folder typed in is refused with the reason, not listed.
  await dialog.getByLabel('Working folder').fill(join(projects, '.ssh'));
  await dialog.getByRole('button', { name: 'Browse…' }).click();
  await expect(browser.getByRole('alert')).toContainText('credentials');
  await expect(browser.getByRole('list', { name: /^Folders in / })).toHaveCount(0);
});
