/**
 * A secret the model asks for (ask_user_secret) is typed into a masked field on the approval card, saved to the OS
 * keyring through main, and used by the next command as [redacted:NAME]: the value never shows up in the page, in
 * anything the window receives, or in what the model is sent. Needs a real keyring (scripts/test.sh starts one).
 */
import { artifact, expect, test } from './support';

const NAME = 'E2E_UI_TOKEN';

async function keyringAnswers(service: string): Promise<boolean> {
  try {
    const keytar = (await import('keytar')).default;
    await keytar.findCredentials(service);
    return true;
  } catch {
    return false;
  }
}

test('asks for a secret with a masked field, saves it to the keyring, and never shows it to the page or the model', async ({ deskhand }) => {
  test.skip(!(await keyringAnswers(deskhand.keyringService)), 'no OS keyring (Secret Service) in this session; scripts/test.sh starts gnome-keyring');
  const VALUE = `e2e-secret-${Math.random().toString(36).slice(2)}-value`;
  await deskhand.startModel([
    { text: ['I need the deploy token.'], tools: [{ name: 'ask_user_secret', args: { name: NAME, description: 'deploy token for the e2e test', prompt: 'Paste the deploy token' } }] },
    { tools: [{ name: 'execute_command', args: { command: `echo "token=[redacted:${NAME}]"` } }] },
    { text: ['Deployed with the token.'] },
  ]);
  const frames: string[] = [];
  if (deskhand.kind === 'web') deskhand.pageForListeners()!.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
  const page = await deskhand.start();
  await deskhand.newConversation('Deploy');
  await deskhand.send('Deploy with my token');

  const card = page.getByRole('region', { name: 'Enter a secret' });
  await expect(card).toBeVisible();
  await expect(card).toContainText(NAME);
  await expect(card).toContainText('deploy token for the e2e test');
  await expect(card).toContainText('Paste the deploy token');
  // Typing a value or denying are the answers; there is no plain Approve.
  await expect(card.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Always allow' })).toHaveCount(0);
  const field = card.getByLabel(`Secret value for ${NAME}`);
  await expect(field).toHaveAttribute('type', 'password');
  await expect(field).toHaveAttribute('autocomplete', 'off');
  await expect(card.getByRole('button', { name: 'Save secret' })).toBeDisabled();
  await field.fill(VALUE);
  await card.screenshot({ path: artifact(`${deskhand.kind}-secret-request.png`) });
  await card.getByRole('button', { name: 'Save secret' }).click();
  await expect(card).toBeHidden();

  // The command that uses it asks first, and shows only the placeholder.
  const command = page.getByRole('region', { name: 'Run a command' });
  await expect(command).toBeVisible();
  await expect(command).toContainText(`[redacted:${NAME}]`);
  await command.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Deployed with the token.')).toBeVisible();
  const tool = page.getByRole('article', { name: 'Tool call execute_command: done' });
  await tool.getByRole('button').first().click();
  await expect(tool.getByLabel('Output of execute_command')).toContainText(`token=[redacted:${NAME}]`);

  // Saved in the keyring; nowhere in the page, in what the window received, or in what the model was sent.
  const keytar = (await import('keytar')).default;
  try {
    expect(await keytar.getPassword(deskhand.keyringService, `secret.${NAME}`)).toBe(VALUE);
    expect(await page.content()).not.toContain(VALUE);
    // Every WebSocket frame the page received (web; Electron's IPC carries the same events, checked in test/host).
    if (deskhand.kind === 'web') expect(frames.length).toBeGreaterThan(0);
    expect(frames.join('\n')).not.toContain(VALUE);
    const requests = deskhand.requests();
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests)).not.toContain(VALUE);
    expect(JSON.stringify(requests[2]!.body)).toContain(`token=[redacted:${NAME}]`);
  } finally {
    await keytar.deletePassword(deskhand.keyringService, `secret.${NAME}`);
  }
});

test('a use_saved_secret approval names the saved secret it would use', async ({ deskhand }) => {
  test.skip(!(await keyringAnswers(deskhand.keyringService)), 'no OS keyring (Secret Service) in this session; scripts/test.sh starts gnome-keyring');
  const keytar = (await import('keytar')).default;
  await keytar.setPassword(deskhand.keyringService, 'secret.SAVED_E2E', 'saved-value-e2e-1234');
  try {
    await deskhand.startModel([{ tools: [{ name: 'use_saved_secret', args: { name: 'SAVED_E2E' } }] }, { text: ['Not using it then.'] }]);
    const page = await deskhand.start();
    await deskhand.newConversation('Saved');
    await deskhand.send('Use the saved token');
    const card = page.getByRole('region', { name: 'Use a saved secret' });
    await expect(card.getByRole('note', { name: 'Saved secret' })).toContainText('SAVED_E2E');
    await expect(card).toContainText('[redacted:SAVED_E2E]');
    await expect(card.getByRole('button', { name: 'Approve' })).toBeVisible();
    await card.getByRole('button', { name: 'Deny' }).click();
    await expect(page.getByText('Not using it then.')).toBeVisible();
    expect(await page.content()).not.toContain('saved-value-e2e-1234');
  } finally {
    await keytar.deletePassword(deskhand.keyringService, 'secret.SAVED_E2E');
  }
});
