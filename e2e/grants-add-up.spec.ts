/**
 * App grants add up (issue 34 item 11): the person grants observe, later the model asks for observe and input — the
 * card says observe is already granted and asks only for input; after granting, the store holds both (`deskhand grants
 * list`), and the finished card's summary says what this grant added, not what was asked.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, journeyShots, ROOT, test } from './support';

function grants(dataDir: string): { app: string; capabilities: string[] }[] {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e.DESKHAND_HOME;
  return JSON.parse(execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), 'grants', 'list', '--json', '--data-dir', dataDir], { env: e, encoding: 'utf8' })) as never;
}

test('a second grant adds to the first; the card asks only for the rest and the summary says what was granted', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'search_tools', args: { query: 'computer' } }] },
    { tools: [{ name: 'computer_grant_app', args: { app: 'zenity', capabilities: ['observe'], minutes: 30, reason: 'read the dialog' } }] },
    { text: ['I can read zenity.'] },
    { tools: [{ name: 'computer_grant_app', args: { app: 'zenity', capabilities: ['observe', 'input'], minutes: 10, reason: 'type the answer' } }] },
    { text: ['I can type into zenity too.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Grants');
  await deskhand.send('Read the zenity dialog');
  const card = page.getByRole('region', { name: 'Ask to use an app' });
  await card.getByRole('button', { name: 'Grant' }).click();
  await expect(page.getByText('I can read zenity.')).toBeVisible();
  expect(grants(deskhand.dataDir)).toEqual([expect.objectContaining({ app: 'zenity', capabilities: ['observe'] })]);

  await deskhand.send('Now type the answer');
  await expect(card).toBeVisible();
  await expect(card.getByLabel('Already granted')).toContainText('observe');
  await expect(card.getByRole('checkbox')).toHaveCount(1);
  await expect(card.getByRole('checkbox', { name: /input/ })).toBeChecked();
  await journeyShots(page, 'grant-card-adds-up');
  await card.getByRole('button', { name: 'Grant' }).click();
  await expect(page.getByText('I can type into zenity too.')).toBeVisible();

  expect(grants(deskhand.dataDir)).toEqual([expect.objectContaining({ app: 'zenity', capabilities: ['observe', 'input'] })]);
  const finished = page.getByRole('article', { name: /Tool call computer_grant_app/ });
  await expect(finished.nth(1)).toContainText('zenity: granted input');
  await expect(finished.nth(0)).toContainText('zenity: granted observe');
  // The model reads what it holds now.
  expect(JSON.stringify(deskhand.requests()[4]!.body)).toContain('now holds observe, input');
  await journeyShots(page, 'grant-finished');
});
