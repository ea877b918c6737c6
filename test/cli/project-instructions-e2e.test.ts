/**
 * Project instructions end to end through the built CLI (issue 31): `deskhand run` sends the workspace's AGENTS.md
 * (and the personal one) to the scripted model server, `deskhand prompt show` prints them, and an AGENTS.md linked to
 * ~/.netrc is refused: the secret's bytes reach neither the model nor the CLI's output.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliWorld } from '../support/cli';

const w = useCliWorld('agentsmd');
const run = (prompt: string) => w.run(prompt);
const log = () => w.sentSince(0);

it('deskhand run sends AGENTS.md (workspace and personal) to the model; prompt show prints it', async () => {
  writeFileSync(join(w.work, 'AGENTS.md'), 'Use pnpm, never npm. Marker-Lambda-5521\n');
  writeFileSync(join(w.dataDir, 'AGENTS.md'), 'Personal-Mu-7730: be brief\n');
  // The person trusts the workspace's file (M1; until then it is untrusted: test/security/instruction-trust-m1.test.ts).
  const t = await w.cli(['instructions', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(t.code, t.stderr).toBe(0);
  const r = await run('hello');
  expect(r.code, r.stderr).toBe(0);
  expect(log()).toContain('Use pnpm, never npm. Marker-Lambda-5521');
  expect(log()).toContain(JSON.stringify(`## ${join(w.work, 'AGENTS.md')}\nUse pnpm`).slice(1, -1));
  expect(log()).toContain('Personal-Mu-7730');

  const p = await w.cli(['prompt', 'show', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(p.code, p.stderr).toBe(0);
  expect(p.stdout).toContain(`## ${join(w.work, 'AGENTS.md')}\nUse pnpm, never npm. Marker-Lambda-5521`);
  expect(p.stdout).toContain(`## ${join(w.dataDir, 'AGENTS.md')} (personal)\nPersonal-Mu-7730`);
}, 120_000);

it('an AGENTS.md linked to ~/.netrc is refused: the secret reaches neither the model nor the output', async () => {
  const MARK = 'Netrc-Secret-Ww93Qa';
  writeFileSync(join(w.home, '.netrc'), `machine api.example.com login me password ${MARK}\n`);
  symlinkSync(join(w.home, '.netrc'), join(w.work, 'AGENTS.md'));
  const r = await run('hello');
  expect(r.code, r.stderr).toBe(0);
  expect(w.server.requests.length).toBeGreaterThan(0);
  expect(log()).toContain(JSON.stringify(`## ${join(w.work, 'AGENTS.md')}\n(Not loaded: `).slice(1, -1));
  expect(log()).not.toContain(MARK);
  expect(r.stdout + r.stderr).not.toContain(MARK);
}, 120_000);
