/**
 * `deskhand stop`: the computer-use kill switch from a terminal adds the store's stop row (what every process's
 * computer use reads before each action and typed chunk), without opening a runtime; a stray argument is a usage
 * error that says what the command does. The chain through a real app is test/computer/kill-switch-cli-e2e.test.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { rawAll } from '../support/raw-db';
import { tempDir } from '../support/tool-context';

beforeAll(() => requireBuild());

it('adds a stop row to the data folder, with its reason and the pid of the stopping process', async () => {
  const dataDir = tempDir('deskhand-stop-data-');
  const r = await runCli(['stop', '--data-dir', dataDir, '--reason', 'the person pressed stop in a terminal', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout.trim()) as { stopped: boolean; at: number };
  const rows = rawAll<{ at: number; reason: string; pid: number }>(dataDir, 'SELECT at, reason, pid FROM computer_stops');
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ at: out.at, reason: 'the person pressed stop in a terminal' });
  expect(rows[0]!.pid).not.toBe(process.pid);
}, 60_000);

it('a stray argument is a usage error, and nothing is stopped', async () => {
  const dataDir = tempDir('deskhand-stop-data-');
  const r = await runCli(['stop', 'zenity', '--data-dir', dataDir]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/stop takes no arguments \(got "zenity"\); it stops computer use on the data folder/);
  // The store was never opened, so no process reads a stop from this call.
  expect(existsSync(join(dataDir, 'deskhand.db'))).toBe(false);
}, 60_000);
