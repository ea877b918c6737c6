/**
 * The Usage page and budgets in the app: a turn's tokens (as the scripted model reported them) appear on the Usage
 * page by kind of work, with the cost "unknown" for a model without a price; a conversation budget set there pauses the
 * next turn before its model call (no request reaches the model), and "Raise and continue" on the card in the
 * conversation resumes it to the end; the page then counts every call.
 */
import { artifact, expect, test } from './support';

test('the Usage page counts the calls, and a conversation budget pauses a turn that a raise resumes', async ({ deskhand }) => {
  await deskhand.startModel([
    { text: ['First answer.'], usage: { input: 1000, output: 100 } },
    { tools: [{ name: 'get_time', args: {} }], usage: { input: 1000, output: 100 } },
    { text: ['Second answer.'], usage: { input: 1000, output: 100 } },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Budgeted');
  await deskhand.send('First question.');
  await expect(page.getByText('First answer.')).toBeVisible();

  await page.getByRole('button', { name: 'Usage' }).click();
  const usage = page.getByRole('main', { name: 'Usage' });
  await expect(usage.getByLabel('Total tokens')).toHaveText('1,000 in (0 from cache) / 100 out');
  await expect(usage.getByLabel('Total cost')).toHaveText('unknown (no price for scripted)');
  const work = usage.getByRole('region', { name: 'By kind of work' });
  await expect(work.getByRole('row', { name: /Conversation turns/ })).toContainText('1,000');
  await expect(usage.getByRole('region', { name: 'By conversation' }).getByRole('row', { name: /Budgeted/ })).toContainText('100%');

  const budget = usage.getByRole('region', { name: 'Budget for “Budgeted”' });
  await budget.getByLabel('Tokens').fill('2000');
  await budget.getByRole('button', { name: 'Save conversation budget' }).click();
  await expect(page.getByText('Budget for “Budgeted” saved.')).toBeVisible();
  await page.getByRole('button', { name: 'Back to conversations' }).click();

  // 1,100 spent; the next call is estimated at the last one's size, which would cross 2,000: the turn pauses first.
  await deskhand.send('Second question.');
  const hold = page.getByRole('group', { name: 'Budget reached' });
  await expect(hold).toContainText("Budget reached: 1,100 tokens spent of 2,000 tokens (this conversation's budget) — raise it, or stop.");
  expect(deskhand.requests()).toHaveLength(1);
  await page.screenshot({ path: artifact(`${deskhand.kind}-budget-hold.png`) });

  await hold.getByLabel('New limit (tokens)').fill('5000');
  await hold.getByRole('button', { name: 'Raise and continue' }).click();
  await expect(page.getByText('Second answer.')).toBeVisible({ timeout: 30_000 });
  expect(deskhand.requests()).toHaveLength(3);
  expect(JSON.stringify(deskhand.requests()[1]!.body.messages?.at(-1)?.content)).toContain('Second question.');

  await page.getByRole('button', { name: 'Usage' }).click();
  await expect(usage.getByLabel('Total tokens')).toHaveText('3,000 in (0 from cache) / 300 out');
  await expect(usage.getByLabel('Total model calls')).toHaveText('3 model calls');
  await page.screenshot({ path: artifact(`${deskhand.kind}-usage-page.png`) });
});
