/**
 * Background tasks in the UI: a command's live output in its tool card, the background-tasks panel (running, the end
 * of the output, finished, cancel), the wake-up turn when a task ends, and the conversation's sandbox mode.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

test('shows live output, background tasks with their output, cancel, and the wake-up turn', async ({ deskhand }) => {
  await deskhand.startModel([
    // 1. A foreground command that prints, then runs until the test releases it (its card shows the output while it
    //    runs, for exactly as long as the test looks).
    { tools: [{ name: 'execute_command', args: { command: 'echo tick 1; until [ -e ticks-released ]; do sleep 0.1; done; echo tick 2' } }] },
    // 2. Two background commands: one that ends soon, one that runs until cancelled.
    {
      text: ['Starting two background commands.'],
      tools: [
        { name: 'execute_command', args: { command: 'echo first line; sleep 2; echo background-finished', run_in_background: true, description: 'short job' } },
        { name: 'execute_command', args: { command: 'echo waiting forever; sleep 600', run_in_background: true, description: 'long job' } },
      ],
    },
    { text: ['Both are running.'] },
    // 3. The wake-up turn when the short job ends.
    { text: ['The short job printed background-finished.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Background work');
  await deskhand.send('Run the commands');

  // Live output in the running tool card.
  const card = page.getByRole('article', { name: 'Tool call execute_command: running' }).first();
  await card.getByRole('button').first().click();
  await expect(card.getByLabel('Output of execute_command')).toContainText('tick 1');
  await expect(page.getByRole('article', { name: 'Tool call execute_command: running' }).first()).toBeVisible();
  writeFileSync(join(deskhand.work, 'ticks-released'), '');

  // The panel lists both background tasks, with their output.
  const panel = page.getByRole('complementary', { name: 'Background tasks' });
  const short = panel.getByRole('listitem', { name: /^Command short job: / });
  const long = panel.getByRole('listitem', { name: /^Command long job: running/ });
  await expect(long).toBeVisible({ timeout: 20_000 });
  await expect(long.getByLabel('Output of long job')).toContainText('waiting forever');
  await page.screenshot({ path: artifact(`${deskhand.kind}-background-tasks.png`) });

  // The short one ends: the panel shows it done with its output, and the conversation continues by itself.
  await expect(panel.getByRole('listitem', { name: 'Command short job: done' })).toBeVisible({ timeout: 20_000 });
  const head = short.getByRole('button', { name: /short job/ });
  if ((await head.getAttribute('aria-expanded')) === 'false') await head.click();
  await expect(short.getByLabel('Output of short job')).toContainText('background-finished');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('The short job printed background-finished.');
  const wake = deskhand.requests()[3];
  expect(JSON.stringify(wake?.body)).toMatch(/\[background task cmd_[0-9a-f]{8} finished\] short job/);

  // Cancel the long one.
  await long.getByRole('button', { name: 'Cancel long job' }).click();
  await expect(panel.getByRole('listitem', { name: 'Command long job: cancelled' })).toBeVisible();
});

test("shows and changes the conversation's sandbox mode", async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await deskhand.newConversation('Sandbox');
  const select = page.getByRole('combobox', { name: 'Sandbox' });
  await expect(select).toHaveValue('workspace-write');
  await select.selectOption('read-only');
  await expect(select).toHaveValue('read-only');
  // It is stored: a restart shows it again.
  const again = await deskhand.restart();
  await again.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^Sandbox/ }).click();
  await expect(again.getByRole('combobox', { name: 'Sandbox' })).toHaveValue('read-only');
  await expect(again.getByRole('complementary', { name: 'Background tasks' })).toContainText('Nothing runs in the background here.');
});
