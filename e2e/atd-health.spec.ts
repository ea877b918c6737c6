/**
 * The OS scheduler's health as the person sees it (issue 34 item 9): with the test world's real atd (its canary job
 * ran), a reminder is held by an at job and the Reminders panel says so; with a stale pid file (its pid belongs to
 * another program, not atd), the panel says the in-app ticker holds it and why, in words. atd itself is never stopped
 * here: every test on this machine shares it (see test/schedule/atd-health.test.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Deskhand } from './support';

async function setReminder(deskhand: Deskhand, env: Record<string, string | null>) {
  await deskhand.startModel([{ tools: [{ name: 'add_reminder', args: { when: '3h', text: 'Water the plants' } }] }, { text: ['The reminder is set.'] }]);
  const page = await deskhand.start({ env: { DESKHAND_OS_SCHEDULER: null, ...env } });
  await deskhand.newConversation('Chores');
  await deskhand.send('Remind me to water the plants');
  await page.getByRole('main').getByRole('region', { name: 'Set a reminder' }).getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('The reminder is set.');
  const item = page.getByRole('complementary', { name: 'Reminders' }).getByRole('listitem', { name: 'Reminder Water the plants' });
  await expect(item).toBeVisible();
  return { page, item };
}

test('with the real atd the reminder is held by an at job', async ({ deskhand }) => {
  const { item } = await setReminder(deskhand, {});
  // Said in words (issue 52): who rings it, never "at job 7".
  await expect(item).toContainText('Rings even when Deskhand is closed');
  await expect(item).not.toContainText(/job \d+/);
  // No at job is left behind.
  await item.getByRole('button', { name: 'Cancel reminder Water the plants' }).click();
  await expect(item).toBeHidden();
});

test('with a stale atd pid file the panel says the in-app ticker holds it, and why', async ({ deskhand }) => {
  const pidFile = join(mkdtempSync(join(tmpdir(), 'deskhand-e2e-atd-')), 'atd.pid');
  writeFileSync(pidFile, `${process.pid}\n`);
  const { item } = await setReminder(deskhand, { DESKHAND_ATD_PID_FILE: pidFile });
  await expect(item).toContainText('Rings only while Deskhand runs');
  await expect(item).toContainText(new RegExp(`atd is not running \\(pid ${process.pid} from its pid file is \\S+, not atd: a stale pid file\\)`));
});
