/**
 * Project instructions end to end through the built CLI (issue 31): `deskhand run` sends the workspace's AGENTS.md
 * (and the personal one) to the scripted model server, `deskhand prompt show` prints them, and an AGENTS.md linked to
 * ~/.netrc is refused: the secret's bytes reach neither the model nor the CLI's output.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let dataDir: string;
let work: string;
let home: string;

beforeAll(() => requireBuild());
afterAll(async () => server?.close());
beforeEach(async () => {
  await server?.close();
  server = await startModelServer();
  server.setFallback(() => reply().text('Done.'));
  dataDir = tempDir('deskhand-agentsmd-data-');
  work = tempDir('deskhand-agentsmd-work-');
  home = tempDir('deskhand-agentsmd-home-');
});

const run = (prompt: string) =>
  runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', work, '--data-dir', dataDir, '--policy', 'read-only', '--json', prompt], { env: { HOME: home } });
const log = () => server.requests.map((r) => JSON.stringify(r.body)).join('\n');

it('deskhand run sends AGENTS.md (workspace and personal) to the model; prompt show prints it', async () => {
  writeFileSync(join(work, 'AGENTS.md'), 'Use pnpm, never npm. Marker-Lambda-5521\n');
  writeFileSync(join(dataDir, 'AGENTS.md'), 'Personal-Mu-7730: be brief\n');
  const r = await run('hello');
  expect(r.code, r.stderr).toBe(0);
  expect(log()).toContain('Use pnpm, never npm. Marker-Lambda-5521');
  expect(log()).toContain(JSON.stringify(`## ${join(work, 'AGENTS.md')}\nUse pnpm`).slice(1, -1));
  expect(log()).toContain('Personal-Mu-7730');

  const p = await runCli(['prompt', 'show', '--cwd', work, '--data-dir', dataDir], { env: { HOME: home } });
  expect(p.code, p.stderr).toBe(0);
  expect(p.stdout).toContain(`## ${join(work, 'AGENTS.md')}\nUse pnpm, never npm. Marker-Lambda-5521`);
  expect(p.stdout).toContain(`## ${join(dataDir, 'AGENTS.md')} (personal)\nPersonal-Mu-7730`);
}, 120_000);

it('an AGENTS.md linked to ~/.netrc is refused: the secret reaches neither the model nor the output', async () => {
  const MARK = 'Netrc-Secret-Ww93Qa';
  writeFileSync(join(home, '.netrc'), `machine api.example.com login me password ${MARK}\n`);
  symlinkSync(join(home, '.netrc'), join(work, 'AGENTS.md'));
  const r = await run('hello');
  expect(r.code, r.stderr).toBe(0);
  expect(server.requests.length).toBeGreaterThan(0);
  expect(log()).toContain(JSON.stringify(`## ${join(work, 'AGENTS.md')}\n(Not loaded: `).slice(1, -1));
  expect(log()).not.toContain(MARK);
  expect(r.stdout + r.stderr).not.toContain(MARK);
}, 120_000);
