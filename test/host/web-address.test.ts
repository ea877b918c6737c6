/**
 * `deskhand web` keeps its address across restarts (issue: every restart printed a new port and token), moves it with
 * --port, renews it with --new-address, keeps the token file private, and answers --help.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

const live: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of live.splice(0)) c.kill('SIGKILL');
});

/** Starts `deskhand web --json`, returns its URL once printed, and a stop that resolves with its stderr. */
async function startWeb(dataDir: string, extra: string[] = []): Promise<{ url: string; stop(): Promise<{ code: number | null; stderr: string }> }> {
  const child = spawn(process.execPath, [BIN, 'web', '--json', '--data-dir', dataDir, ...extra], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  live.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`deskhand web exited (${code}) before printing its URL:\n${stderr}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => resolve({ code, stderr }));
        child.kill('SIGTERM');
      }),
  };
}

describe('deskhand web address', () => {
  it('prints the same URL after a restart, serves the page under it, and keeps the token file private', async () => {
    requireBuild();
    const dataDir = tempDir('deskhand-webaddr-');
    const first = await startWeb(dataDir);
    expect((await fetch(first.url)).status).toBe(200);
    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).not.toMatch(/\n\s+at /); // no stack trace on shutdown

    const second = await startWeb(dataDir);
    expect(second.url).toBe(first.url);
    expect((await fetch(second.url)).status).toBe(200);
    await second.stop();
    expect(statSync(join(dataDir, 'web-address.json')).mode & 0o777).toBe(0o600);
  });

  it('--new-address makes a new token; the old address is refused', async () => {
    requireBuild();
    const dataDir = tempDir('deskhand-webaddr-');
    const first = await startWeb(dataDir);
    await first.stop();
    const renewed = await startWeb(dataDir, ['--new-address']);
    expect(renewed.url).not.toBe(first.url);
    const oldPath = new URL(first.url).pathname;
    expect((await fetch(new URL(oldPath, renewed.url))).status).toBe(403);
    await renewed.stop();
  });

  it('moves to a free port with the same token when the saved port is taken', async () => {
    requireBuild();
    const dataDir = tempDir('deskhand-webaddr-');
    const first = await startWeb(dataDir);
    const second = await startWeb(dataDir); // the first still holds the port
    expect(new URL(second.url).pathname).toBe(new URL(first.url).pathname);
    expect(new URL(second.url).port).not.toBe(new URL(first.url).port);
    await Promise.all([first.stop(), second.stop()]);
  });

  it('answers --help with its usage instead of an error', async () => {
    requireBuild();
    const r = await runCli(['web', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--new-address');
    expect(r.stderr).toBe('');
  });
});
