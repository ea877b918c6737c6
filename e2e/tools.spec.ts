/**
 * Tools on demand as a person meets them (issue 31): `/tools` typed in the composer lists what the conversation's
 * agent may use (tier, asks, family, loaded) and the AGENTS.md its prompt carries; the header's Browser switch puts
 * the browser tools in the next model request (the scripted model server's log); Settings shows the system prompt in
 * full with the AGENTS.md path and saves the families new conversations load.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { artifact, expect, test, type RecordedRequestLine } from './support';

const AGENTS = 'Use tabs, never spaces, in this repository (e2e marker 7f3a).';

const toolNames = (r: RecordedRequestLine | undefined): string[] =>
  ((r?.body as { tools?: { function?: { name: string }; name?: string }[] } | undefined)?.tools ?? []).map((t) => t.function?.name ?? t.name ?? '');

/** The row of one tool in the /tools table, its cells: family, tier, asks, loaded. */
const toolRow = (page: Page, name: string) =>
  page.getByRole('table', { name: 'Tools this conversation may use' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

test('/tools lists the tools, the Browser switch loads them into the next request, Settings shows the prompt', async ({ deskhand }) => {
  writeFileSync(join(deskhand.work, 'AGENTS.md'), `${AGENTS}\n`);
  await deskhand.startModel([{ text: ['First answer.'] }, { text: ['Second answer.'] }, { text: ['Third answer.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Tools on demand');

  // `/tools` opens the panel; nothing goes to the model.
  await deskhand.send('/tools');
  const panel = page.getByRole('region', { name: 'Tools of this conversation' });
  await expect(panel).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  expect(deskhand.requests()).toHaveLength(0);
  await expect(toolRow(page, 'read_file').getByRole('cell')).toHaveText(['files', 'read-only', 'no', 'loaded']);
  await expect(toolRow(page, 'write_file').getByRole('cell')).toHaveText(['files', /.+/, 'yes', 'loaded']);
  await expect(toolRow(page, 'browser_navigate').getByRole('cell')).toHaveText(['browser', /.+/, /.+/, 'off']);
  await expect(toolRow(page, 'view_memory').getByRole('cell').last()).toHaveText('on demand');
  // The project instructions in use, by path.
  await expect(panel.getByRole('list', { name: 'Project instruction files in use' })).toContainText(join(deskhand.work, 'AGENTS.md'));
  // M1: not trusted yet (a cloned folder's file); the button pins it, and the first request carries it plain.
  const instructionList = panel.getByRole('list', { name: 'Project instruction files in use' });
  await expect(instructionList).toContainText('workspace: not yet trusted');
  await panel.getByRole('button', { name: 'Trust these instructions' }).click();
  await expect(panel.getByRole('button', { name: 'Trust these instructions' })).toHaveCount(0);
  await expect(instructionList).not.toContainText('not yet trusted');
  await page.screenshot({ path: artifact(`${deskhand.kind}-tools-panel.png`) });

  await deskhand.send('hello');
  await expect(page.getByText('First answer.')).toBeVisible();
  expect(JSON.stringify(deskhand.requests()[0]?.body)).toContain(JSON.stringify(`## ${join(deskhand.work, 'AGENTS.md')}\n${AGENTS}`).slice(1, -1));
  expect(toolNames(deskhand.requests()[0])).toContain('read_file');
  expect(toolNames(deskhand.requests()[0])).not.toContain('browser_navigate');

  // The header's switch turns the browser on for this conversation: the panel and the next request follow.
  const browser = page.getByRole('group', { name: 'Tool families' }).getByRole('switch', { name: 'Browser tools' });
  await expect(browser).not.toBeChecked();
  await browser.click();
  await expect(browser).toBeChecked();
  await expect(toolRow(page, 'browser_navigate').getByRole('cell').last()).toHaveText('loaded');
  await expect(panel.getByRole('list', { name: 'Tool families of this conversation' }).getByRole('listitem').filter({ hasText: 'on in this conversation' })).toContainText('Browser');
  await deskhand.send('and now the browser');
  await expect(page.getByText('Second answer.')).toBeVisible();
  expect(toolNames(deskhand.requests()[1])).toContain('browser_navigate');

  // Kept across a reload (stored with the conversation).
  await page.reload();
  await expect(page.getByRole('group', { name: 'Tool families' }).getByRole('switch', { name: 'Browser tools' })).toBeChecked();

  // Settings: the system prompt in full, with the AGENTS.md it loads.
  await page.getByRole('button', { name: 'Settings' }).click();
  const prompt = page.getByRole('region', { name: 'System prompt' });
  await expect(prompt.getByLabel('System prompt text')).toContainText(AGENTS);
  await expect(prompt.getByLabel('System prompt text')).toContainText('# Project instructions');
  await expect(prompt.getByRole('list', { name: 'Project instruction files in use' })).toContainText(join(deskhand.work, 'AGENTS.md'));
  await prompt.scrollIntoViewIfNeeded();
  await page.screenshot({ path: artifact(`${deskhand.kind}-settings-prompt.png`) });
  // Settings → Tools for new conversations: computer use checked and saved, a new conversation starts with it on.
  await page.getByRole('group', { name: 'Families loaded in new conversations' }).getByRole('checkbox', { name: /^Computer use/ }).check();
  await page.getByRole('button', { name: 'Save Tools for new conversations' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Back to conversations' }).click();
  await deskhand.newConversation('Starts with computer use');
  await expect(page.getByRole('group', { name: 'Tool families' }).getByRole('switch', { name: 'Computer use tools' })).toBeChecked();
  await expect(page.getByRole('group', { name: 'Tool families' }).getByRole('switch', { name: 'Browser tools' })).not.toBeChecked();
  await deskhand.send('hello again');
  await expect(page.getByText('Third answer.')).toBeVisible();
  const third = toolNames(deskhand.requests()[2]);
  expect(third.some((n) => n.startsWith('computer_'))).toBe(true);
  expect(third).not.toContain('browser_navigate');
});
