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

export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {}): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    opts.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as CliResult['events'][number]);
      done({ code, stdout, stderr, events });
    });
  });
}

export interface ExitResult extends CliResult {
  /** The process ended by itself within the bound (else it was killed at the bound). */
  exited: boolean;
  /** Process id of the CLI (its leftovers are looked up by marker, not by parent: orphans are reparented). */
  pid: number;
}

/**
 * Runs the binary and waits for the process to END (not for its pipes to close: a leftover child holding them would
 * hide that), at most `withinMs`; a process still alive then is killed and reported with `exited: false`. No timing
 * is asserted beyond the bound: it only tells "ends" from "hangs".
 */
export function runCliToExit(args: string[], opts: { env?: NodeJS.ProcessEnv; withinMs?: number } = {}): Promise<ExitResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const finish = (code: number | null, exited: boolean) => {
      // What was written before the exit is read; a pipe still held open by a leftover does not delay the answer.
      setTimeout(() => {
        const events = stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as CliResult['events'][number]);
        done({ code, stdout, stderr, events, exited, pid: child.pid ?? -1 });
      }, 200);
    };
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
      finish(null, false);
    }, opts.withinMs ?? 60_000);
    child.once('exit', (code) => {
      clearTimeout(bound);
      finish(code, true);
    });
  });
}
