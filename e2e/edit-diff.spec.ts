/**
 * A finished edit shows what it changed (issue 52 item 9): the expanded card of an edit_file call that ran has a diff
 * of the old and new text — the approval's preview when one was asked, else the replacement its arguments describe —
 * not only the raw old_string/new_string.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support';

test('finished edit cards show the change as a diff, asked or not', async ({ deskhand }) => {
  writeFileSync(join(deskhand.work, 'notes.txt'), 'first line\nsecond line\n');
  await deskhand.startModel([
    { tools: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
    { tools: [{ name: 'edit_file', args: { path: 'notes.txt', old_string: 'first line', new_string: 'first line, edited' } }] },
    { text: ['Edited once.'] },
    { tools: [{ name: 'edit_file', args: { path: 'notes.txt', old_string: 'second line', new_string: 'second line, edited' } }] },
    { text: ['Edited twice.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Edits');
  await deskhand.send('Edit the first line');
  const card = page.getByRole('region', { name: 'Edit a file' });
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Edited once.');

  // Asked: the finished card keeps the approval's diff.
  const first = page.getByRole('article', { name: 'Tool call edit_file: done' }).first();
  await first.getByRole('button').first().click();
  const asked = first.getByRole('table', { name: /^Change of edit_file: 1 lines added, 1 removed$/ });
  await expect(asked).toBeVisible();
  await expect(asked.locator('.diff-add')).toContainText('first line, edited');
  await expect(asked.locator('.diff-del')).toContainText('first line');

  // Not asked (the policy clears high-risk): the diff comes from the replacement in its arguments.
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('high-risk');
  await deskhand.send('Now the second line');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Edited twice.');
  const second = page.getByRole('article', { name: 'Tool call edit_file: done' }).nth(1);
  await second.getByRole('button').first().click();
  const ran = second.getByRole('table', { name: /^Change of edit_file: 1 lines added, 1 removed$/ });
  await expect(ran.locator('.diff-add')).toContainText('second line, edited');
  await expect(ran.locator('.diff-del')).toContainText('second line');
});
