/**
 * The first screen and plain words (issue 34, items 7 and 19), in `deskhand web`: a new tab opens the last
 * conversation; the side panel's empty sections collapse until they have something; the New-conversation dialog
 * starts in the folder used last (or home), never in Deskhand's own checkout; approval cards say what will happen in
 * words (no raw JSON), an unknown tool is called unknown, a middle dot is not flagged, a bad range prints no NaN.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT, expect, test } from './support';

test('a new tab opens the last conversation; empty side sections collapse until they have something', async ({ deskhand, context }) => {
  test.skip(deskhand.kind === 'electron', 'Tabs are a browser thing.');
  await deskhand.startModel([{ tools: [{ name: 'write_file', args: { path: 'a.txt', content: 'a\n' } }] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Earlier');
  await deskhand.newConversation('The last one');

  const tab = await context.newPage();
  await tab.goto(deskhand.url); // no #c= in the address
  await expect(tab.getByRole('main', { name: 'Conversation The last one' })).toBeVisible();
  await expect(tab.getByRole('heading', { name: 'Pick a conversation' })).toHaveCount(0);
  await tab.close();

  // Nothing waiting, no tasks, no todos, no compositions: four title lines, not four boxes of explanations.
  for (const name of ['Approvals waiting', 'Background tasks', 'Todos', 'Compositions']) {
    const box = page.getByRole('complementary', { name, exact: true });
    await expect(box).toBeVisible();
    expect((await box.boundingBox())!.height, `${name} is collapsed`).toBeLessThan(40);
  }
  // Something arrives: its section opens with it.
  await deskhand.send('Write a');
  const approvals = page.getByRole('complementary', { name: 'Approvals waiting', exact: true });
  await expect(approvals.getByRole('button', { name: /^Review: Write a file/ })).toBeVisible();
  expect((await approvals.boundingBox())!.height).toBeGreaterThan(60);
});

test("the New-conversation dialog starts in the folder used last, or the Deskhand folder, never home or Deskhand's own checkout", async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', '`deskhand web` started from the checkout is the case here.');
  await deskhand.startModel([]);
  const page = await deskhand.start({ cwd: ROOT });
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await expect(dialog.getByLabel('Working folder')).toHaveValue(join(homedir(), 'Deskhand'));
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await deskhand.newConversation('Work here');
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  await expect(dialog.getByLabel('Working folder')).toHaveValue(deskhand.work);
});

test('approval cards read in plain words; unknown tools are called unknown; no NaN, no mark on a middle dot', async ({ deskhand }) => {
  await deskhand.startModel([
    {
      tools: [
        { name: 'read_file', args: { path: 'notes.txt', line_offset: 5, n_lines: 'ten' } },
        { name: 'frobnicate_widget', args: { level: 3 } },
      ],
    },
    {
      tools: [
        { name: 'add_reminder', args: { when: '3h', text: 'Water the plants · twice' } },
        { name: 'create_pdf', args: { path: 'report.pdf', markdown: '# Report · Q3\n' } },
      ],
    },
    { text: ['Done.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Plain words');
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('none');
  await deskhand.send('Do the things');

  const reminder = page.getByRole('region', { name: 'Set a reminder' });
  const pdf = page.getByRole('region', { name: 'Print a PDF' });
  await expect(reminder).toBeVisible();
  await expect(pdf).toBeVisible();
  for (const card of [reminder, pdf]) {
    const line = card.locator('.approval-desc');
    await expect(line).not.toContainText('{');
    await expect(line).not.toContainText('add_reminder');
    await expect(line).not.toContainText('create_pdf');
  }
  await expect(pdf.locator('.approval-desc')).toHaveText('Print a PDF: report.pdf');
  // The exact arguments show the middle dot as it is, with no look-alike mark.
  await expect(reminder.getByLabel('Arguments of add_reminder')).toContainText('Water the plants · twice');
  await expect(reminder.getByText('U+00B7')).toHaveCount(0);

  // The calls refused earlier: an unknown tool is not dressed up as a real one, and the bad range prints no NaN.
  await expect(page.getByRole('article', { name: /^Tool call frobnicate_widget/ })).toContainText('Unknown tool “frobnicate_widget”');
  await expect(page.getByText('Frobnicate widget')).toHaveCount(0);
  const read = page.getByRole('article', { name: /^Tool call read_file/ });
  await expect(read).toContainText('notes.txt (a range that is not whole numbers)');
  await expect(read).not.toContainText('NaN');
});
