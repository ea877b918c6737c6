/**
 * Settings → Schedule in a real browser: a reminder and a scheduled prompt the model set (approved on their cards)
 * are listed with their next time and what holds them; Run now wakes the conversation (the model's next request
 * carries the prompt) and the fire shows in the history with its run; Cancel removes the reminder. The OS scheduler is
 * off here (the real atd is tested in test/schedule/), so the in-app ticker holds them.
 */
import { artifact, expect, test } from './support';

test('lists reminders and scheduled prompts, runs one now and cancels one', async ({ deskhand }) => {
  await deskhand.startModel([
    { text: ['Setting both.'], tools: [{ name: 'add_reminder', args: { when: '3h', text: 'Water the plants' } }, { name: 'register_trigger', args: { cron: '0 9 * * *', prompt: 'E2E-SCHED morning check' } }] },
    { text: ['Both are set.'] },
    { text: ['Morning check done.'] },
  ]);
  const page = await deskhand.start({ env: { DESKHAND_OS_SCHEDULER: 'none', DESKHAND_NOTIFY: 'off' } });
  await deskhand.newConversation('Plans');
  await deskhand.send('Remind me and check every morning');
  for (const title of ['Set a reminder', 'Schedule a wake-up']) {
    const card = page.getByRole('region', { name: title });
    await expect(card).toBeVisible();
    await card.getByRole('button', { name: 'Approve' }).click();
  }
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Both are set.');

  await page.getByRole('button', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'Schedule' });
  const list = section.getByRole('list', { name: 'Reminders and scheduled prompts' });
  const reminder = list.getByRole('listitem', { name: 'Reminder Water the plants' });
  const prompt = list.getByRole('listitem', { name: 'Scheduled prompt E2E-SCHED morning check' });
  await expect(reminder).toContainText(/Next: \w{3} \d{4}-\d\d-\d\d \d\d:\d\d/);
  await expect(prompt).toContainText('Every “0 9 * * *”');
  await expect(prompt).toContainText('Rings only while Deskhand runs');
  await expect(prompt).not.toContainText(/job \d/);
  await section.screenshot({ path: artifact(`${deskhand.kind}-schedule.png`) });

  await prompt.getByRole('button', { name: 'Run now E2E-SCHED morning check' }).click();
  await expect(section.getByRole('status')).toContainText(': ran — run finished');
  const history = section.getByRole('table', { name: 'Fire history' });
  await expect(history).toContainText('E2E-SCHED morning check');
  await expect(history).toContainText(/ran · now/);
  await expect(history.locator('code')).toContainText('run_');
  const requests = deskhand.requests();
  expect(JSON.stringify(requests.at(-1))).toContain('E2E-SCHED morning check');

  await reminder.getByRole('button', { name: 'Cancel Water the plants' }).click();
  await expect(section.getByRole('status')).toContainText('Cancelled rem_');
  await expect(reminder).toBeHidden();

  // In the conversation the wake-up is an event of its own (what fired, when, why), not "You" with raw markup (issue 52).
  await page.getByRole('navigation', { name: 'Conversations' }).getByText('Plans').click();
  const fired = page.getByRole('article', { name: /^Scheduled prompt fired: E2E-SCHED morning check/ });
  await expect(fired).toBeVisible();
  await expect(fired).toContainText(/scheduled prompt fired at .*\d\d:\d\d/);
  await expect(fired).toContainText('It repeats on the schedule “0 9 * * *”.');
  await expect(fired.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(page.getByRole('article', { name: 'You' }).filter({ hasText: 'E2E-SCHED' })).toHaveCount(0);
  await expect(page.getByText(/<scheduled-fire|\[Deskhand: scheduled prompt/)).toHaveCount(0);
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Morning check done.');
});
