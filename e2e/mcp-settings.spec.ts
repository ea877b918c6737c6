/**
 * Settings → MCP in `deskhand web`: a broken server added from the form shows "failed" with its last error and the
 * tail of its stderr; server-everything added the same way shows "connected" with its tool count; `deskhand mcp list`
 * (another process, the same data) reports both the same way; Remove takes a server away.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, ROOT, test } from './support';

function cli(args: string[], dataDir: string): string {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e.DESKHAND_HOME;
  return execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), ...args, '--data-dir', dataDir], { env: e, encoding: 'utf8' });
}

test('the MCP health panel shows a broken server\'s error and stderr, and a working server\'s tools', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['ok'] }]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings' }).click();
  const form = page.getByRole('form', { name: 'Add an MCP server' });

  await form.getByLabel('Server name').fill('broken');
  await form.getByLabel('Command').fill(`${process.execPath} ${join(ROOT, 'test/extensions/fake-mcp-server.mjs')} crash-now`);
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByLabel('broken status')).toHaveText('failed');
  await expect(page.getByLabel('broken last error')).toContainText(/exited \(code 2\)|closed/);
  await expect(page.getByLabel('broken stderr')).toContainText('fatal: could not open database /nonexistent/db.sqlite');

  await form.getByLabel('Server name').fill('everything');
  await form.getByLabel('Tier').selectOption('read-only');
  await form.getByLabel('Command').fill(join(ROOT, 'node_modules/.bin/mcp-server-everything'));
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByLabel('everything status')).toHaveText(/connected, \d+ tools/);

  const listed = cli(['mcp', 'list'], deskhand.dataDir);
  expect(listed).toMatch(/everything {2}stdio {2}connected, \d+ tools {2}tier read-only/);
  expect(listed).toMatch(/broken {2}stdio {2}failed[\s\S]*fatal: could not open database/);

  await page.getByRole('button', { name: 'Remove broken' }).click();
  await expect(page.getByLabel('MCP server broken')).toHaveCount(0);
});
