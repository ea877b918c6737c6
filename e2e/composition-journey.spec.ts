/**
 * Reviewing compositions (issue 34 items 15, 18): create_composition writes only into Deskhand's own store, so under
 * the read-only default it runs without asking; opening it gives the viewer room.
 */
import { expect, journeyShots, test } from './support';

const html = '<!doctype html><html><body><h1>Quarterly figures</h1><p>Revenue rose.</p></body></html>';

test('create_composition does not ask under the read-only default', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'create_composition', args: { title: 'Figures', kind: 'html', content: html } }] },
    { text: ['Made the figures page.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Figures');
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('read-only');
  await deskhand.send('Make a figures page');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Made the figures page.');
  await expect(page.getByRole('region', { name: 'Make a composition' })).toHaveCount(0);
  await expect(page.getByRole('complementary', { name: 'Compositions' }).getByRole('button', { name: 'Open composition Figures' })).toBeVisible();
  await journeyShots(page, 'composition-made');
});
