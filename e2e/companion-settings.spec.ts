/**
 * Settings → Companion model, proven by effect: the companion chosen on the page (an OpenAI-compatible server — the
 * scripted model server) answers the agent's analyze_media, and that server receives the image as an image part of a
 * request for the model named in Settings. Clearing it turns analyze_media off again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { artifact, expect, test } from './support';

test('the companion model set in Settings answers analyze_media', async ({ deskhand }) => {
  test.setTimeout(180_000);
  writeFileSync(join(deskhand.work, 'dot.png'), await new Jimp(16, 16, 0xdd2222ff).getBufferAsync(Jimp.MIME_PNG));
  await deskhand.startModel([
    { text: ['Asking the companion.'], tools: [{ name: 'analyze_media', args: { path: 'dot.png', question: 'What colour is the dot?' } }] },
    { text: ['The dot is red.'] }, // the companion's answer (same server, the model named in Settings)
    { text: ['Your companion says the dot is red.'] },
  ]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings' }).click();
  const card = page.getByRole('region', { name: 'Companion model' });
  await expect(card.getByLabel('Companion key')).toHaveText(/No companion model/);
  await card.getByLabel('Companion provider').selectOption('openai-compatible');
  await card.getByLabel('Companion vision model').fill('vision-test');
  await card.getByRole('button', { name: 'Save companion' }).click();
  await expect(card.getByRole('alert')).toContainText('needs its base URL'); // refused, nothing saved
  await card.getByLabel('Companion base URL').fill(`${deskhand.modelUrl}/v1`);
  await card.getByLabel('Companion transcription model').fill('hear-test');
  await card.getByLabel('Companion speech model').fill('say-test');
  await card.getByLabel('Companion also models').fill('vision-also, vision-also other-vision');
  await card.getByRole('button', { name: 'Save companion' }).click();
  await expect(card.getByRole('status')).toHaveText('Companion model saved.');
  await card.screenshot({ path: artifact(`${deskhand.kind}-companion-settings.png`) });
  // Saved where the CLI and the tools read it.
  await page.reload();
  await page.getByRole('button', { name: 'Settings' }).click();
  const reloaded = page.getByRole('region', { name: 'Companion model' });
  await expect(reloaded.getByLabel('Companion vision model')).toHaveValue('vision-test');
  await expect(reloaded.getByLabel('Companion transcription model')).toHaveValue('hear-test');
  await expect(reloaded.getByLabel('Companion speech model')).toHaveValue('say-test');
  // The duplicate is dropped; the list comes back as saved.
  await expect(reloaded.getByLabel('Companion also models')).toHaveValue(/^vision-also,? other-vision$/);
  await page.getByRole('button', { name: 'Back to conversations' }).click();

  await deskhand.newConversation('Dots');
  await deskhand.send('What colour is dot.png?');
  // A workspace file to a third party: high-risk egress, so the person approves it first, seeing what goes where;
  // nothing reached the companion before.
  const approval = page.getByRole('region', { name: 'Ask about a media file' });
  await expect(approval).toContainText('dot.png');
  await expect(approval).toContainText('vision-test');
  expect(deskhand.requests().some((r) => (r.body as { model?: string }).model === 'vision-test')).toBe(false);
  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Your companion says the dot is red.');

  const companion = deskhand.requests().find((r) => (r.body as { model?: string }).model === 'vision-test');
  expect(companion, 'the companion request reached the server').toBeTruthy();
  const parts = companion!.body.messages![0]!.content as { type: string; image_url?: { url: string }; text?: string }[];
  expect(parts.find((p) => p.type === 'text')?.text).toBe('What colour is the dot?');
  expect(parts.find((p) => p.type === 'image_url')?.image_url?.url).toMatch(/^data:image\/png;base64,/);

  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('region', { name: 'Companion model' }).getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByRole('region', { name: 'Companion model' }).getByLabel('Companion key')).toHaveText(/No companion model/);
});
