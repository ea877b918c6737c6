/**
 * First run: nothing set up, no provider flags. A local OpenAI-compatible model server that is running (here the
 * scripted model server, standing in for Ollama) is found by main and offered first; "Test connection" makes one real
 * model call and says what happened in plain words; saving it lets the person start working.
 */
import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { artifact, expect, test } from './support';

test('offers the local model server it found, tests the connection in plain words, and saves it', async ({ deskhand }) => {
  await deskhand.startModel(
    [
      { status: 401 }, // the first connection test: refused
      { text: ['OK'] }, // the second: fine
      { text: ['Hello after setup.'] },
    ],
    { models: ['scripted', 'scripted-large'] },
  );
  const page = await deskhand.start({
    providerFlags: false,
    env: { DESKHAND_OLLAMA_URL: deskhand.modelUrl, ANTHROPIC_API_KEY: null, OPENAI_API_KEY: null },
  });

  const setup = page.getByRole('main', { name: 'Set up Deskhand' });
  await expect(setup).toBeVisible();
  const local = setup.getByRole('radio', { name: 'Ollama on this computer' });
  await expect(local).toBeChecked();
  // Found locally, so offered first; then the cloud providers and any OpenAI-compatible URL.
  const radios = setup.getByRole('radio');
  await expect(radios).toHaveCount(4);
  for (const [i, value] of ['local:0', 'anthropic', 'openai', 'compatible'].entries()) await expect(radios.nth(i)).toHaveAttribute('value', value);
  await expect(setup.getByText(`Running at ${deskhand.modelUrl}`)).toBeVisible();
  await expect(setup.getByRole('combobox', { name: 'Model' })).toHaveValue('scripted');

  await setup.getByRole('button', { name: 'Test connection' }).click();
  await expect(setup.getByRole('alert')).toHaveText('The model API refused the key (401). Check the key.');
  await setup.getByRole('button', { name: 'Test connection' }).click();
  await expect(setup.getByRole('status').filter({ hasText: 'Connected' })).toHaveText(/^Connected: scripted answered “OK” in \d+ ms\.$/);
  await page.screenshot({ path: artifact(`${deskhand.kind}-first-run.png`) });

  // The cloud choices ask for what they need.
  await setup.getByRole('radio', { name: 'Anthropic' }).check();
  await expect(setup.getByRole('textbox', { name: /^API key/ })).toHaveAttribute('type', 'password');
  await expect(setup.getByRole('button', { name: 'Test connection' })).toBeDisabled();
  await setup.getByRole('radio', { name: 'Ollama on this computer' }).check();

  await setup.getByRole('button', { name: 'Save and start' }).click();
  await expect(setup).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Welcome to Deskhand' })).toBeVisible();
  // The provider notice never covers the new-conversation dialog's title, and the folder offered says why (issue 52).
  const notice = page.locator('.notice').filter({ hasText: /^Deskhand will use / });
  await expect(notice).toBeVisible();
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await expect(dialog.locator('.folder-why')).toContainText(/Where Deskhand was started|folder of your last conversation|workspace folder/);
  if (await notice.isVisible()) {
    const t = (await dialog.getByRole('heading', { name: 'New conversation' }).boundingBox())!;
    const n = (await notice.boundingBox())!;
    expect(n.y >= t.y + t.height || n.y + n.height <= t.y, 'the notice is clear of the dialog title').toBe(true);
  }
  await page.keyboard.press('Escape');
  await deskhand.newConversation('After setup');
  await expect(page.getByText('openai-compatible · scripted')).toBeVisible();
  await deskhand.send('hi');
  await expect(page.getByText('Hello after setup.')).toBeVisible();
  const requests = deskhand.requests();
  expect(requests).toHaveLength(3);
  expect(requests[2]!.body).toMatchObject({ model: 'scripted' });

  // Saved: the settings page shows it, and a restart does not ask again.
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('radio', { name: /^OpenAI-compatible/ })).toBeChecked();
  await expect(page.getByLabel('Base URL for OpenAI-compatible (Ollama, LM Studio, vLLM…)')).toHaveValue(`${deskhand.modelUrl}/v1`);
  const again = await deskhand.restart();
  await expect(again.getByRole('main', { name: 'Set up Deskhand' })).toBeHidden();
  await expect(deskhand.sidebarEntry('After setup')).toBeVisible();
});

test('"Set up later" leaves the first-run panel for the app, which says where to set a provider up', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start({ providerFlags: false, env: { ANTHROPIC_API_KEY: null, OPENAI_API_KEY: null } });
  const setup = page.getByRole('main', { name: 'Set up Deskhand' });
  await expect(setup.getByText('No local model server is running')).toBeVisible();
  await expect(setup.getByRole('radio', { name: 'Anthropic' })).toBeChecked();
  await setup.getByRole('button', { name: 'Set up later' }).click();
  await expect(page.getByRole('heading', { name: 'Welcome to Deskhand' })).toBeVisible();
});

test('"Look again" finds a local model server started after the panel opened', async ({ deskhand }) => {
  // A port nobody listens on yet: the panel opens with nothing found.
  const later = createServer((req, res) => {
    res.writeHead(req.url === '/api/tags' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === '/api/tags' ? JSON.stringify({ models: [{ name: 'llama3.1:8b' }] }) : '{}');
  });
  await new Promise<void>((r) => later.listen(0, '127.0.0.1', () => r()));
  const port = (later.address() as AddressInfo).port;
  await new Promise((r) => later.close(r));
  try {
    await deskhand.startModel([]);
    const page = await deskhand.start({ providerFlags: false, env: { DESKHAND_OLLAMA_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: null, OPENAI_API_KEY: null } });
    const setup = page.getByRole('main', { name: 'Set up Deskhand' });
    await expect(setup.getByText('No local model server is running')).toBeVisible();
    await expect(setup.getByRole('radio', { name: 'Anthropic' })).toBeChecked();

    // The person starts Ollama, then asks again: it is found and chosen (they had not picked anything).
    await new Promise<void>((r) => later.listen(port, '127.0.0.1', () => r()));
    await setup.getByRole('button', { name: 'Look again' }).click();
    await expect(setup.getByRole('radio', { name: 'Ollama on this computer' })).toBeChecked();
    await expect(setup.getByText(`Running at http://127.0.0.1:${port}`)).toBeVisible();
    await expect(setup.getByText('No local model server is running')).toBeHidden();
  } finally {
    later.closeAllConnections();
    await new Promise((r) => later.close(r));
  }
});

test('started in the home folder, a new conversation is offered the Deskhand folder, made on Create after the dialog said so', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const made = join(deskhand.work, 'Deskhand');
  const page = await deskhand.start({ cwd: homedir(), env: { DESKHAND_WORK_FOLDER: made } });
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New conversation' });
  await expect(dialog.getByLabel('Working folder')).toHaveValue(made);
  await expect(dialog.locator('.folder-why')).toHaveText(/^A folder for Deskhand’s work, so it does not happen in your home folder, where every change would ask\. It does not exist yet: Create makes it\./);
  expect(existsSync(made), 'not made before the person says Create').toBe(false);
  // Browse… starts in its parent while it is not made (nothing to list in it yet), and makes nothing.
  await dialog.getByRole('button', { name: 'Browse…' }).click();
  await expect(dialog.getByRole('region', { name: 'Choose a folder' }).getByLabel('Folder shown')).toHaveText(deskhand.work);
  await dialog.getByRole('button', { name: 'Browse…' }).click();
  expect(existsSync(made)).toBe(false);
  await dialog.getByLabel('Title (optional)').fill('In the Deskhand folder');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  expect(statSync(made).isDirectory()).toBe(true);
  await expect(deskhand.sidebarEntry('In the Deskhand folder')).toBeVisible();

  // The next conversation is offered the folder used last, and says so.
  await page.getByRole('button', { name: 'New conversation' }).first().click();
  await expect(dialog.getByLabel('Working folder')).toHaveValue(made);
  await expect(dialog.locator('.folder-why')).toHaveText('The folder of your last conversation.');
});
