/** Runs the built `deskhand` binary as a child process and collects its output and JSON Lines events. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { reply, startModelServer, type ModelServer } from './model-server';
import { tempDir } from './tool-context';

export const BIN = resolve(__dirname, '../../bin/deskhand.js');
/** What `deskhand` runs (bin/deskhand.js prefers the CommonJS build) and the ES build beside it. */
const BUILT = [resolve(__dirname, '../../out/main/cli.cjs'), resolve(__dirname, '../../out/main/cli.js')];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  events: { type: string; [k: string]: unknown }[];
}

export function requireBuild(): void {
  if (!BUILT.every((f) => existsSync(f))) throw new Error('out/main/cli.cjs or cli.js is missing: run `npm run build` before these tests (npm test does).');
}

/** Test keys for both providers, fast retries, and no DESKHAND_HOME leaking in from the machine. */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-test-anthropic', DESKHAND_RETRY_BASE_MS: '10' };
  delete env.DESKHAND_HOME;
  return { ...env, ...extra };
}

/**
 * `hangMs`: a process still alive then is killed and reported `hung` (code null), so a run that would hang fails its
 * test instead of stalling the suite. `input`, when given, is written to the command's stdin (e.g. the value for
 * `deskhand secrets set`).
 */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void; hangMs?: number; input?: string } = {}): Promise<CliResult & { hung: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.env), stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
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
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
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

/**
 * The setup every `deskhand run` chain shares: a fresh scripted model server per test (replies a failed test did not
 * consume never leak into the next one) that answers "Done." when its queue is empty, and fresh data, workspace and
 * home folders. Call at the top of a test file (or a describe block); the returned object's fields are the current
 * test's. `run` is `deskhand run … --json PROMPT` against the scripted server; `cli` is any other command with the
 * test's HOME (add `--data-dir` yourself where the command takes one).
 */
export interface CliWorld {
  readonly server: ModelServer;
  readonly dataDir: string;
  readonly work: string;
  readonly home: string;
  run(prompt: string, opts?: RunOpts): Promise<CliResult>;
  cli(args: string[], opts?: { env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void; input?: string }): Promise<CliResult>;
  /** Everything the model was sent since request `from` (request bodies), as one string. */
  sentSince(from: number): string;
}

export interface RunOpts {
  policy?: string;
  /** More `deskhand run` flags, e.g. ['--enable', 'mcp']. */
  flags?: string[];
  env?: NodeJS.ProcessEnv;
  onSpawn?: (child: ChildProcess) => void;
}

export function useCliWorld(name: string, defaults: { policy?: string; flags?: string[]; env?: NodeJS.ProcessEnv } = {}): CliWorld {
  let server: ModelServer | undefined;
  let dirs = { dataDir: '', work: '', home: '' };
  beforeAll(() => requireBuild());
  afterAll(async () => server?.close());
  beforeEach(async () => {
    await server?.close();
    server = await startModelServer();
    server.setFallback(() => reply().text('Done.'));
    dirs = { dataDir: tempDir(`deskhand-${name}-data-`), work: tempDir(`deskhand-${name}-work-`), home: tempDir(`deskhand-${name}-home-`) };
  });
  const world: CliWorld = {
    get server() {
      if (!server) throw new Error('useCliWorld: the server starts in beforeEach');
      return server;
    },
    get dataDir() {
      return dirs.dataDir;
    },
    get work() {
      return dirs.work;
    },
    get home() {
      return dirs.home;
    },
    run(prompt, opts = {}) {
      const policy = opts.policy ?? defaults.policy ?? 'read-only';
      const flags = opts.flags ?? defaults.flags ?? [];
      const args = ['run', '--provider', 'openai', '--base-url', world.server.baseURL, '--model', 'm', '--cwd', dirs.work, '--data-dir', dirs.dataDir, '--policy', policy, ...flags, '--json', prompt];
      return runCli(args, { env: { HOME: dirs.home, ...defaults.env, ...opts.env }, ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}) });
    },
    cli(args, opts = {}) {
      return runCli(args, { env: { HOME: dirs.home, ...defaults.env, ...opts.env }, ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}), ...(opts.input !== undefined ? { input: opts.input } : {}) });
    },
    sentSince: (from) => world.server.requests.slice(from).map((r) => JSON.stringify(r.body)).join('\n'),
  };
  return world;
}

/** The outputs of the run's tool calls (its `tool.result` events). */
export const toolResults = (r: CliResult): string[] => r.events.filter((e) => e.type === 'tool.result').map((e) => String(e.output));
/** The run's `approval.requested` events. */
export const approvals = (r: CliResult): CliResult['events'] => r.events.filter((e) => e.type === 'approval.requested');
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
