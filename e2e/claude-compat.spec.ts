/**
 * Settings → Plugins' Claude Code switch (issue 47, docs/plugins.md): off by default for a folder, so its
 * `.claude/commands` are not commands; switched on for the open conversation's folder, the composer's menu offers
 * the folder's `/ship` and sending it sends the template to the model (the model's next request holds its text).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support';

test('the Claude Code switch turns a folder\'s .claude/commands into commands the composer offers and sends', async ({ deskhand }) => {
  mkdirSync(join(deskhand.work, '.claude', 'commands'), { recursive: true });
  writeFileSync(join(deskhand.work, '.claude', 'commands', 'ship.md'), '---\ndescription: Ship the release\n---\nSHIP-TEMPLATE for $ARGUMENTS\n');
  await deskhand.startModel([{ text: ['Shipped.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Release');
  const box = page.getByRole('textbox', { name: 'Message' });
  const menu = page.getByRole('listbox', { name: /commands/i });

  // Off: no /ship in the menu.
  await box.fill('/sh');
  await expect(menu.getByRole('option', { name: /ship/ })).toHaveCount(0);
  await box.fill('');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const toggle = page.getByRole('checkbox', { name: 'Claude Code compatibility for this folder' });
  await expect(toggle).toBeEnabled();
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  await expect(toggle).toBeChecked();
  await expect(page.getByText(/it has .*commands/)).toBeVisible();
  // The host kept it: Settings opened again reads it back from the host.
  await deskhand.sidebarEntry(/^Release/).click();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(toggle).toBeEnabled();
  await expect(toggle).toBeChecked();

  await deskhand.sidebarEntry(/^Release/).click();
  await box.fill('/sh');
  await expect(menu.getByRole('option', { name: /ship/ })).toBeVisible();
  await box.fill('/ship v2.1');
  await box.press('Enter');
  await expect(page.getByText('Shipped.')).toBeVisible();
  const sent = JSON.stringify(deskhand.requests().at(-1)!.body.messages);
  expect(sent).toContain('SHIP-TEMPLATE for v2.1');
});
