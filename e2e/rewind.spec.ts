/**
 * Take it back (issue 45, docs/rewind.md): a turn the scripted model runs edits one file and creates another; the
 * turn shows "2 files changed" with each path's diff on click; Rewind on the person's message offers files /
 * conversation / both with a dry run that lists what will happen (and changes nothing), then puts the bytes on disk
 * back and keeps the later messages as a branch (the model's next request no longer holds them); Redo brings the
 * turn's files back. Every effect is proven by the file system's bytes and the model server's recorded requests.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support';

test('a turn shows what it changed, rewinds byte for byte after a dry run, and keeps the later messages as a branch', async ({ deskhand }) => {
  const notes = join(deskhand.work, 'notes.txt');
  const created = join(deskhand.work, 'new.txt');
  const original = 'first line\nsecond line\n';
  writeFileSync(notes, original);
  await deskhand.startModel([
    { tools: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
    { tools: [{ name: 'write_file', args: { path: 'notes.txt', content: 'first line\nsecond line, by the agent\n' } }] },
    { tools: [{ name: 'write_file', args: { path: 'new.txt', content: 'made by the agent\n' } }] },
    { text: ['Both written.'] },
    { text: ['Starting over.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Rewind');
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('high-risk');
  await deskhand.send('Change the notes');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Both written.');
  expect(readFileSync(notes, 'utf8')).toBe('first line\nsecond line, by the agent\n');
  expect(readFileSync(created, 'utf8')).toBe('made by the agent\n');

  // The turn's change list: both paths with their kind and counts; a click shows the diff from the kept bytes.
  const list = page.getByRole('region', { name: 'Changes of this turn: 2 files changed' });
  await list.getByRole('button', { name: '2 files changed' }).click();
  await expect(list.getByRole('button', { name: 'added new.txt +1 −0' })).toBeVisible();
  await list.getByRole('button', { name: 'modified notes.txt +1 −1' }).click();
  const diff = list.getByRole('table', { name: /^Diff of notes\.txt: 1 lines added, 1 removed$/ });
  await expect(diff.locator('.diff-add')).toContainText('second line, by the agent');
  await expect(diff.locator('.diff-del')).toContainText('second line');

  // Rewind from the person's message: the dry run lists exactly what will happen, and changes nothing.
  const mine = page.getByRole('article', { name: 'You', exact: true }).first();
  await mine.hover();
  await mine.getByRole('button', { name: 'Rewind' }).click();
  const panel = page.getByRole('region', { name: 'Rewind', exact: true });
  await expect(panel.getByRole('radio', { name: 'Files and conversation' })).toBeChecked();
  const preview = panel.getByRole('list', { name: 'What the rewind will do' });
  await expect(preview.getByRole('listitem')).toHaveCount(2);
  await expect(preview.getByRole('listitem').filter({ hasText: 'new.txt' })).toContainText('remove');
  await expect(preview.getByRole('listitem').filter({ hasText: 'notes.txt' })).toContainText('restore');
  await panel.getByRole('radio', { name: 'Files only' }).check();
  await expect(preview.getByRole('listitem')).toHaveCount(2);
  expect(readFileSync(notes, 'utf8')).toBe('first line\nsecond line, by the agent\n');
  expect(existsSync(created)).toBe(true);

  // Files and conversation: the bytes come back, the created file goes, the turn leaves the transcript.
  await panel.getByRole('radio', { name: 'Files and conversation' }).check();
  await expect(preview.getByRole('listitem')).toHaveCount(2);
  await panel.getByRole('button', { name: 'Rewind' }).click();
  const last = page.getByRole('region', { name: 'Last rewind' });
  await expect(last.getByRole('list', { name: 'What the rewind did' }).getByRole('listitem')).toHaveCount(2);
  expect(readFileSync(notes, 'utf8')).toBe(original);
  expect(existsSync(created)).toBe(false);
  await expect(page.getByRole('article', { name: 'You', exact: true })).toHaveCount(0);
  await expect(page.getByRole('region', { name: /^Changes of this turn/ })).toHaveCount(0);

  // The later messages are a kept branch: the model's next request no longer holds them.
  await deskhand.send('Start again');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Starting over.');
  const next = JSON.stringify(deskhand.requests().at(-1)!.body.messages);
  expect(next).toContain('Start again');
  expect(next).not.toContain('Change the notes');
});

test('Redo puts back the files a rewind took back', async ({ deskhand }) => {
  const notes = join(deskhand.work, 'notes.txt');
  writeFileSync(notes, 'before\n');
  await deskhand.startModel([{ tools: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { tools: [{ name: 'write_file', args: { path: 'notes.txt', content: 'after\n' } }] }, { text: ['Written.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Redo');
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('read-only');
  await deskhand.send('Write it');
  // The card says whether the act can be taken back (the change ledger records writes in the person's folders).
  const card = deskhand.approvalCard();
  await expect(card.getByRole('note', { name: 'Can be undone' })).toHaveText(/Can be undone from the change list\./);
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Written.');
  await expect(page.getByRole('region', { name: 'Changes of this turn: 1 file changed' })).toBeVisible();

  const mine = page.getByRole('article', { name: 'You', exact: true }).first();
  await mine.hover();
  await mine.getByRole('button', { name: 'Rewind' }).click();
  const panel = page.getByRole('region', { name: 'Rewind', exact: true });
  await panel.getByRole('radio', { name: 'Files only' }).check();
  await expect(panel.getByRole('list', { name: 'What the rewind will do' }).getByRole('listitem')).toHaveCount(1);
  await panel.getByRole('button', { name: 'Rewind' }).click();
  const last = page.getByRole('region', { name: 'Last rewind' });
  await expect(last.getByRole('status')).toContainText('Rewound.');
  expect(readFileSync(notes, 'utf8')).toBe('before\n');
  // Files only: the conversation keeps the turn.
  await expect(page.getByRole('article', { name: 'You', exact: true })).toHaveCount(1);

  await last.getByRole('button', { name: 'Redo' }).click();
  await expect(last.getByRole('status')).toContainText('Redone');
  expect(readFileSync(notes, 'utf8')).toBe('after\n');
  await expect(last.getByRole('button', { name: 'Redo' })).toHaveCount(0);
});
