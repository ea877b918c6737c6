/**
 * Reviewing compositions (issue 34 items 15, 18): create_composition writes only into Deskhand's own store, so under
 * the read-only default it runs without asking; opening it gives the viewer at least half the window, folds the
 * sidebar and side panel away (back when it closes), and the composer and approval card stay usable at 1440 and 1000 px.
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

test('the viewer takes at least half the window, folds the sidebar and panel, and the conversation stays usable', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'create_composition', args: { title: 'Figures', kind: 'html', content: html } }] },
    { tools: [{ name: 'write_file', args: { path: 'notes.md', content: 'Figures reviewed.\n' } }] },
    { text: ['Wrote the notes.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Figures');
  await deskhand.send('Make a figures page, then write notes');
  await expect(deskhand.approvalCard()).toBeVisible();
  const sidebar = page.getByRole('navigation', { name: 'Conversations' });
  const panel = page.getByRole('complementary', { name: 'Compositions' });
  await panel.getByRole('button', { name: 'Open composition Figures' }).click();
  const viewer = page.getByRole('region', { name: 'Composition Figures' });
  await expect(viewer).toBeVisible();
  await expect(panel).toBeHidden();
  await expect(sidebar).toBeHidden();
  for (const width of [1440, 1000]) {
    await page.setViewportSize({ width, height: 900 });
    const v = (await viewer.boundingBox())!;
    expect(v.width, `viewer width at ${width} px`).toBeGreaterThanOrEqual(width / 2);
    // The composer and the approval card stay usable beside it.
    const box = page.getByRole('textbox', { name: 'Message' });
    await expect(box).toBeInViewport();
    expect((await box.boundingBox())!.width).toBeGreaterThanOrEqual(200);
    const approve = deskhand.approvalCard().getByRole('button', { name: 'Approve' });
    await approve.scrollIntoViewIfNeeded();
    await expect(approve).toBeInViewport();
    await expect(deskhand.approvalCard().getByRole('button', { name: 'Deny' })).toBeInViewport();
  }
  await journeyShots(page, 'composition-viewer');
  await deskhand.approvalCard().getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Wrote the notes.')).toBeVisible();
  await viewer.getByRole('button', { name: 'Close the viewer' }).click();
  await expect(sidebar).toBeVisible();
  await expect(panel).toBeVisible();
});
