/** Runs the built `deskhand` binary as a child process and collects its output and JSON Lines events. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const BIN = resolve(__dirname, '../../bin/deskhand.js');
const CLI = resolve(__dirname, '../../out/main/cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  events: { type: string; [k: string]: unknown }[];
}

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error('out/main/cli.js is missing: run `npm run build` before these tests (npm test does).');
}

/** Test keys for both providers, fast retries, and no DESKHAND_HOME leaking in from the machine. */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-test-anthropic', DESKHAND_RETRY_BASE_MS: '10' };
  delete env.DESKHAND_HOME;
  return { ...env, ...extra };
}

/**
 * `hangMs`: a process still alive then is killed and reported `hung` (code null), so a run that would hang fails its
 * test instead of stalling the suite.
 */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void; hangMs?: number } = {}): Promise<CliResult & { hung: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    opts.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = opts.hangMs
      ? setTimeout(() => {
          hung = true;
          child.kill('SIGKILL');
        }, opts.hangMs)
      : null;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as CliResult['events'][number]);
      done({ code, stdout, stderr, events, hung });
    });
  });
}
