/**
 * The README's two screenshots (issue 52 item 10): the new-conversation dialog on a first start, and a conversation
 * with an approval card, in `deskhand web` with the scripted model server. They are written to docs/images/ only with
 * DESKHAND_SCREENSHOTS=1 (`DESKHAND_SCREENSHOTS=1 npx playwright test e2e/readme-screenshots.spec.ts --project web`);
 * otherwise the spec still checks that both screens render, so a test run never rewrites the committed images.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, ROOT, test } from './support';

const WRITE = process.env.DESKHAND_SCREENSHOTS === '1';

async function shoot(page: Page, name: string): Promise<void> {
  if (!WRITE) return;
  // 1280×800 at most (the default viewport); PNGs of the UI stay well under 200 KB at this size.
  await page.screenshot({ path: join(ROOT, 'docs/images', name) });
}

const WEB_ONLY = 'The README shows the web app; one set of images is enough.';

test('README: the new-conversation dialog on a first start, offering the Deskhand folder and saying why', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', WEB_ONLY);
  await deskhand.startModel([]);
  // Started in the home folder: the dialog offers the Deskhand folder (spelled as a reader's would be; never made here).
  const page = await deskhand.start({ cwd: homedir(), env: { DESKHAND_WORK_FOLDER: '/home/you/Deskhand' } });
  await expect(page.getByRole('heading', { name: 'Welcome to Deskhand' })).toBeVisible();
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await expect(dialog.getByLabel('Working folder')).toHaveValue('/home/you/Deskhand');
  await expect(dialog.locator('.folder-why')).toContainText('It does not exist yet');
  await shoot(page, 'new-conversation.png');
});

test('README: a conversation with an approval card and its diff', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', WEB_ONLY);
  await deskhand.startModel([
    {
      text: ['I will put the three points in a notes file in this folder.'],
      tools: [{ name: 'write_file', args: { path: 'notes.md', content: '# Notes for the week\n\n- Send the invoice to Ana\n- Book the train for Thursday\n- Review the draft report\n' } }],
    },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Notes for the week');
  await deskhand.send('Make a notes file with: invoice to Ana, train for Thursday, review the draft report.');
  const card = deskhand.approvalCard();
  await expect(card).toBeVisible();
  await expect(card.getByRole('table', { name: /Preview of write_file: 5 lines added, 0 removed/ })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Approve' })).toBeVisible();
  await shoot(page, 'approval-card.png');
});
