/** `deskhand search` through the real binary: the backend is kept in settings.json, keys only as vault secret names. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

it('sets, shows and clears the web_search backend, and refuses incomplete settings', async () => {
  requireBuild();
  const dataDir = tempDir('deskhand-cli-search-');
  const set = await runCli(['search', 'set', 'searxng', '--url', 'http://127.0.0.1:8888', '--data-dir', dataDir]);
  expect(set.code, set.stderr).toBe(0);
  const shown = await runCli(['search', 'show', '--json', '--data-dir', dataDir]);
  expect(JSON.parse(shown.stdout)).toEqual({ backend: 'searxng', url: 'http://127.0.0.1:8888', keySecret: null });
  expect((JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { search: unknown }).search).toEqual({ backend: 'searxng', url: 'http://127.0.0.1:8888', keySecret: null });
  expect((await runCli(['search', 'set', 'brave', '--data-dir', dataDir])).code).toBe(2); // a key secret is required
  expect((await runCli(['search', 'set', 'searxng', '--data-dir', dataDir])).code).toBe(2); // SearXNG needs its URL
  const brave = await runCli(['search', 'set', 'brave', '--key-secret', 'BRAVE_API_KEY', '--data-dir', dataDir]);
  expect(brave.code, brave.stderr).toBe(0);
  expect((await runCli(['search', 'show', '--data-dir', dataDir])).stdout).toContain('brave, key from the vault secret BRAVE_API_KEY');
  expect((await runCli(['search', 'clear', '--data-dir', dataDir])).code).toBe(0);
  expect((await runCli(['search', 'show', '--json', '--data-dir', dataDir])).stdout.trim()).toBe('null');
}, 60_000);
