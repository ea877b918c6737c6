/**
 * The built `deskhand` binary with background tasks and the sandbox: `run` waits for the tasks its conversation
 * started and continues the conversation with their results, Ctrl-C stops them, `--sandbox` sets the mode, and
 * `policy explain` prints it.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { killByMarker, sleeping, until } from '../support/tasks';
import { requireBuild, runCli, type CliResult } from '../support/cli';


let server: ModelServer;
let dataDir: string;
let work: string;

beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  dataDir = tempDir('deskhand-cli-data-');
  work = tempDir('deskhand-cli-work-');
});

function cli(args: string[], onSpawn?: (child: ChildProcess) => void): Promise<CliResult> {
  return runCli(args, { ...(onSpawn ? { onSpawn } : {}) });
}

const run = (prompt: string, extra: string[] = []) => ['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', work, '--data-dir', dataDir, ...extra, prompt];

describe('deskhand run with background tasks', () => {
  it('waits for a background task and continues the conversation with its result', async () => {
    server.enqueue(reply().tool('execute_command', { command: 'sleep 0.5; echo from-the-background', run_in_background: true, description: 'test task' }), reply().text('Started.'));
    server.enqueue(reply().text('The task printed from-the-background.'));
    const before = server.requests.length;
    const result = await cli(run('start it', ['--json']));
    expect(result.code, result.stderr).toBe(0);
    expect(result.events.filter((e) => e.type === 'run.started')).toHaveLength(2);
    expect(result.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'finished' });
    const wake = JSON.stringify(server.requests[before + 2]!.body);
    expect(wake).toMatch(/\[background task cmd_[0-9a-f]{8} finished\]/);
    expect(wake).toContain('from-the-background');
  });

  it('runs a job batch in the built worker (out/main/job-worker.js) and continues with every job\'s result', async () => {
    server.enqueue(reply().tool('run_background_jobs', { jobs: [{ command: 'echo job-one' }, { command: 'echo job-two; exit 2' }] }), reply().text('Started.'));
    server.enqueue(reply().text('One failed.'));
    const before = server.requests.length;
    const result = await cli(run('run both', ['--json']));
    expect(result.code, result.stderr).toBe(0);
    const wake = JSON.stringify(server.requests[before + 2]!.body);
    expect(wake).toMatch(/\[job batch jobs_[0-9a-f]{8} failed\]/);
    expect(wake).toContain('job-one');
    expect(wake).toMatch(/jobs_[0-9a-f]{8}\.2  failed, exit code 2/);
  });

  it('Ctrl-C stops the background tasks it waits for', async () => {
    const m = `${900 + Math.floor(Math.random() * 90)}.${Math.floor(Math.random() * 1e6)}`;
    server.enqueue(reply().tool('execute_command', { command: `sleep ${m}`, run_in_background: true, description: 'test task' }), reply().text('Started.'));
    let child: ChildProcess | undefined;
    let stderr = '';
    const done = cli(run('start it'), (c) => {
      child = c;
      c.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    });
    try {
      await until(() => sleeping(m).length === 1, 'the background sleep', 15_000);
      // Interrupt only once the turn is over and the CLI waits on the task (not while the model step still runs).
      await until(() => stderr.includes('Waiting for background task'), 'the CLI to wait for the task', 15_000);
      child!.kill('SIGINT');
      const result = await done;
      expect(result.stderr).toContain('Waiting for background task cmd_');
      expect(result.code).toBe(0);
      expect(sleeping(m)).toEqual([]);
    } finally {
      killByMarker(`sleep ${m}`);
    }
  });

  it('--sandbox sets the conversation mode; a write in read-only mode is reported as blocked by the sandbox', async () => {
    server.enqueue(reply().tool('execute_command', { command: 'echo x > made.txt' }), reply().text('It was blocked.'));
    const result = await cli(run('write a file', ['--policy', 'low-risk', '--sandbox', 'read-only', '--json']));
    expect(result.code, result.stderr).toBe(0);
    const tool = result.events.find((e) => e.type === 'tool.result')!;
    expect(String(tool.output)).toContain("blocked by the sandbox: writes are blocked (this conversation's sandbox mode is read-only)");
    expect(existsSync(join(work, 'made.txt'))).toBe(false);
    const db = new Database(join(dataDir, 'deskhand.db'), { readonly: true });
    expect(db.prepare('SELECT sandbox FROM conversations').all()).toEqual([{ sandbox: 'read-only' }]);
    db.close();

    const bad = await cli(run('x', ['--sandbox', 'loose']));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--sandbox must be one of workspace-write, read-only, off (got "loose")');
  });

  it('policy explain prints the sandbox mode', async () => {
    const inside = await cli(['policy', 'explain', '--tool', 'execute_command', '--args', '{"command":"ls"}', '--data-dir', dataDir, '--cwd', work]);
    expect(JSON.parse(inside.stdout).reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^runs in the bubblewrap sandbox|no OS sandbox/)]));
    const off = await cli(['policy', 'explain', '--tool', 'execute_command', '--args', '{"command":"ls"}', '--policy', 'high-risk', '--sandbox', 'off', '--data-dir', dataDir, '--cwd', work]);
    expect(JSON.parse(off.stdout)).toMatchObject({ decision: 'ask', reasons: expect.arrayContaining(['sandbox mode "off": the command runs without the OS sandbox']) });
  });
});
