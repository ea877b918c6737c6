/**
 * The transcript follows new content: when an approval card opens below it the latest message stays in view, and
 * after a deny the model's reply is in view — with a transcript long enough to scroll.
 */
import { join } from 'node:path';
import { artifact, expect, test } from './support';

test('keeps the latest message in view while an approval opens and after a deny', async ({ deskhand }) => {
  const long = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of the plan.`).join('\n\n');
  await deskhand.startModel([
    { text: [long] },
    { text: ['I will write the notes now.'], tools: [{ name: 'write_file', args: { path: join(deskhand.work, 'notes.md'), content: '# notes\n'.repeat(40) } }] },
    { text: ['Understood, I did not write the notes.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Follow');
  await deskhand.send('Plan it');
  await expect(page.getByText('Paragraph 60 of the plan.')).toBeInViewport();

  await deskhand.send('Now write the notes please');
  const card = deskhand.approvalCard();
  await expect(card).toBeVisible();
  // The card takes room below the transcript; the newest message is still where the person can read it.
  await expect(page.getByText('I will write the notes now.')).toBeInViewport();
  await page.screenshot({ path: artifact(`${deskhand.kind}-follow-approval.png`) });

  await card.getByRole('textbox', { name: /Reason for denying/ }).fill('not yet');
  await card.getByRole('button', { name: 'Deny' }).click();
  await expect(card).toBeHidden();
  await expect(page.getByText('Understood, I did not write the notes.')).toBeInViewport();
});
