/**
 * Computer use in the UI, proven by effect: the model's computer_grant_app shows the grant card (the app, each
 * capability, how long); the person unticks one capability and grants — the store holds exactly the rest (`deskhand
 * grants list`), the model reads what was granted; Settings → App grants lists it and Revoke removes it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { artifact, expect, ROOT, test } from './support';

function cli(args: string[], dataDir: string): string {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e.DESKHAND_HOME;
  return execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), ...args, '--data-dir', dataDir], { env: e, encoding: 'utf8' });
}

test('the grant card grants what the person leaves ticked; Settings lists the grant and revokes it', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'search_tools', args: { query: 'computer' } }] }, // off in a new conversation: the model loads the family first
    { tools: [{ name: 'computer_grant_app', args: { app: 'zenity', capabilities: ['observe', 'input'], minutes: 30, reason: 'fill in the dialog' } }] },
    { text: ['Thanks, I can read zenity now.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Desktop');
  await deskhand.send('Fill in the zenity dialog');

  const card = page.getByRole('region', { name: 'Ask to use an app' });
  await expect(card).toBeVisible();
  await expect(card).toContainText('Let Deskhand use zenity');
  await expect(card).toContainText('fill in the dialog');
  await expect(card).toContainText('for 30 min');
  await expect(card.getByRole('checkbox')).toHaveCount(2);
  await card.getByRole('checkbox', { name: /input/ }).uncheck();
  await card.screenshot({ path: artifact(`${deskhand.kind}-app-grant-card.png`) });
  await card.getByRole('button', { name: 'Grant' }).click();
  await expect(page.getByText('Thanks, I can read zenity now.')).toBeVisible();

  const rows = JSON.parse(cli(['grants', 'list', '--json'], deskhand.dataDir)) as { type: string; app?: string; capabilities?: string[] }[];
  expect(rows).toEqual([expect.objectContaining({ type: 'app', app: 'zenity', capabilities: ['observe'] })]);
  // requests: 0 → search_tools, 1 → computer_grant_app, 2 → the step after the grant
  expect(JSON.stringify(deskhand.requests()[2]!.body)).toContain('The person granted \\"zenity\\": observe until');

  await page.getByRole('button', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'App grants' });
  const item = section.getByRole('listitem', { name: 'zenity' });
  await expect(item).toContainText('observe');
  await item.getByRole('button', { name: 'Revoke zenity' }).click();
  await expect(section.getByRole('status')).toContainText('Revoked zenity');
  await expect(section.getByRole('note', { name: 'No app grants' })).toBeVisible();
  expect(JSON.parse(cli(['grants', 'list', '--json'], deskhand.dataDir))).toEqual([]);
});
