/**
 * generate_media's results in the conversation, proven by effect: the companion set in Settings (with extra image and
 * speech models the call may pick) is the scripted model server; the agent asks for an image from one of the extra
 * image models and for speech from one of the extra speech models; each approval names the model; after approval the
 * image shows inline in its tool card (decoded: naturalWidth > 0; its bytes are the file written) and the speech plays
 * in an audio player (its duration loads; its bytes are the file written). The server's log shows the chosen models.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { artifact, expect, test } from './support';

/** The bytes behind a media element's src: the data URL the host handed over (the page's CSP lets no fetch read it). */
async function srcBytes(el: Locator): Promise<Buffer> {
  const src = await el.evaluate((node) => {
    const m = node as unknown as { currentSrc: string; src: string };
    return m.currentSrc || m.src;
  });
  const m = /^data:[\w/.+-]+;base64,(.*)$/.exec(src);
  expect(m, 'the source is a data URL').toBeTruthy();
  return Buffer.from(m![1]!, 'base64');
}

test('an image and speech made by generate_media show in the conversation', async ({ deskhand }) => {
  test.setTimeout(180_000);
  await deskhand.startModel([
    { text: ['Drawing it.'], tools: [{ name: 'generate_media', args: { kind: 'image', prompt: 'a small dot', path: 'art/dot.png', model: 'draw-b' } }] },
    { text: ['Now saying it.'], tools: [{ name: 'generate_media', args: { kind: 'audio', prompt: 'The dot is ready.', path: 'dot.wav', model: 'say-b' } }] },
    { text: ['Made the picture and the sound.'] },
  ]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings' }).click();
  const card = page.getByRole('region', { name: 'Companion model' });
  await card.getByLabel('Companion provider').selectOption('openai-compatible');
  await card.getByLabel('Companion vision model').fill('vision-test');
  await card.getByLabel('Companion image model').fill('draw-a');
  await card.getByLabel('Companion also image models').fill('draw-b');
  await card.getByLabel('Companion speech model').fill('say-a');
  await card.getByLabel('Companion also speech models').fill('say-b, say-c');
  await card.getByLabel('Companion base URL').fill(`${deskhand.modelUrl}/v1`);
  await card.getByRole('button', { name: 'Save companion' }).click();
  await expect(card.getByRole('status')).toHaveText('Companion model saved.');
  const saved = JSON.parse(readFileSync(join(deskhand.dataDir, 'companion.json'), 'utf8')) as { imageModels: string[]; speechModels: string[] };
  expect(saved).toMatchObject({ imageModels: ['draw-b'], speechModels: ['say-b', 'say-c'] });
  await page.getByRole('button', { name: 'Back to conversations' }).click();

  await deskhand.newConversation('Dot');
  await deskhand.send('Draw a dot and say it is ready.');
  const generations = () => deskhand.requests().filter((r) => (r as { path?: string }).path === '/v1/images/generations');
  const speech = () => deskhand.requests().filter((r) => (r as { path?: string }).path === '/v1/audio/speech');

  // The image: asked first (a prompt to a third party), naming the model the call chose; nothing sent before.
  const askImage = page.getByRole('region', { name: 'Make an image or speech' });
  await expect(askImage).toContainText('model draw-b');
  expect(generations()).toHaveLength(0);
  await askImage.getByRole('button', { name: 'Approve' }).click();
  const img = page.getByRole('figure', { name: 'Image made by draw-b' }).locator('img');
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el) => {
        const i = el as unknown as { complete: boolean; naturalWidth: number };
        return i.complete ? i.naturalWidth : 0;
      })).toBeGreaterThan(0);
  const dot = readFileSync(join(deskhand.work, 'art', 'dot.png'));
  expect((await srcBytes(img)).equals(dot)).toBe(true);
  await expect(page.getByRole('figure', { name: 'Image made by draw-b' })).toContainText(join(deskhand.work, 'art', 'dot.png'));
  expect(generations().map((r) => (r.body as { model?: string }).model)).toEqual(['draw-b']);

  // The speech: the same, with an audio player whose source loads.
  const askSpeech = page.getByRole('region', { name: 'Make an image or speech' });
  await expect(askSpeech).toContainText('model say-b');
  expect(speech()).toHaveLength(0);
  await askSpeech.getByRole('button', { name: 'Approve' }).click();
  const audio = page.getByRole('figure', { name: 'Speech made by say-b' }).locator('audio');
  await expect(audio).toBeVisible();
  await expect.poll(() => audio.evaluate((el) => {
        const d = (el as unknown as { duration: number }).duration;
        return Number.isFinite(d) ? d : 0;
      })).toBeGreaterThan(0);
  const wav = readFileSync(join(deskhand.work, 'dot.wav'));
  expect((await srcBytes(audio)).equals(wav)).toBe(true);
  expect(speech().map((r) => r.body)).toEqual([{ model: 'say-b', input: 'The dot is ready.', voice: 'alloy', response_format: 'wav' }]);

  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Made the picture and the sound.');
  await page.getByRole('figure', { name: 'Image made by draw-b' }).screenshot({ path: artifact(`${deskhand.kind}-media-artifact.png`) });
});
