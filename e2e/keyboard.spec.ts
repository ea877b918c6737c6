/**
 * The keyboard: an approval is answered from the message box without reaching the card (Ctrl+Enter approves,
 * Ctrl+Backspace goes to the deny reason), Alt+N starts a conversation in the browser (where Ctrl+N is the
 * browser's), Ctrl+K searches, and Alt+↑/↓ switch conversations. Proven by effect: the file the approved call wrote.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support';

test('answers approvals, starts, searches and switches conversations from the keyboard', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'write_file', args: { path: join(deskhand.work, 'one.txt'), content: 'one' } }] },
    { text: ['Wrote one.'] },
    { tools: [{ name: 'write_file', args: { path: join(deskhand.work, 'two.txt'), content: 'two' } }] },
    { text: ['Skipped two.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('First');
  await deskhand.send('write one');
  await expect(deskhand.approvalCard()).toBeVisible();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.focus();
  await box.press('Control+Enter');
  await expect(page.getByText('Wrote one.')).toBeVisible();
  expect(readFileSync(join(deskhand.work, 'one.txt'), 'utf8')).toBe('one');

  // Alt+N opens the new-conversation dialog even in a browser.
  await box.press('Alt+n');
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Working folder').fill(deskhand.work);
  await dialog.getByLabel('Title (optional)').fill('Second');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await deskhand.send('write two');
  await expect(deskhand.approvalCard()).toBeVisible();
  await box.press('Control+Backspace');
  const reason = deskhand.approvalCard().getByRole('textbox', { name: /Reason for denying/ });
  await expect(reason).toBeFocused();
  await reason.fill('not now');
  await reason.press('Enter');
  await expect(page.getByText('Skipped two.')).toBeVisible();
  expect(existsSync(join(deskhand.work, 'two.txt'))).toBe(false);

  // Alt+↓ / Alt+↑ move through the sidebar's order (newest first); Ctrl+K goes to search.
  await box.press('Alt+ArrowDown');
  await expect(page.getByRole('heading', { name: 'First' })).toBeVisible();
  await box.press('Alt+ArrowUp');
  await expect(page.getByRole('heading', { name: 'Second' })).toBeVisible();
  await box.press('Control+k');
  await expect(page.getByRole('searchbox', { name: 'Search conversations' })).toBeFocused();
});
