/**
 * Rules people can manage: "Always allow" saved with each scope from the approval card (this conversation, every
 * conversation in the folder, everywhere), listed in Settings → Rules with where each applies and where it came from,
 * and revoked there. Proven by effect: the files the approved calls wrote, and the rules list after Revoke.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

test('saves an always-allow rule in each scope, lists them in Settings → Rules, and revokes one', async ({ deskhand }) => {
  for (const d of ['notes', 'docs', 'out']) mkdirSync(join(deskhand.work, d));
  const write = (dir: string, file: string) => ({ tools: [{ name: 'write_file', args: { path: join(deskhand.work, dir, file), content: `# ${file}\n` } }] });
  await deskhand.startModel([write('notes', 'a.md'), { text: ['Wrote a.'] }, write('docs', 'b.md'), { text: ['Wrote b.'] }, write('out', 'c.md'), { text: ['Wrote c.'] }]);
  const page = await deskhand.start();

  const scopes = [
    ['notes', 'a.md', 'This conversation', 'Wrote a.'],
    ['docs', 'b.md', `Every conversation in ${deskhand.work}`, 'Wrote b.'],
    ['out', 'c.md', 'Everywhere', 'Wrote c.'],
  ] as const;
  for (const [dir, file, scope, done] of scopes) {
    await deskhand.newConversation(`Write ${file}`);
    await deskhand.send(`write ${file}`);
    const card = deskhand.approvalCard();
    await card.getByRole('button', { name: 'Always allow' }).click();
    const rule = card.getByRole('group', { name: 'Always allow rule' });
    await expect(rule).toContainText(`${join(deskhand.work, dir)}/*`);
    await rule.getByRole('radio', { name: scope }).check();
    if (file === 'b.md') await card.screenshot({ path: artifact(`${deskhand.kind}-rule-scope.png`) });
    await rule.getByRole('button', { name: 'Save rule and approve' }).click();
    await expect(page.getByText(done)).toBeVisible();
    expect(existsSync(join(deskhand.work, dir, file))).toBe(true);
  }

  await page.getByRole('button', { name: 'Settings' }).click();
  const list = page.getByRole('list', { name: 'Always-allow rules' });
  await expect(list.getByRole('listitem')).toHaveCount(3);
  await expect(list.getByRole('listitem', { name: `write_file ${join(deskhand.work, 'notes')}/*` })).toContainText('in the conversation “Write a.md”');
  await expect(list.getByRole('listitem', { name: `write_file ${join(deskhand.work, 'docs')}/*` })).toContainText(`in every conversation in ${deskhand.work}`);
  await expect(list.getByRole('listitem', { name: `write_file ${join(deskhand.work, 'out')}/*` })).toContainText('in every conversation');
  await expect(list).toContainText('from approval apr_');
  await page.getByRole('region', { name: 'Rules' }).screenshot({ path: artifact(`${deskhand.kind}-rules-settings.png`) });

  await list.getByRole('button', { name: `Revoke write_file ${join(deskhand.work, 'docs')}/*` }).click();
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await expect(page.getByRole('region', { name: 'Rules' }).getByRole('status')).toContainText('those calls ask again');
});
