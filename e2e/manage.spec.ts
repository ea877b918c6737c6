/**
 * Managing things: conversations (search, rename, policy, delete with confirmation) and settings, where an API key
 * goes to the OS keyring through main and the page only ever learns whether one is set.
 */
import { artifact, expect, test } from './support';

test('searches, renames, changes the policy of and deletes conversations', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await deskhand.newConversation('Alpha work');
  const nav = page.getByRole('navigation', { name: 'Conversations' });
  // One conversation in the folder: no heading for it (issue 52); two: the folder's name heads them.
  await expect(nav.getByRole('button', { name: 'Alpha work', exact: true })).toBeVisible();
  await expect(nav.getByRole('region', { name: 'Folder work' }).getByRole('heading')).toHaveCount(0);
  await deskhand.newConversation('Beta chores');
  await expect(nav.getByRole('region', { name: 'Folder work' })).toBeVisible();
  await expect(nav.getByRole('region', { name: 'Folder work' }).getByRole('heading', { name: 'work' })).toBeVisible();

  await nav.getByRole('searchbox', { name: 'Search conversations' }).fill('alp');
  await expect(nav.getByRole('button', { name: 'Alpha work', exact: true })).toBeVisible();
  await expect(nav.getByRole('button', { name: 'Beta chores', exact: true })).toBeHidden();
  await nav.getByRole('searchbox', { name: 'Search conversations' }).fill('');

  await nav.getByRole('button', { name: 'Rename “Alpha work”' }).click();
  const title = nav.getByRole('textbox', { name: 'New title for Alpha work' });
  await title.fill('Alpha renamed');
  await title.press('Enter');
  await expect(nav.getByRole('button', { name: 'Alpha renamed', exact: true })).toBeVisible();

  await nav.getByRole('button', { name: 'Alpha renamed', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Alpha renamed', level: 1 })).toBeVisible();
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('low-risk');
  await page.reload();
  await nav.getByRole('button', { name: 'Alpha renamed', exact: true }).click();
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('low-risk');

  await nav.getByRole('button', { name: 'Delete “Alpha renamed”' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete conversation' });
  await expect(confirm).toContainText('removed for good');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(nav.getByRole('button', { name: 'Alpha renamed', exact: true })).toBeVisible();
  await nav.getByRole('button', { name: 'Delete “Alpha renamed”' }).click();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(nav.getByRole('button', { name: 'Alpha renamed', exact: true })).toBeHidden();
  await expect(nav.getByRole('button', { name: 'Beta chores', exact: true })).toBeVisible();
});

test('refuses a working folder that does not exist, in words', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await dialog.getByLabel('Working folder').fill(`${deskhand.work}/does-not-exist`);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByRole('alert')).toContainText('is not an existing folder');
});

test('saves an API key to the OS keyring and shows only whether one is set', async ({ deskhand }) => {
  const secret = 'sk-ant-e2e-never-shown-0123456789';
  await deskhand.startModel([]);
  const page = await deskhand.start();
  const frames: string[] = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
  await page.reload();
  await page.getByRole('button', { name: 'Settings' }).click();
  const anthropic = page.getByRole('group', { name: 'Anthropic' });
  await expect(anthropic.getByRole('status', { name: 'API key for Anthropic' })).toHaveText(/Not set|Set from the environment/);
  const unavailable = await page.getByText('The OS keyring is not available here').first().isVisible();
  test.skip(unavailable, 'no OS keyring (Secret Service) in this session; scripts/test.sh starts gnome-keyring');

  const keytar = (await import('keytar')).default;
  test.skip((await keytar.getPassword(deskhand.keyringService, 'apiKey.anthropic')) !== null, 'an Anthropic key is already in this keyring; the test will not overwrite it');

  await anthropic.getByLabel('New API key for Anthropic').fill(secret);
  await anthropic.getByRole('button', { name: 'Save key' }).click();
  await expect(anthropic.getByRole('status', { name: 'API key for Anthropic' })).toHaveText('Set (in the OS keyring)');
  await expect(anthropic.getByLabel('New API key for Anthropic')).toHaveValue('');
  await page.screenshot({ path: artifact(`${deskhand.kind}-settings.png`) });

  // The keyring holds it; nothing the page received ever carried it.
  expect(await keytar.getPassword(deskhand.keyringService, 'apiKey.anthropic')).toBe(secret);
  expect(await page.content()).not.toContain(secret);
  expect(frames.join('\n')).not.toContain(secret);
  // …and the capture saw the traffic it vouches for: the frame that told the page the key is now set went through it.
  expect(frames.some((f) => f.includes('"anthropic":{"set":true,"source":"keyring"}'))).toBe(true);

  await anthropic.getByRole('button', { name: 'Remove key' }).click();
  await expect(anthropic.getByRole('status', { name: 'API key for Anthropic' })).toHaveText(/Not set|Set from the environment/);
  expect(await keytar.getPassword(deskhand.keyringService, 'apiKey.anthropic')).toBeNull();
});
