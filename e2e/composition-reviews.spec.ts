/**
 * Reviews are review events (issue 34 item 17): Comment, Ask for changes and Approve show in the transcript as what the
 * person did, never as a chat message of theirs; the model receives each with Deskhand's instructions (the scripted
 * model server's recorded request); a comment or an approval alone starts no run, asking for changes does.
 */
import { expect, test } from './support';

const html = '<!doctype html><html><body><h1>Quarterly figures</h1><p>Revenue rose.</p></body></html>';
const INSTRUCTIONS = "This message comes from Deskhand's composition viewer";

test('comment, ask for changes and approve are review events; only asking for changes starts a run', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'create_composition', args: { title: 'Figures', kind: 'html', content: html } }] },
    { text: ['Made the figures page.'] },
    { text: ['Revising it now.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Figures');
  await deskhand.send('Make a figures page');
  await expect(page.getByText('Made the figures page.')).toBeVisible();
  const made = deskhand.requests().length;
  await page.getByRole('complementary', { name: 'Compositions' }).getByRole('button', { name: 'Open composition Figures' }).click();
  const viewer = page.getByRole('region', { name: 'Composition Figures' });

  // A comment: a review event in the transcript, and no run.
  await viewer.getByRole('textbox', { name: 'Comment on version 1' }).fill('The title could be larger.');
  await viewer.getByRole('button', { name: 'Comment', exact: true }).click();
  const comment = page.getByRole('article', { name: 'Review: You commented on “Figures” version 1' });
  await expect(comment).toBeVisible();
  await expect(comment).toContainText('The title could be larger.');
  await expect(page.getByRole('article', { name: 'You', exact: true })).toHaveCount(1);
  await expect(page.getByText(INSTRUCTIONS)).toHaveCount(0);

  // Ask for changes: a review event, and one run whose request carries both reviews with their instructions.
  await viewer.getByRole('textbox', { name: 'Comment on version 1' }).fill('Add the eastern region.');
  await viewer.getByRole('button', { name: 'Ask for changes' }).click();
  await expect(page.getByRole('article', { name: 'Review: You asked for changes to “Figures” version 1' })).toContainText('Add the eastern region.');
  await expect(page.getByText('Revising it now.')).toBeVisible();
  const requests = deskhand.requests();
  // Exactly one request since the first turn ended: the comment started nothing.
  expect(requests.length).toBe(made + 1);
  const users = (requests.at(-1)!.body.messages ?? []).filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
  const commentSent = users.find((u) => u.includes('The title could be larger.'));
  const changesSent = users.find((u) => u.includes('Add the eastern region.'));
  expect(commentSent).toContain('the person commented on version 1 of the composition');
  expect(commentSent).toContain('do not revise it because of the comment alone');
  expect(changesSent).toContain('the person asks for changes to version 1 of the composition');
  expect(changesSent).toContain('Revise it now: call create_composition with revises:');

  // Approve: a review event, no run.
  await viewer.getByRole('button', { name: 'Approve version 1' }).click();
  await expect(page.getByRole('article', { name: 'Review: You approved “Figures” version 1' })).toBeVisible();
  await expect(viewer.getByRole('status').filter({ hasText: 'approved' })).toBeVisible();
  expect(deskhand.requests().length).toBe(made + 1);

  // The person's own messages are only what they typed; none of Deskhand's instructions show anywhere.
  await expect(page.getByRole('article', { name: 'You', exact: true })).toHaveCount(1);
  await expect(page.getByText(INSTRUCTIONS)).toHaveCount(0);
  await expect(page.getByText('[composition review')).toHaveCount(0);
});
