/**
 * A peer's request as the person at the desk sees it: another person's agent (here the A2A SDK's own client, with the
 * token `deskhand peers add` made) asks this Deskhand, through `deskhand peers serve`, to write a file. The peer's
 * conversation appears in the sidebar, labelled with the peer; the write its allow list names still asks, and the
 * approval card says it is within that peer's ceiling; approving it in the app lets the write happen (the file's
 * bytes, in the peer's own folder under the served one) and the peer's stream ends with the model's answer.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bearer, sdkClient, textMessage } from '../test/support/a2a';
import { expect, ROOT, test } from './support';

const BIN = join(ROOT, 'bin/deskhand.js');
const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test', DESKHAND_NOTIFY: 'off' };
  delete e.DESKHAND_HOME;
  return e;
};

/** `deskhand peers serve` on this data dir; its address is its first line. */
async function servePeers(dataDir: string, folder: string, modelBaseURL: string) {
  const child = spawn(process.execPath, [BIN, 'peers', 'serve', '--data-dir', dataDir, '--folder', folder, '--provider', 'openai', '--base-url', modelBaseURL, '--model', 'scripted', '--json'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`peers serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  return { url, stop: async () => (child.exitCode === null && child.kill('SIGTERM'), await exited) };
}

test("a peer's conversation appears labelled with the peer, and its approval card names the peer's ceiling", async ({ deskhand }) => {
  test.skip(deskhand.kind !== 'web', 'peers serve and the web host share the data dir here');
  test.setTimeout(180_000);
  await deskhand.startModel([{ tools: [{ name: 'write_file', args: { path: 'from-alice.txt', content: 'hello from alice\n' } }] }, { text: ['Written, as you asked.'] }]);
  const page = await deskhand.start();
  const added = spawnSync(process.execPath, [BIN, 'peers', 'add', 'alice', '--tier', 'internal', '--allow', 'write_file', '--data-dir', deskhand.dataDir, '--json'], { env: env(), encoding: 'utf8', timeout: 60_000 });
  expect(added.status, added.stderr).toBe(0);
  const alice = JSON.parse(added.stdout) as { inboundToken: string };
  let served: Awaited<ReturnType<typeof servePeers>> | null = null;
  try {
    served = await servePeers(deskhand.dataDir, deskhand.work, `${deskhand.modelUrl}/v1`);
    const client = await sdkClient(served.url);
    const texts: string[] = [];
    const stream = (async () => {
      for await (const ev of client.sendMessageStream(await textMessage('Please write from-alice.txt.'), bearer(alice.inboundToken)) as AsyncGenerator<unknown>) {
        const status = (ev as { payload?: { value: { status?: { message?: { parts: { content?: { $case: string; value: string } }[] } } } } }).payload?.value.status;
        for (const part of status?.message?.parts ?? []) if (part.content?.$case === 'text') texts.push(part.content.value);
      }
    })();

    // The peer's conversation, in the sidebar, labelled with the peer.
    await expect(deskhand.sidebarEntry(/^Peer alice/)).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Approvals waiting: 1' })).toBeVisible({ timeout: 60_000 });
    await page.getByRole('complementary', { name: 'Approvals waiting' }).getByRole('button', { name: /^Review: Write a file/ }).click();
    const card = deskhand.approvalCard();
    await expect(card).toContainText("within peer alice's ceiling");
    await expect(card).toContainText('from-alice.txt');
    await card.getByRole('button', { name: 'Approve' }).click();

    await stream;
    expect(texts.at(-1)).toBe('Written, as you asked.');
    expect(readFileSync(join(deskhand.work, 'alice', 'from-alice.txt'), 'utf8')).toBe('hello from alice\n');
  } finally {
    await served?.stop();
  }
});
