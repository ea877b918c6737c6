/**
 * Runs the person did not start and runs that wait: a wake-up turn (background work ended) is shown as that, counts
 * as running (sidebar dot, Stop, Esc), and a message typed meanwhile is queued and sent when it ends; a parked run
 * can be stopped from the UI; the todo list the agent keeps shows in the right panel.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

test('a wake-up turn shows as background work, counts as running, and a message typed during it is queued, then sent', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'execute_command', args: { command: 'sleep 1.5; echo wake-e2e-output', run_in_background: true, description: 'slow build' } }] },
    { text: ['Started the build.'] },
    // The wake-up turn: slow enough to type during it.
    { text: ['The build', ' printed', ' wake-e2e-output', ' and is done.'], delayMs: 900 },
    { text: ['Got your follow-up.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Builds');
  await deskhand.send('Build it');
  await expect(page.getByText('Started the build.')).toBeVisible();

  // The task ends; Deskhand continues the conversation by itself.
  await expect(deskhand.sidebarEntry('Builds, running')).toBeVisible({ timeout: 20_000 });
  const wake = page.getByRole('article', { name: 'Background task finished: slow build' });
  await expect(wake).toBeVisible();
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' })).not.toContainText('background task');
  await wake.getByRole('button', { name: /Background task finished/ }).click();
  await expect(wake.getByLabel('Output of slow build')).toContainText('wake-e2e-output');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();

  // Typed while it works: queued, not lost, not an error.
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Also run the tests');
  await box.press('Enter');
  const queued = page.getByRole('article', { name: 'Queued message' });
  await expect(queued).toContainText('Also run the tests');
  await expect(queued).toContainText('Sends when Deskhand finishes this turn.');
  await expect(box).toHaveValue('');
  await page.screenshot({ path: artifact(`${deskhand.kind}-wake-and-queued.png`) });

  // The turn ends: the queued message goes out as the person's.
  await expect(page.getByText('Got your follow-up.')).toBeVisible({ timeout: 20_000 });
  await expect(queued).toBeHidden();
  await expect(page.getByRole('article', { name: 'You' }).last()).toContainText('Also run the tests');
  await expect(deskhand.sidebarEntry('Builds')).toBeVisible();
  const requests = deskhand.requests();
  expect(requests).toHaveLength(4);
  expect(JSON.stringify(requests[2]!.body)).toMatch(/\[background task cmd_[0-9a-f]{8} finished\] slow build/);
  const last = requests[3]!.body.messages ?? [];
  expect(JSON.stringify(last.at(-1))).toContain('Also run the tests');
});

test('Esc stops a wake-up turn like any run', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'execute_command', args: { command: 'sleep 0.5; echo done', run_in_background: true, description: 'quick job' } }] },
    { text: ['Started.'] },
    { hang: true },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Stoppable');
  await deskhand.send('Start the job');
  await expect(deskhand.sidebarEntry('Stoppable, running')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('article', { name: 'Background task finished: quick job' })).toBeVisible();
  await expect.poll(() => deskhand.requests().length).toBe(3);

  await page.getByRole('textbox', { name: 'Message' }).press('Escape');
  await expect(page.getByRole('status').filter({ hasText: 'Stopped by the person.' })).toBeVisible();
  await expect(deskhand.sidebarEntry('Stoppable')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
});

test('a parked run can be stopped: its approval goes away and the call is not run', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Writing the report.'], tools: [{ name: 'write_file', args: { path: 'report.md', content: '# Report\n' } }] }]);
  let page = await deskhand.start();
  await deskhand.newConversation('Report');
  await deskhand.send('Write the report');
  await expect(deskhand.approvalCard()).toBeVisible();

  // Nobody answers; the host restarts; the run is parked.
  page = await deskhand.restart();
  await deskhand.sidebarEntry('Report, waiting for approval').click();
  const bar = page.getByRole('group', { name: 'Paused run' });
  await expect(bar).toBeVisible();
  await expect(page.getByText('paused for approval')).toBeVisible();
  await page.screenshot({ path: artifact(`${deskhand.kind}-parked-run.png`) });

  await bar.getByRole('button', { name: 'Stop run' }).click();
  await expect(bar).toBeHidden();
  await expect(deskhand.approvalCard()).toBeHidden();
  await expect(page.getByRole('button', { name: 'Approvals waiting: 0' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Stopped by the person.' })).toBeVisible();
  const tool = page.getByRole('article', { name: /Tool call write_file: / });
  await tool.getByRole('button').first().click();
  await expect(tool.getByLabel('Output of write_file')).toContainText('Not run: the person stopped the run.');
  await expect(deskhand.sidebarEntry('Report')).toBeVisible();
  expect(existsSync(join(deskhand.work, 'report.md'))).toBe(false);
});

test('the Todos panel shows the agent\'s todo list, with an empty state before there is one', async ({ deskhand }) => {
  await deskhand.startModel([
    {
      text: ['Here is the plan.'],
      tools: [
        {
          name: 'manage_todos',
          args: {
            todos: [
              { title: 'Read the failing test', status: 'done' },
              { title: 'Fix the date parser', status: 'in_progress', priority: 'high' },
              { title: 'Run the whole suite', status: 'pending' },
            ],
          },
        },
      ],
    },
    { text: ['Working on the parser now.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Plan');
  const panel = page.getByRole('complementary', { name: 'Todos' });
  await expect(panel).toContainText('No todo list yet.');
  await deskhand.send('Fix the date bug');
  await expect(panel.getByRole('listitem')).toHaveCount(3);
  await expect(panel.getByRole('listitem', { name: 'Read the failing test: done' })).toBeVisible();
  await expect(panel.getByRole('listitem', { name: 'Fix the date parser: in progress' })).toBeVisible();
  await expect(panel.getByRole('listitem', { name: 'Run the whole suite: to do' })).toBeVisible();
  await expect(panel).toContainText('1/3 done');
  await expect(page.getByText('Working on the parser now.')).toBeVisible();
  await page.screenshot({ path: artifact(`${deskhand.kind}-todos.png`) });

  // Per conversation: a new one has none.
  await deskhand.newConversation('Other');
  await expect(panel).toContainText('No todo list yet.');
});
