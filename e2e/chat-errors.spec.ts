/**
 * Errors a person can act on and state that is not stale (issue 34, items 4 and 5), in `deskhand web`: a model server
 * that is not running is said in a sentence with Retry and Open Settings; a contract refusal names the field and what
 * to do; "Save and start" waits for a valid URL; and with the server gone, a run is shown as unknown (no "Working…",
 * no Stop) until the page is connected again, then as it really is.
 */
import { expect, test } from './support';

test('a model server that is not running: a sentence with Retry and Open Settings, not ECONNREFUSED', async ({ deskhand }) => {
  deskhand.modelUrl = 'http://127.0.0.1:9'; // nothing listens there
  const page = await deskhand.start();
  await deskhand.newConversation('Nothing listens');
  await deskhand.send('Hello?');
  const failed = page.getByRole('alert').filter({ hasText: 'The run failed' });
  await expect(failed).toContainText('Nothing answered at http://127.0.0.1:9', { timeout: 30_000 });
  await expect(failed).toContainText('Check that it is running, and the address in Settings → Providers');
  await expect(failed).not.toContainText('ECONNREFUSED');
  await expect(failed).not.toContainText('Cannot connect to API');
  await expect(failed.getByRole('button', { name: 'Retry' })).toBeEnabled();
  await failed.getByRole('button', { name: 'Open Settings' }).click();
  await expect(page.getByRole('button', { name: 'Test connection to OpenAI-compatible' })).toBeVisible();
});

test('settings: a refused field is named in words; first run: "Save and start" waits for a valid URL', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start({ providerFlags: false, env: { ANTHROPIC_API_KEY: null, OPENAI_API_KEY: null } });
  const setup = page.getByRole('main', { name: 'Set up Deskhand' });
  await setup.getByRole('radio', { name: 'OpenAI-compatible server' }).check();
  await setup.getByLabel('Model', { exact: true }).fill('scripted');
  const url = setup.getByLabel('Base URL', { exact: true });
  await url.fill('127.0.0.1:8000/v1');
  const save = setup.getByRole('button', { name: 'Save and start' });
  await expect(save).toBeDisabled();
  await expect(setup.getByText('This is not a web address: write it with http:// or https://, like http://127.0.0.1:8000/v1.')).toBeVisible();
  await url.fill(`${deskhand.modelUrl}/v1`);
  await expect(save).toBeEnabled();

  // In Settings, testing a URL the contract refuses says which field and what to write, not "Invalid params for testProvider".
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel(/^Model for OpenAI-compatible/).fill('scripted');
  await page.getByLabel('Base URL for OpenAI-compatible').fill('127.0.0.1:8000/v1');
  await page.getByRole('button', { name: 'Test connection to OpenAI-compatible' }).click();
  const refused = page.getByRole('alert').filter({ hasText: 'Base URL' });
  await expect(refused).toHaveText('The Base URL is not a web address: write it with http:// or https://, like http://127.0.0.1:8000/v1. Correct it and try again.');
  await expect(page.getByText(/Invalid params/)).toHaveCount(0);
});

test('with the server gone the run shows as unknown, then as it really is once connected again', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', 'The desktop app has no connection to lose.');
  await deskhand.startModel([{ hang: true }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Gone');
  await deskhand.send('Think for a long time');
  await expect(page.getByText('Working…')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  // The sidebar hears of the run through the conversation list, which may come after the run's own events.
  await expect(deskhand.sidebarEntry('Gone, running')).toBeVisible({ timeout: 20_000 });

  await deskhand.restartServer(async () => {
    // Server down: nothing claims the run is still working, and there is no Stop for it.
    await expect(page.getByText(/Disconnected/)).toBeVisible();
    await expect(page.getByText('state unknown', { exact: true })).toBeVisible();
    await expect(page.getByText(/whether this run is still working is unknown/)).toBeVisible();
    await expect(page.getByText('Working…')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
    await expect(deskhand.sidebarEntry('Gone, state unknown while disconnected')).toBeVisible();
  });

  // Back: the run did not survive the restart, and the page says so (no run, Send offered again).
  await expect(page.getByText(/Disconnected/)).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByText('state unknown', { exact: true })).toHaveCount(0);
  await expect(page.getByText('Working…')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(deskhand.sidebarEntry('Gone')).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill('Are you there?');
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
});
