/**
 * A subagent's request from an unattended run, answered in the app: `deskhand run --json` parks (exit 3) because its
 * foreground child asks to write a file nobody there can approve. The web UI on the same data dir lists the request in
 * Approvals with the child named and the run paused; the card in the parent's conversation says which subagent asks;
 * approving it there resumes the whole tree: the child writes (the file's bytes) and the parent finishes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, ROOT, test } from './support';

test("a parked child's request appears in Approvals with the child named; approving it in the app resumes the tree", async ({ deskhand }) => {
  test.skip(deskhand.kind !== 'web', 'the CLI and the web host share the data dir here');
  await deskhand.startModel(
    [
      { tools: [{ name: 'spawn_subagent', args: { prompt: 'CHILD-WRITE: create a.txt', description: 'writer of a.txt' } }] },
      { text: ['Parent done after the child.'] },
    ],
    { routes: { 'CHILD-WRITE': [{ tools: [{ name: 'write_file', args: { path: 'a.txt', content: 'from the child\n' } }] }, { text: ['wrote a.txt'] }] } },
  );
  // As the web host beside it (e2e/support.ts): a workspace write asks here, it is this spec's example of a request.
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test', DESKHAND_CONFINED: process.env.DESKHAND_CONFINED ?? 'ask' };
  delete env.DESKHAND_HOME;
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/deskhand.js'), 'run', '--provider', 'openai-compatible', '--base-url', `${deskhand.modelUrl}/v1`, '--model', 'scripted', '--policy', 'read-only', '--cwd', deskhand.work, '--data-dir', deskhand.dataDir, '--json', 'PARENT: delegate the write'],
    { env, encoding: 'utf8', timeout: 90_000 },
  );
  expect(run.status, run.stderr).toBe(3);
  expect(existsSync(join(deskhand.work, 'a.txt'))).toBe(false);

  const page = await deskhand.start();
  await expect(page.getByRole('button', { name: 'Approvals waiting: 1' })).toBeVisible();
  const item = page.getByRole('complementary', { name: 'Approvals waiting' }).getByRole('button', { name: /^Review: Write a file/ });
  await expect(item).toContainText('Subagent (coder) “writer of a.txt” · paused');
  await item.click();

  const card = deskhand.approvalCard();
  await expect(card.getByTestId('approval-subagent')).toContainText(/Asked by subagent sub_[0-9a-f]{8} \(coder\): writer of a\.txt/);
  await expect(card).toContainText('paused run — approving resumes it');
  await page.screenshot({ path: artifact(`${deskhand.kind}-parked-child-approval.png`) });

  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Parent done after the child.')).toBeVisible({ timeout: 30_000 });
  expect(readFileSync(join(deskhand.work, 'a.txt'), 'utf8')).toBe('from the child\n');
  // The parent's last request carried the child's answer (its spawn_subagent call ran again and rejoined the child).
  const parentLast = deskhand.requests().filter((r) => !JSON.stringify(r.body.messages?.find((m) => m.role === 'user')?.content ?? '').includes('CHILD-WRITE')).at(-1)!;
  expect(JSON.stringify(parentLast.body.messages?.at(-1)?.content)).toContain('wrote a.txt');
  await expect(page.getByRole('button', { name: 'Approvals waiting: 0' })).toBeVisible();
});
