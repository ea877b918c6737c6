/**
 * A conversation another process continues shows up in the open transcript without a reload: `deskhand run
 * --conversation` (what a reminder's fire or a script does, with the app open) writes to the same data dir, and the
 * page shows the person's words from the terminal and the reply as they were stored.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, ROOT, test } from './support';

test('an open conversation continued by another process shows the new turn without a reload', async ({ deskhand }) => {
  test.skip(deskhand.kind !== 'web', 'the CLI and the web host share the data dir here');
  await deskhand.startModel([{ text: ['First reply, from the app.'] }, { text: ['Second reply, to the terminal.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Shared');
  await deskhand.send('hello from the app');
  await expect(page.getByText('First reply, from the app.')).toBeVisible();
  const id = /c=([A-Za-z0-9_-]+)/.exec(new URL(page.url()).hash)?.[1];
  expect(id).toMatch(/^conv_/);

  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test', DESKHAND_NOTIFY: 'off' };
  delete env.DESKHAND_HOME;
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/deskhand.js'), 'run', '--conversation', id!, '--provider', 'openai-compatible', '--base-url', `${deskhand.modelUrl}/v1`, '--model', 'scripted', '--data-dir', deskhand.dataDir, 'typed in a terminal'],
    { env, encoding: 'utf8', timeout: 90_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  // The model was asked with the app's turn in its history: the same conversation, continued elsewhere.
  expect(JSON.stringify(deskhand.requests().at(-1)!.body.messages)).toContain('First reply, from the app.');

  const transcript = page.getByRole('log');
  await expect(transcript.getByText('typed in a terminal')).toBeVisible();
  await expect(transcript.getByText('Second reply, to the terminal.')).toBeVisible();
  await expect(transcript.getByText('First reply, from the app.')).toHaveCount(1);
});
