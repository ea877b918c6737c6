/**
 * What a person does with Deskhand, in a real browser against `deskhand web` (and in Electron where a binary exists):
 * chat with streamed text, approve a write from its diff, deny with a reason the model receives, restart and carry on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

test('sends a message and shows the reply as it streams', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Hello', ' from', ' the', ' scripted', ' model.\n\n', '```ts\nconst answer = 42; // the answer\n```'], delayMs: 150 }]);
  const page = await deskhand.start();
  await deskhand.newConversation('First steps');
  // Page-side code as a string: specs are type-checked for Node, without DOM types. Records every state of the reply
  // as the DOM changes, with whether Stop was offered at that moment, so streaming is proven without racing it.
  await page.evaluate(`(() => {
    const seen = (window.__seen = []);
    new MutationObserver(() => {
      const text = document.querySelector('[aria-label="Deskhand"]')?.textContent ?? '';
      const stop = [...document.querySelectorAll('button')].some((b) => b.textContent === 'Stop');
      const last = seen[seen.length - 1];
      if (text && (!last || last.text !== text || last.stop !== stop)) seen.push({ text, stop });
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
  await deskhand.send('Say hello');

  const reply = page.getByRole('article', { name: 'Deskhand' });
  await expect(reply).toContainText('Hello from the scripted model.');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const seen = (await page.evaluate('window.__seen')) as { text: string; stop: boolean }[];
  // Partial text was on screen while the run was still going (Stop offered), in several steps.
  expect(seen.some((s) => s.stop && s.text.startsWith('Hello') && !s.text.includes('model.'))).toBe(true);
  expect(new Set(seen.map((s) => s.text)).size).toBeGreaterThanOrEqual(3);
  expect(seen.at(-1)?.stop).toBe(false);
  await expect(reply.locator('code .tok-keyword', { hasText: 'const' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await expect(page.getByRole('article', { name: 'You' })).toContainText('Say hello');
  await page.screenshot({ path: artifact(`${deskhand.kind}-main-window.png`) });
});

test('shows an approval card with the diff, writes the file on Approve, and shows the result', async ({ deskhand }) => {
  await deskhand.startModel([
    { text: ['I will create the notes file.'], tools: [{ name: 'write_file', args: { path: 'notes.txt', content: 'first line\nsecond line\n' } }] },
    { text: ['Wrote notes.txt.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation();
  await deskhand.send('Create notes.txt');

  const card = deskhand.approvalCard();
  await expect(card).toBeVisible();
  await expect(card.getByText('high risk')).toBeVisible();
  await expect(card).toContainText('Create notes.txt (2 lines');
  await expect(card).toContainText('does not clear high-risk');
  const diff = card.getByRole('table', { name: /Preview of write_file: 2 lines added, 0 removed/ });
  await expect(diff.getByRole('row').filter({ hasText: 'first line' })).toContainText('1');
  await expect(diff.getByRole('row').filter({ hasText: 'second line' })).toContainText('2');
  await expect(page.getByRole('button', { name: 'Approvals waiting: 1' })).toBeVisible();
  // Typing in the composer does not move focus to the card.
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  expect(existsSync(join(deskhand.work, 'notes.txt'))).toBe(false);
  await card.screenshot({ path: artifact(`${deskhand.kind}-approval-card.png`) });
  await page.screenshot({ path: artifact(`${deskhand.kind}-main-window-approval.png`) });

  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Wrote notes.txt.');
  await expect(card).toBeHidden();
  expect(readFileSync(join(deskhand.work, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');

  const tool = page.getByRole('article', { name: 'Tool call write_file: done' });
  await tool.getByRole('button').first().click();
  await expect(tool.getByLabel('Output of write_file')).toContainText('Created notes.txt');
  await expect(page.getByRole('button', { name: 'Approvals waiting: 0' })).toBeVisible();
});

test('denies with a reason, and the model receives the reason', async ({ deskhand }) => {
  await deskhand.startModel([{ tools: [{ name: 'write_file', args: { path: 'secrets.txt', content: 'nope\n' } }] }, { text: ['Understood, I will not write it.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation();
  await deskhand.send('Write secrets.txt');

  const card = deskhand.approvalCard();
  await card.getByRole('textbox', { name: /Reason for denying/ }).fill('Keep secrets out of this folder');
  await card.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByText('Understood, I will not write it.')).toBeVisible();
  await expect(page.getByRole('article', { name: 'Tool call write_file: denied' })).toBeVisible();
  expect(existsSync(join(deskhand.work, 'secrets.txt'))).toBe(false);

  const requests = deskhand.requests();
  expect(requests).toHaveLength(2);
  const toolMessages = (requests[1]!.body.messages ?? []).filter((m) => m.role === 'tool');
  expect(JSON.stringify(toolMessages)).toContain('Keep secrets out of this folder');
});

test('after a restart the conversation, the pending approval and the parked run are there; approving resumes it', async ({ deskhand }) => {
  await deskhand.startModel([
    { text: ['Let me write the report.'], tools: [{ name: 'write_file', args: { path: 'report.md', content: '# Report\n' } }] },
    { text: ['Resumed and finished the report.'] },
  ]);
  let page = await deskhand.start();
  await deskhand.newConversation('Quarterly report');
  await deskhand.send('Write the report');
  await expect(deskhand.approvalCard()).toBeVisible();

  page = await deskhand.restart();
  await expect(page.getByRole('button', { name: 'Approvals waiting: 1' })).toBeVisible();
  const entry = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Quarterly report, waiting for approval' });
  await expect(entry).toBeVisible();

  // Open it from the approvals panel, as a person coming back would.
  await page.getByRole('complementary', { name: 'Approvals waiting' }).getByRole('button', { name: /Review: Write a file in Quarterly report/ }).click();
  const card = deskhand.approvalCard();
  await expect(card).toBeFocused();
  await expect(card).toContainText('paused run — approving resumes it');
  await expect(page.getByText('paused for approval')).toBeVisible();
  await expect(page.getByRole('article', { name: 'Deskhand' })).toContainText('Let me write the report.');

  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Resumed and finished the report.')).toBeVisible();
  expect(readFileSync(join(deskhand.work, 'report.md'), 'utf8')).toBe('# Report\n');
  await expect(page.getByRole('button', { name: 'Approvals waiting: 0' })).toBeVisible();
});

test('shows failures plainly: a refused tool call and a model API error', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Trying a tool.'], tools: [{ name: 'no_such_tool', args: { x: 1 } }] }, { status: 401 }]);
  const page = await deskhand.start();
  await deskhand.newConversation();
  await deskhand.send('Do something odd');

  const tool = page.getByRole('article', { name: 'Tool call no_such_tool: failed' });
  await expect(tool).toBeVisible();
  await tool.getByRole('button').first().click();
  await expect(tool.getByLabel('Output of no_such_tool')).toContainText('Unknown tool "no_such_tool"');
  await expect(page.getByRole('alert').filter({ hasText: 'The run failed' })).toContainText('refused the key (401)');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
});
