/**
 * Memory extraction is chosen at first run (issue 34 item 20): the first-run screen offers it with its cost in words
 * (one more model request per turn, the turn's text sent again), unticked; left unticked, a turn makes one model
 * request and Settings → Memory shows it off; ticked, the turn is followed by the extraction request.
 */
import { expect, test, type Deskhand } from './support';

async function setUp(deskhand: Deskhand, remember: boolean) {
  const page = await deskhand.start({
    providerFlags: false,
    env: { DESKHAND_OLLAMA_URL: deskhand.modelUrl, ANTHROPIC_API_KEY: null, OPENAI_API_KEY: null, DESKHAND_MEMORY_EXTRACTION: null },
  });
  const setup = page.getByRole('main', { name: 'Set up Deskhand' });
  await expect(setup.getByRole('radio', { name: 'Ollama on this computer' })).toBeChecked();
  const choice = setup.getByRole('checkbox', { name: /Remember things from conversations/ });
  await expect(choice).not.toBeChecked();
  await expect(choice).toHaveAccessibleDescription(/one more model request per turn/);
  await expect(choice).toHaveAccessibleDescription(/sends that turn's text to the model/);
  if (remember) await choice.check();
  await setup.getByRole('button', { name: 'Save and start' }).click();
  await expect(setup).toBeHidden();
  return page;
}

const extraction = /Propose memories automatically/;

test('left unticked, memory extraction stays off: one model request per turn', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Hello one.'] }, { text: ['Hello two.'] }, { text: ['{"records": []}'] }], { models: ['scripted'] });
  const page = await setUp(deskhand, false);
  await deskhand.newConversation('Plain');
  await deskhand.send('I always use pnpm.');
  await expect(page.getByText('Hello one.')).toBeVisible();
  await deskhand.send('And tabs.');
  await expect(page.getByText('Hello two.')).toBeVisible();
  // Two turns, two requests: no side call read either turn.
  expect(deskhand.requests()).toHaveLength(2);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('checkbox', { name: extraction })).not.toBeChecked();
});

test('ticked at first run, each turn is followed by the extraction request', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Hello.'] }, { text: ['{"records": []}'] }], { models: ['scripted'] });
  const page = await setUp(deskhand, true);
  await deskhand.newConversation('Remembering');
  await deskhand.send('I always use pnpm.');
  await expect(page.getByText('Hello.')).toBeVisible();
  await expect.poll(() => deskhand.requests().length).toBe(2);
  expect(JSON.stringify(deskhand.requests()[1]!.body)).toContain('I always use pnpm.');
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('checkbox', { name: extraction })).toBeChecked();
});
