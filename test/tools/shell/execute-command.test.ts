import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDroppedEnvName, childEnv } from '../../../src/main/services/processes/child-env';
import { MAX_TIMEOUT_MS, visibleCommand } from '../../../src/main/tools/shell/execute-command';
import { OUTPUT_CAP_BYTES } from '../../../src/main/services/processes/command-process';
import { HeadTailBuffer } from '../../../src/main/services/processes/output-buffer';
import { processGroupAlive } from '../../../src/main/services/processes/proc-info';
import type { TestContext } from '../../support/tool-context';
import { processesWith, taskFixture, until, type TaskFixture } from '../../support/tasks';

let f: TaskFixture;
let ws: string;
let ctx: TestContext;
let executeCommand: TaskFixture['tools']['executeCommand'];
const leftovers: number[] = [];

beforeEach(() => {
  f = taskFixture();
  ws = f.ws;
  ctx = f.ctx();
  executeCommand = f.tools.executeCommand;
});

afterEach(async () => {
  await f.close();
  for (const pgid of leftovers.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A context whose commands run outside the OS sandbox (there, `$$` is the real pid and so the process group id). */
function unsandboxed(): TestContext {
  return f.ctx({ sandbox: 'off' });
}

async function run(command: string, extra: { timeout?: number; cwd?: string; kill_on_timeout?: boolean } = {}, context: TestContext = ctx) {
  const args = executeCommand.params.parse({ command, ...extra });
  return executeCommand.execute(args, context);
}

/** Live (non-zombie) members of a process group, from the real process table. */
function groupMembers(pgid: number): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === pgid && !(f[2] ?? '').startsWith('Z'))
    .map((f) => f.join(' '));
}

function pgidFrom(output: string): number {
  const m = /pgid=(\d+)/.exec(output);
  if (!m) throw new Error(`no pgid in output:\n${output}`);
  const pgid = Number(m[1]);
  leftovers.push(pgid);
  return pgid;
}

describe('execute_command', () => {
  it('is registered with the shell family and wired to the classifier', async () => {
    expect(f.tools.shell.map((t) => t.name)).toEqual(['execute_command', 'wait_for', 'cancel_wait_for']);
    expect(executeCommand.risk).toBe('unknown');
    expect(executeCommand.disclosure).toBe('private');
    const cctx = { cwd: ws, workspaceRoots: [ws], dataDir: ctx.dataDir };
    expect((await executeCommand.effects!({ command: 'ls' }, cctx)).egress).toBeFalsy();
    expect(executeCommand.pair?.executeName).toBe('execute_execute_command');
    const risk = async (args: { command: string; cwd?: string }) => (await executeCommand.effects!(args, cctx)).assessment?.risk;
    expect(await risk({ command: 'ls -la' })).toBe('read-only');
    expect(await risk({ command: 'ls && rm -rf x' })).toBe('high-risk');
    expect(await risk({ command: 'echo x > out.txt', cwd: 'sub' })).toBe('low-risk');
  });

  it('captures stdout, stderr, exit code and duration, and streams output live', async () => {
    const result = await run('echo out; echo err >&2');
    // The sandboxed command named nothing outside the workspace: its output is the workspace's own (output-source.ts).
    expect(result.untrustedSource).toBe(ctx.sandbox === 'off' ? 'command output' : undefined);
    expect((await run('cat /etc/hostname')).untrustedSource).toBe('command output');
    expect(result.output).toMatch(/^exit code: 0$/m);
    expect(result.output).toMatch(/^duration: \d+/m);
    expect(result.output).toContain('--- stdout ---\nout\n--- stderr ---\nerr');
    expect(ctx.outputs).toEqual(expect.arrayContaining([{ stream: 'stdout', chunk: 'out\n' }, { stream: 'stderr', chunk: 'err\n' }]));
  });

  it('reports a non-zero exit as a normal result', async () => {
    const result = await run('echo failing >&2; exit 3');
    expect(result.output).toMatch(/^exit code: 3$/m);
    expect(result.output).toContain('failing');
    expect(result.output).toContain('--- stdout ---\n(empty)');
  });

  it('runs in cwd resolved against the conversation cwd, and refuses a missing one', async () => {
    mkdirSync(join(ws, 'sub'));
    expect((await run('pwd', { cwd: 'sub' })).output).toContain(join(ws, 'sub'));
    await expect(run('pwd', { cwd: 'nope' })).rejects.toThrow(/does not exist/);
  });

  it('keeps the head and tail of huge output (256 KB per stream) without blocking the writer', async () => {
    const started = Date.now();
    const result = await run('yes | head -c 5000000; echo done >&2');
    const omitted = 5_000_000 - OUTPUT_CAP_BYTES;
    expect(result.output).toContain(`[… ${omitted} bytes omitted …]`);
    expect(result.output).toMatch(/--- stdout ---\ny\ny\ny/);
    expect(result.output).toContain('stdout was 5000000 bytes');
    expect(result.output.length).toBeLessThan(OUTPUT_CAP_BYTES + 2_000);
    expect(result.output).toContain('--- stderr ---\ndone');
    const live = ctx.outputs.filter((o) => o.stream === 'stdout').map((o) => o.chunk).join('');
    expect(live.length).toBeLessThan(OUTPUT_CAP_BYTES + 500);
    expect(live).toContain('live stdout paused');
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('closes stdin, so cat returns at once', async () => {
    const started = Date.now();
    const result = await run('cat; echo after', { timeout: 60_000 });
    expect(result.output).toMatch(/^exit code: 0$/m);
    expect(result.output).toContain('after');
    // With stdin open, cat waits until the 60 s timeout: the bound is that distance, not a speed (holds under load).
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('on timeout stops the whole process group, grandchildren included', async () => {
    const result = await run('echo pgid=$$; sleep 100 & sleep 100; wait', { timeout: 500, kill_on_timeout: true }, unsandboxed());
    const pgid = pgidFrom(result.output);
    expect(result.output).toContain('timed out after 500 ms');
    expect(processGroupAlive(pgid)).toBe(false);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('stops the group when the run is aborted', async () => {
    const started = Date.now();
    const offCtx = unsandboxed();
    setTimeout(() => offCtx.abort(), 400);
    const result = await run('echo pgid=$$; sleep 100 & sleep 100', {}, offCtx);
    const pgid = pgidFrom(result.output);
    expect(result.output).toMatch(/^interrupted/m);
    expect(Date.now() - started).toBeLessThan(30_000); // the group left alone holds it 100 s
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('refuses to start when the run is already stopped', async () => {
    ctx.abort();
    await expect(run('echo never')).rejects.toThrow(/did not run/);
  });

  it('sends SIGKILL 3 s after SIGTERM to a command that ignores SIGTERM', async () => {
    const started = Date.now();
    const result = await run("echo pgid=$$; trap '' TERM; sleep 30 & sleep 30; wait", { timeout: 300, kill_on_timeout: true }, unsandboxed());
    const elapsed = Date.now() - started;
    const pgid = pgidFrom(result.output);
    expect(result.output).toContain('timed out after 300 ms');
    expect(result.output).toContain('SIGTERM, then SIGKILL');
    expect(elapsed).toBeGreaterThanOrEqual(3_000);
    expect(elapsed).toBeLessThan(25_000); // without the SIGKILL, the sleeps hold it 30 s
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('outside the sandbox, returns when the shell exits even if a background job holds the pipes', async () => {
    const started = Date.now();
    const result = await run('echo pgid=$$; sleep 120 & echo started', {}, unsandboxed());
    const pgid = pgidFrom(result.output);
    expect(Date.now() - started).toBeLessThan(60_000); // waiting on the pipes would hold it 120 s
    expect(result.output).toContain('started');
    expect(result.output).toMatch(/^exit code: 0$/m);
    // The job keeps running after the shell exits (the test cleans it up).
    expect(groupMembers(pgid).length).toBeGreaterThan(0);
  });

  it('does not pass credential-named variables to the command', async () => {
    const names = ['DESKHAND_TEST_API_KEY', 'DESKHAND_TEST_TOKEN', 'DESKHAND_DB_PASSWORD', 'ANTHROPIC_BASE_URL', 'OPENAI_ORG', 'MY_SESSION_ID', 'GH_AUTH'];
    const saved = new Map(names.map((n) => [n, process.env[n]]));
    for (const n of names) process.env[n] = 'sekrit-value';
    process.env.DESKHAND_TEST_PLAIN = 'visible-value';
    process.env['BASH_FUNC_ls%%'] = '() { echo hijacked; }';
    try {
      const result = await run('env; ls -d .');
      expect(result.output).not.toContain('sekrit-value');
      expect(result.output).not.toContain('hijacked');
      expect(result.output).toContain('DESKHAND_TEST_PLAIN=visible-value');
      for (const n of names) expect(isDroppedEnvName(n)).toBe(true);
      expect(childEnv({ PATH: '/bin', AWS_SECRET_ACCESS_KEY: 'x', HOME: '/h' })).toEqual({ PATH: '/bin', HOME: '/h' });
      expect(childEnv({ PATH: '.:/usr/bin::node_modules/.bin:/bin' }).PATH).toBe('/usr/bin:/bin');
    } finally {
      for (const [n, v] of saved) {
        if (v === undefined) delete process.env[n];
        else process.env[n] = v;
      }
      delete process.env.DESKHAND_TEST_PLAIN;
      delete process.env['BASH_FUNC_ls%%'];
    }
  });

  it('proposes the exact command with control characters and non-ASCII made visible', async () => {
    const proposal = await executeCommand.pair!.propose({ command: 'echo \x1b[31mred\r\u202etxt.exe café\nls' }, ctx);
    expect(proposal.description).toBe(`Run a command in ${ws}`);
    expect(proposal.preview).toBe('echo \\x1b[31mred\\x0d\\u202etxt.exe caf\\u00e9\nls');
    expect(proposal.preview).not.toMatch(/[\x1b\r\u202e]/);
    expect(visibleCommand('a\u{1F600}')).toBe('a\\u{1f600}');
  });

  it('accepts timeouts up to 15 minutes and rejects larger ones with a clear message', () => {
    expect(executeCommand.params.safeParse({ command: 'ls', timeout: MAX_TIMEOUT_MS }).success).toBe(true);
    const tooLong = executeCommand.params.safeParse({ command: 'ls', timeout: MAX_TIMEOUT_MS + 1 });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.message).toMatch(/at most 900000 ms \(15 minutes\)/);
    expect(executeCommand.params.safeParse({ command: 'ls', timeout: -5 }).success).toBe(false);
    expect(executeCommand.params.safeParse({ command: '' }).success).toBe(false);
  });
});

describe('HeadTailBuffer', () => {
  it('keeps everything under the cap and head + tail over it', () => {
    const small = new HeadTailBuffer(10);
    small.push(Buffer.from('abc'));
    small.push(Buffer.from('defgh'));
    expect(small.toString()).toBe('abcdefgh');
    const big = new HeadTailBuffer(10);
    for (const part of ['01234', '56789', 'abcde', 'fghij']) big.push(Buffer.from(part));
    expect(big.omitted).toBe(10);
    expect(big.toString()).toBe('01234\n[… 10 bytes omitted …]\nfghij');
  });

  it('does not cut UTF-8 characters at the seams', () => {
    const buf = new HeadTailBuffer(8);
    buf.push(Buffer.from('aaaé'.repeat(4)));
    // Head and tail are cut at character boundaries (a half 'é' is dropped, not shown as U+FFFD), and what is kept is
    // the text itself: 4 head bytes end inside an 'é', so the head is 'aaa'; the last 4 bytes are 'aaé'.
    expect(buf.toString()).toBe('aaa\n[… 12 bytes omitted …]\naaé');
  });
});

describe('execute_command in the OS sandbox', () => {
  it('ends processes a command leaves behind when its shell exits (pid namespace)', async () => {
    const started = Date.now();
    const result = await run('sleep 711.25 & echo started');
    expect(Date.now() - started).toBeLessThan(60_000); // waiting for the leftover would hold it 711 s
    expect(result.output).toContain('started');
    expect(result.output).toContain('sandbox: bubblewrap, workspace-write, network off');
    await until(() => processesWith('sleep 711.25').length === 0, 'the leftover to end', 3_000);
  });

  it('says when a failure comes from the sandbox, and how to get past it', async () => {
    const result = await run('touch /etc/deskhand-sandbox-probe');
    expect(result.output).toMatch(/^exit code: 1$/m);
    expect(result.output).toMatch(/note: blocked by the sandbox: writes outside the workspace are blocked.*outside_sandbox: true/);
    expect(existsSync('/etc/deskhand-sandbox-probe')).toBe(false);
  });
});
