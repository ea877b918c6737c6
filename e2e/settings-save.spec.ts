/**
 * One save model for Settings (issue 52 item 4): every form section has its own Save, says "Unsaved changes" until it
 * is pressed, and saves only its own part (web search and the companion, stored apart, have their own Save too). Each section's change is made, saved and read back after a reload; an
 * unsaved edit in one section is neither saved nor lost by saving another.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support';

const section = (page: Page, title: string) => page.locator('.settings-body').getByRole('group', { name: title, exact: true });

async function save(page: Page, title: string) {
  const card = section(page, title);
  await expect(card.getByText('Unsaved changes')).toBeVisible();
  await card.getByRole('button', { name: `Save ${title}` }).click();
  await expect(card.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect(card.getByText('Unsaved changes')).toHaveCount(0);
  await expect(card.getByRole('button', { name: `Save ${title}` })).toBeDisabled();
}

test('each Settings section saves itself, and its change is there after a reload', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  // Nothing changed: every Save is disabled and no section says it has unsaved changes.
  await expect(page.getByText('Unsaved changes')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Save settings' })).toHaveCount(0);

  // An edit left unsaved in Anthropic, then every other section changed and saved on its own.
  await section(page, 'Anthropic').getByLabel('Model for Anthropic', { exact: true }).fill('claude-unsaved-edit');
  await section(page, 'Provider for new messages').getByRole('radio', { name: 'OpenAI', exact: true }).check();
  await save(page, 'Provider for new messages');
  await section(page, 'OpenAI').getByLabel('Model for OpenAI', { exact: true }).fill('gpt-saved-by-its-section');
  await save(page, 'OpenAI');
  await page.getByLabel('Default policy').selectOption('none');
  await save(page, 'New conversations');
  await page.getByLabel('Keep background command logs (days)').fill('3');
  await save(page, 'Appearance and storage');
  await page.getByRole('group', { name: 'Families loaded in new conversations' }).getByRole('checkbox', { name: /^Computer use/ }).check();
  await save(page, 'Tools for new conversations');
  await page.getByLabel('Add a site to keep signed in').fill('mail.example.com');
  await page.getByRole('button', { name: 'Keep signed in' }).click();
  await save(page, 'Browser');
  // The sections with their own stores (web search, companion) say the same and save with their own button.
  const web = page.getByRole('form', { name: 'Web search' });
  await web.getByRole('radio', { name: /SearXNG/ }).check();
  await web.getByLabel('SearXNG URL').fill('http://127.0.0.1:8888');
  await expect(web.getByText('Unsaved changes')).toBeVisible();
  await web.getByRole('button', { name: 'Save web search' }).click();
  await expect(web.getByText('Web search saved.')).toBeVisible();
  await expect(web.getByText('Unsaved changes')).toHaveCount(0);
  const companion = page.getByRole('region', { name: 'Companion model' });
  await companion.getByLabel('Companion vision model').fill('vision-saved');
  await expect(companion.getByText('Unsaved changes')).toBeVisible();
  await companion.getByRole('button', { name: 'Save companion' }).click();
  await expect(companion.getByText('Companion model saved.')).toBeVisible();
  await expect(companion.getByText('Unsaved changes')).toHaveCount(0);
  // The Anthropic edit is still in its box, still unsaved.
  await expect(section(page, 'Anthropic').getByLabel('Model for Anthropic', { exact: true })).toHaveValue('claude-unsaved-edit');
  await expect(section(page, 'Anthropic').getByText('Unsaved changes')).toBeVisible();

  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByRole('radio', { name: 'OpenAI', exact: true })).toBeChecked();
  await expect(page.getByLabel('Model for OpenAI', { exact: true })).toHaveValue('gpt-saved-by-its-section');
  await expect(page.getByLabel('Model for Anthropic', { exact: true })).not.toHaveValue('claude-unsaved-edit');
  await expect(page.getByLabel('Default policy')).toHaveValue('none');
  await expect(page.getByLabel('Keep background command logs (days)')).toHaveValue('3');
  await expect(page.getByRole('group', { name: 'Families loaded in new conversations' }).getByRole('checkbox', { name: /^Computer use/ })).toBeChecked();
  await expect(page.getByRole('list', { name: 'Keep signed in on these sites' }).getByRole('listitem')).toHaveText(['mail.example.comRemove']);
  await expect(page.getByRole('form', { name: 'Web search' }).getByLabel('SearXNG URL')).toHaveValue('http://127.0.0.1:8888');
  await expect(page.getByRole('region', { name: 'Companion model' }).getByLabel('Companion vision model')).toHaveValue('vision-saved');
  await expect(page.getByText('Unsaved changes')).toHaveCount(0);
});
