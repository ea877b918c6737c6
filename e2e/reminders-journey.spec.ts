/**
 * Reminders a person can see (issue 34 item 10): the add_reminder card says in plain words when it will ring (the
 * resolved time, not the model's "15s"); the right panel's Reminders lists what will ring, with Snooze and Cancel; a
 * reminder that rang appears in its conversation as an event saying when it really rang. The OS scheduler is off
 * here (the in-app ticker holds them; atd is tested in test/schedule/); the notification goes to the world's server.
 */
import { expect, journeyShots, test } from './support';

test('the card shows when it rings; the panel lists, snoozes and cancels; a rung reminder is an event in its conversation', async ({ deskhand }) => {
  test.setTimeout(120_000);
  await deskhand.startModel([
    { tools: [{ name: 'add_reminder', args: { when: '20s', text: 'Stretch your legs' } }, { name: 'add_reminder', args: { when: '3h', text: 'Water the plants' } }] },
    { text: ['Both reminders are set.'] },
  ]);
  const page = await deskhand.start({ env: { DESKHAND_OS_SCHEDULER: 'none' } });
  await page.setViewportSize({ width: 1440, height: 900 });
  await deskhand.newConversation('Chores');
  await deskhand.send('Remind me to stretch and to water the plants');

  const cards = page.getByRole('main').getByRole('region', { name: 'Set a reminder' });
  await expect(cards).toHaveCount(2);
  // The resolved time in the person's zone, in words, before approval.
  await expect(cards.first()).toContainText(/Rings \w{3} \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? \([^)]+, UTC[+-]\d\d:\d\d\) — in 20 s/);
  await expect(cards.first()).toContainText('Stretch your legs');
  await expect(cards.nth(1)).toContainText(/— in 3 h/);
  await journeyShots(page, 'reminder-card');
  await cards.first().getByRole('button', { name: 'Approve' }).click();
  await expect(cards).toHaveCount(1);
  await cards.first().getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Both reminders are set.');

  // The panel polls once a minute: seeing both within the expect timeout proves it loaded again on the calls' events
  // (it said "0 — No reminders" for about 10 s after a reminder was set; issue 52).
  const panel = page.getByRole('complementary', { name: 'Reminders' });
  const plants = panel.getByRole('listitem', { name: 'Reminder Water the plants' });
  await expect(plants).toBeVisible();
  await expect(panel.getByRole('listitem', { name: 'Reminder Stretch your legs' })).toBeVisible();
  const before = await plants.textContent();
  await journeyShots(page, 'reminders-panel');
  await plants.getByRole('button', { name: 'Snooze Water the plants 10 minutes' }).click();
  await expect(panel.getByRole('status')).toContainText(/Snoozed|snoozed/);
  await expect(plants).not.toHaveText(before!);
  await plants.getByRole('button', { name: 'Cancel reminder Water the plants' }).click();
  await expect(plants).toBeHidden();

  // The ticker rings "Stretch your legs"; the conversation shows it as an event with when it really rang.
  await expect(async () => {
    await page.reload();
    await expect(page.getByText(/Reminder rang \w{3} \d{4}-\d\d-\d\d \d\d:\d\d.*\((on time|\d+ s late|\d+ min \d+ s late)\): Stretch your legs/)).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(page.getByRole('complementary', { name: 'Reminders' }).getByRole('listitem', { name: 'Reminder Stretch your legs' })).toBeHidden();
  await journeyShots(page, 'reminder-rang');
});
