/**
 * Message search: the sidebar finds words said in a conversation (not only titles), and a match opens that
 * conversation scrolled to the message, marked — even when the message is far above the end of the transcript.
 */
import { artifact, expect, test } from './support';

test('finds a word said in a conversation and jumps to the message', async ({ deskhand }) => {
  const long = Array.from({ length: 90 }, (_, i) => `Line ${i + 1} of a long answer about road markings.`).join('\n\n');
  await deskhand.startModel([{ text: [long] }, { text: ['Fine.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Road notes');
  await deskhand.send('Tell me about the zebra crossing near the school');
  await expect(page.getByText('Line 90 of a long answer')).toBeVisible();
  await deskhand.newConversation('Something else');
  await deskhand.send('Hello');
  await expect(page.getByText('Fine.')).toBeVisible();

  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('zebra');
  const matches = page.getByRole('region', { name: 'Messages matching the search' });
  const hit = matches.getByRole('button', { name: /Road notes: Tell me about the zebra crossing/ });
  await expect(hit).toBeVisible();
  await expect(hit.locator('mark')).toHaveText('zebra');
  await page.locator('nav.sidebar').screenshot({ path: artifact(`${deskhand.kind}-message-search.png`) });
  await hit.click();

  const marked = page.locator('.vlist-row[data-focused]');
  await expect(marked).toContainText('Tell me about the zebra crossing near the school');
  await expect(marked).toBeInViewport();
  await expect(page.getByRole('heading', { name: 'Road notes' })).toBeVisible();
  // The end of the long answer is out of view: the list moved to the match, not to the end.
  await expect(page.getByText('Line 90 of a long answer')).not.toBeInViewport();

  // Opened again later (not from the search), the conversation starts at its end, not at the old match.
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
  await deskhand.sidebarEntry('Something else').click();
  await expect(page.getByText('Fine.')).toBeVisible();
  await deskhand.sidebarEntry('Road notes').click();
  await expect(page.getByText('Line 90 of a long answer')).toBeInViewport();
});
