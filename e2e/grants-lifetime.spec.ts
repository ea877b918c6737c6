/**
 * Grants with a scope and a lifetime (issue 46): the approval card offers this task / this conversation / every
 * conversation in the folder / everywhere and an hour / today / until revoked, says what it saves before saving, and
 * number keys pick the scope. An hour's grant lets the next write run unasked; once its hour has passed (its end moved
 * into the past in the database, as a later clock finds it) Settings → Rules lists it as expired and the next write
 * asks again. Proven by effect: the files written, and the card that appears again.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { artifact, expect, test } from './support';

test('an hour-long grant runs, then expires and asks again; the card shows scopes and lifetimes', async ({ deskhand }) => {
  mkdirSync(join(deskhand.work, 'notes'));
  const write = (file: string) => ({ tools: [{ name: 'write_file', args: { path: join(deskhand.work, 'notes', file), content: `# ${file}\n` } }] });
  await deskhand.startModel([write('a.md'), { text: ['Wrote a.'] }, write('b.md'), { text: ['Wrote b.'] }, write('c.md'), { text: ['Wrote c.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Notes');

  await deskhand.send('write a.md');
  const card = deskhand.approvalCard();
  await card.getByRole('button', { name: 'Always allow' }).click();
  const rule = card.getByRole('group', { name: 'Always allow rule' });
  for (const scope of ['This task (until the run ends)', 'This conversation', `Every conversation in ${deskhand.work}`, 'Everywhere']) {
    await expect(rule.getByRole('radio', { name: scope })).toBeVisible();
  }
  // Number keys pick the scope while the card has the focus: 1 is this task (no lifetime: it ends with the run).
  await card.focus();
  await page.keyboard.press('1');
  await expect(rule.getByRole('radio', { name: 'This task (until the run ends)' })).toBeChecked();
  await expect(rule.getByRole('group', { name: 'For how long' })).toHaveCount(0);
  await page.keyboard.press('2');
  await expect(rule.getByRole('radio', { name: 'This conversation' })).toBeChecked();
  for (const lifetime of ['An hour', 'Today', 'Until I revoke it']) await expect(rule.getByRole('radio', { name: lifetime })).toBeVisible();
  await rule.getByRole('radio', { name: 'An hour' }).check();
  await expect(rule.getByTestId('grant-summary')).toContainText('in this conversation for an hour');
  await card.screenshot({ path: artifact(`${deskhand.kind}-grant-lifetime.png`) });
  await rule.getByRole('button', { name: 'Save rule and approve' }).click();
  await expect(page.getByText('Wrote a.')).toBeVisible();
  expect(existsSync(join(deskhand.work, 'notes', 'a.md'))).toBe(true);

  // Within the hour: the next write runs unasked.
  await deskhand.send('write b.md');
  await expect(page.getByText('Wrote b.')).toBeVisible();
  expect(existsSync(join(deskhand.work, 'notes', 'b.md'))).toBe(true);

  // The hour passes.
  const db = new Database(join(deskhand.dataDir, 'deskhand.db'));
  try {
    db.prepare('UPDATE rules SET expires_at = ?').run(Date.now() - 1000);
  } finally {
    db.close();
  }

  // It asks again, and nothing is written until it is answered.
  await deskhand.send('write c.md');
  await expect(deskhand.approvalCard()).toBeVisible();
  expect(existsSync(join(deskhand.work, 'notes', 'c.md'))).toBe(false);

  // Settings → Rules lists the grant as expired.
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('list', { name: 'Always-allow rules' }).getByTestId('rule-expiry')).toContainText('expired: those calls ask again');
});
