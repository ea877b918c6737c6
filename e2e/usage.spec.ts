/**
 * The Usage page, budgets and compaction in the app: a compaction's record (what was dropped, the summary) shows in the
 * transcript; a turn's tokens (as the scripted model reported them) appear on the Usage
 * page by kind of work, with the cost "unknown" for a model without a price; a conversation budget set there pauses the
 * next turn before its model call (no request reaches the model), and "Raise and continue" on the card in the
 * conversation resumes it to the end; the page then counts every call.
 */
import { artifact, expect, test } from './support';

test('the Usage page counts the calls, and a conversation budget pauses a turn that a raise resumes', async ({ deskhand }) => {
  await deskhand.startModel([
    // The first turn compacts its context (summarize_context): the record shows in the transcript.
    { tools: [{ name: 'summarize_context', args: { focus: 'the question' } }], usage: { input: 1000, output: 100 } },
    { text: ['SUMMARY-E2E: the person asked a first question.'], usage: { input: 500, output: 50 } },
    { text: ['First answer.'], usage: { input: 1000, output: 100 } },
    { tools: [{ name: 'get_time', args: {} }], usage: { input: 1000, output: 100 } },
    { text: ['Second answer.'], usage: { input: 1000, output: 100 } },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Budgeted');
  await deskhand.send(`First question. ${'Background for the question. '.repeat(150)}`);
  await expect(page.getByText('First answer.')).toBeVisible();
  const record = page.getByRole('article', { name: 'Context compacted' });
  await expect(record).toContainText('because Deskhand asked for it (summarize_context): 1 earlier messages');
  await record.getByText('What was dropped').click();
  await expect(record.getByRole('list', { name: 'Dropped messages' })).toContainText(/A message to Deskhand, [\d,]+ characters/);
  await record.getByText('The summary the model sees instead').click();
  await expect(record).toContainText('SUMMARY-E2E: the person asked a first question.');

  await page.getByRole('button', { name: 'Usage' }).click();
  const usage = page.getByRole('main', { name: 'Usage' });
  await expect(usage.getByLabel('Total tokens')).toHaveText('2,500 in (0 from cache) / 250 out');
  await expect(usage.getByLabel('Total cost')).toHaveText('unknown (no price for scripted)');
  const work = usage.getByRole('region', { name: 'By kind of work' });
  await expect(work.getByRole('row', { name: /Conversation turns/ })).toContainText('2,000');
  await expect(work.getByRole('row', { name: /Compaction/ })).toContainText('500');
  await expect(usage.getByRole('region', { name: 'By conversation' }).getByRole('row', { name: /Budgeted/ })).toContainText('100%');

  const budget = usage.getByRole('region', { name: 'Budget for “Budgeted”' });
  await budget.getByLabel('Tokens').fill('3500');
  await budget.getByRole('button', { name: 'Save conversation budget' }).click();
  await expect(page.getByText('Budget for “Budgeted” saved.')).toBeVisible();
  await page.getByRole('button', { name: 'Back to conversations' }).click();

  // 2,750 spent; the next call is estimated at the last one's size (1,100), which would cross 3,500: it pauses first.
  await deskhand.send('Second question.');
  const hold = page.getByRole('group', { name: 'Budget reached' });
  await expect(hold).toContainText("Budget reached: 2,750 tokens spent of 3,500 tokens (this conversation's budget) — raise it, or stop.");
  expect(deskhand.requests()).toHaveLength(3);
  await page.screenshot({ path: artifact(`${deskhand.kind}-budget-hold.png`) });

  await hold.getByLabel('New limit (tokens)').fill('10000');
  await hold.getByRole('button', { name: 'Raise and continue' }).click();
  await expect(page.getByText('Second answer.')).toBeVisible({ timeout: 30_000 });
  expect(deskhand.requests()).toHaveLength(5);
  expect(JSON.stringify(deskhand.requests()[3]!.body.messages?.at(-1)?.content)).toContain('Second question.');

  await page.getByRole('button', { name: 'Usage' }).click();
  await expect(usage.getByLabel('Total tokens')).toHaveText('4,500 in (0 from cache) / 450 out');
  await expect(usage.getByLabel('Total model calls')).toHaveText('5 model calls');
  await page.screenshot({ path: artifact(`${deskhand.kind}-usage-page.png`) });
});
