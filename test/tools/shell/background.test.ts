/**
 * Background commands with real processes and a real store: a command outliving its foreground timeout, output kept
 * in full and paged, and the promise that nothing a command started outlives Deskhand (cancel, quit, crash, stopped
 * run), checked against the process table, grandchildren that called `setsid` included.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackgroundTasks } from '../../../src/main/services/tasks/background-tasks';
import type { ToolContext } from '../../../src/main/runtime/tool';
import { rawGet, rawRun } from '../../support/raw-db';
import { killByMarker, maxLoopGap, processesWith, sleeping, taskFixture, until, type TaskFixture } from '../../support/tasks';

let f: TaskFixture;
const markers: string[] = [];

beforeEach(() => {
  f = taskFixture({ logCapBytes: 2 * 1024 * 1024 });
});

afterEach(async () => {
  await f.close();
  for (const m of markers.splice(0)) killByMarker(m);
});

/** Live (non-zombie) processes of a uid. */
function liveProcessesOf(uid: number): string[] {
  try {
    return execFileSync('ps', ['-u', String(uid), '-o', 'pid=,stat=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !/^\d+\s+Z/.test(l));
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
}

/** A unique `sleep` duration that names the processes of one test in the process table. */
function marker(): string {
  const m = `${700 + Math.floor(Math.random() * 200)}.${Math.floor(Math.random() * 1e6)}`;
  markers.push(`sleep ${m}`);
  return m;
}

async function exec(args: Record<string, unknown>, ctx: ToolContext = f.ctx()) {
  const { executeCommand } = f.tools;
  // Spec II: a background command names itself; these tests name it by its command.
  const named = args.run_in_background && args.description === undefined ? { ...args, description: String(args.command) } : args;
  return executeCommand.execute(executeCommand.params.parse(named), ctx);
}

function idFrom(output: string): string {
  const m = /(cmd_[0-9a-f]{8})/.exec(output);
  if (!m) throw new Error(`no task id in:\n${output}`);
  return m[1]!;
}

const row = (id: string) => rawGet<{ status: string; notify: number; notified_at: number | null; exit_code: number | null }>(f.dataDir, 'SELECT * FROM background_tasks WHERE id = ?', id)!;

describe('background commands', () => {
  it('a command reaching its foreground timeout keeps running as a background task, finishes, and its output can be read', async () => {
    const ctx = f.ctx();
    const result = await exec({ command: 'for i in 1 2 3; do echo line $i; sleep 0.4; done; echo done', timeout: 300 }, ctx);
    expect(result.output).toMatch(/^still running after 300 ms: it continues as background task cmd_[0-9a-f]{8}[ .]/);
    expect(result.output).toContain('line 1');
    const id = idFrom(result.output);
    expect(row(id)).toMatchObject({ status: 'running', notify: 1 });

    const listed = await f.tools.listBackgroundJobs.execute({}, ctx);
    expect(listed.output).toMatch(new RegExp(`${id}  command  running`));

    const waited = await f.tools.waitTasks.execute({ ids: [id], timeout: 20 }, ctx);
    expect(waited.output).toContain(`[${id} ended]`);
    expect(waited.output).toMatch(/status: finished, exit code 0 after/);
    expect(waited.output).toContain('line 3\ndone');
    // Reported by wait_tasks: no wake-up message will repeat it.
    expect(row(id).notified_at).not.toBeNull();

    const full = await f.tools.taskOutput.execute({ id, offset: 0 }, ctx);
    expect(full.output).toContain('line 1\nline 2\nline 3\ndone');
    expect(full.untrustedSource).toBe('command output');
  });

  it('with kill_on_timeout the command and everything it started are stopped instead', async () => {
    const m = marker();
    const result = await exec({ command: `sleep ${m} & sleep ${m}`, timeout: 400, kill_on_timeout: true });
    expect(result.output).toMatch(/^timed out after 400 ms: the command and every process it started were stopped/);
    expect(sleeping(m)).toEqual([]);
  });

  it('keeps the whole output on disk and pages it with task_output', async () => {
    const ctx = f.ctx();
    const started = await exec({ command: 'seq 1 200000', run_in_background: true, description: 'count' }, ctx);
    expect(started.output).toMatch(/^Started background task cmd_[0-9a-f]{8}[ .]/);
    const id = idFrom(started.output);
    await f.tools.waitTasks.execute({ ids: [id], timeout: 20 }, ctx);
    const expected = Array.from({ length: 200000 }, (_, i) => `${i + 1}\n`).join('');

    const tail = await f.tools.taskOutput.execute({ id }, ctx);
    expect(tail.output).toMatch(new RegExp(`bytes ${expected.length - 32 * 1024}–${expected.length} of ${expected.length}; from the start: task_output`));
    expect(tail.output).toMatch(/199999\n200000\n$/);

    let offset = 0;
    let text = '';
    for (let page = 0; page < 4; page++) {
      const out = (await f.tools.taskOutput.execute({ id, offset }, ctx)).output;
      const next = /"offset": (\d+)\}\) ---/.exec(out);
      text += out.slice(out.indexOf('---\n') + 4);
      offset = Number(next![1]);
    }
    expect(text).toBe(expected.slice(0, offset));
    expect(offset).toBe(4 * 32 * 1024);
  });

  it('a foreground command whose output was cut points to its whole output', async () => {
    const result = await exec({ command: 'seq 1 100000' });
    const id = /task_output \{"id": "(cmd_[0-9a-f]{8})", "offset": 0\}/.exec(result.output)?.[1];
    expect(id).toBeTruthy();
    const page = await f.tools.taskOutput.execute({ id: id!, offset: 0 }, f.ctx());
    expect(page.output).toContain('--- output (bytes 0–32768 of 588895;');
  });

  it.each(['workspace-write', 'off'] as const)('cancel stops a background command and everything it started, setsid grandchildren included (sandbox %s)', async (sandbox) => {
    const ctx = f.ctx({ sandbox });
    const m = marker();
    const started = await exec({ command: `setsid sleep ${m} & (setsid bash -c "sleep ${m} & sleep ${m}") & sleep ${m}`, run_in_background: true }, ctx);
    const id = idFrom(started.output);
    await until(() => sleeping(m).length === 4, 'four sleeps');
    const cancelled = await f.tools.cancelBackgroundJobs.execute({ ids: [id, 'cmd_00000000'] }, ctx);
    expect(cancelled.output).toContain(`${id}: cancelled`);
    expect(cancelled.output).toMatch(/cmd_00000000: No background task/);
    expect(sleeping(m)).toEqual([]);
    expect(row(id)).toMatchObject({ status: 'cancelled', notify: 0 });
  });

  it.each(['workspace-write', 'off'] as const)('quit leaves no process behind, setsid grandchildren and leftover jobs included (sandbox %s)', async (sandbox) => {
    const ctx = f.ctx({ sandbox });
    const m = marker();
    const bg = idFrom((await exec({ command: `setsid sleep ${m} & (setsid bash -c "sleep ${m} & sleep ${m}") & sleep ${m}`, run_in_background: true }, ctx)).output);
    // A finished command that left a job behind (only possible outside the sandbox).
    await exec({ command: `sleep ${m} & echo left` }, ctx);
    // A foreground command still running when Deskhand quits.
    const foreground = exec({ command: `sleep ${m}` }, ctx);
    await until(() => sleeping(m).length >= (sandbox === 'off' ? 6 : 5), 'every sleep');
    await f.tasks.shutdown();
    expect(sleeping(m)).toEqual([]);
    expect(await foreground).toMatchObject({ output: expect.stringContaining('exit code') });
    expect(row(bg).status).toBe('interrupted');
    expect(row(bg).notified_at).not.toBeNull();
    expect(rawGet(f.dataDir, 'SELECT count(*) AS n FROM process_groups')).toEqual({ n: 0 });
    expect(() => f.tasks.startCommand({ conversationId: f.conversationId, runId: null, callId: null, command: 'true', cwd: f.ws, plan: null as never, background: true, title: 'x' })).toThrow(/quitting/);
  });

  it('after a crash, the next start ends what the dead process left running (outside the sandbox)', async () => {
    const m = marker();
    const host = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../support/task-host-main.ts'), f.dataDir, f.ws, 'off', `setsid sleep ${m} & sleep ${m}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const id = await new Promise<string>((res, rej) => {
      host.stdout.on('data', (d: Buffer) => {
        const hit = /ready (cmd_\w+)/.exec(d.toString());
        if (hit) res(hit[1]!);
      });
      host.on('exit', () => rej(new Error('the host exited early')));
    });
    await until(() => sleeping(m).length === 2, 'both sleeps');
    host.kill('SIGKILL');
    await new Promise((r) => host.once('close', r));
    // Orphans: still running after their owner died.
    expect(sleeping(m)).toHaveLength(2);

    const next = new BackgroundTasks({ store: f.store, dataDir: f.dataDir });
    const report = await next.recover();
    expect(report.ended).toBe(1);
    expect(report.interrupted).toEqual([id]);
    expect(sleeping(m)).toEqual([]);
    expect(row(id)).toMatchObject({ status: 'interrupted' });
    await next.shutdown();
  });

  it('inside the sandbox, a crashed Deskhand takes its commands with it at once', async () => {
    const m = marker();
    const host = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../support/task-host-main.ts'), f.dataDir, f.ws, 'workspace-write', `setsid sleep ${m} & sleep ${m}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((res) => host.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res()));
    await until(() => sleeping(m).length === 2, 'both sleeps');
    host.kill('SIGKILL');
    await until(() => sleeping(m).length === 0, 'the sandbox to end with its parent', 3_000);
  });

  it('stopping a run ends the background tasks it started', async () => {
    const m = marker();
    const ctx = f.ctx({ runId: 'run_stopped' });
    const id = idFrom((await exec({ command: `sleep ${m}`, run_in_background: true }, ctx)).output);
    const other = idFrom((await exec({ command: `sleep ${m}`, run_in_background: true }, f.ctx({ runId: 'run_other' }))).output);
    await until(() => sleeping(m).length === 2, 'both sleeps');
    await f.tasks.cancelForRun('run_stopped');
    expect(sleeping(m)).toHaveLength(1);
    expect(row(id).status).toBe('cancelled');
    expect(row(other).status).toBe('running');
  });
});

describe('housekeeping', () => {
  // Deleting through the app service (which calls this first) is test/host/app-service.test.ts's.
  it('cancelForConversation ends the processes of the conversation\'s tasks', async () => {
    const m = marker();
    await exec({ command: `sleep ${m}`, run_in_background: true });
    await until(() => sleeping(m).length === 1, 'the sleep');
    await f.tasks.cancelForConversation(f.conversationId);
    expect(sleeping(m)).toEqual([]);
  });

  it('whole outputs are deleted a week after their task ended; the rows stay', async () => {
    const ctx = f.ctx();
    const id = idFrom((await exec({ command: 'echo kept', run_in_background: true }, ctx)).output);
    await f.tools.waitTasks.execute({ ids: [id], timeout: 10 }, ctx);
    const path = f.tasks.rows.getTask(id)!.output_path!;
    expect(existsSync(path)).toBe(true);
    expect(f.tasks.pruneLogs()).toBe(0);
    rawRun(f.dataDir, 'UPDATE background_tasks SET finished_at = ? WHERE id = ?', Date.now() - 8 * 24 * 3600_000, id);
    // Another connection's commit: read from the next stretch of code on (the store's read snapshot).
    await Promise.resolve();
    expect(f.tasks.pruneLogs()).toBeGreaterThan(0);
    expect(existsSync(path)).toBe(false);
    expect(f.tasks.rows.getTask(id)).toMatchObject({ status: 'finished', output_path: null });
  });
});

describe('commands that misbehave end cleanly while Deskhand stays responsive', () => {
  it('yes: output capped in memory and on disk, stopped on timeout', async () => {
    const { value, gapMs, elapsedMs } = await maxLoopGap(() => exec({ command: 'yes deskhand', timeout: 1_500, kill_on_timeout: true }));
    expect(value.output).toMatch(/^timed out after 1500 ms/);
    expect(value.output).toMatch(/bytes omitted/);
    expect(value.output.length).toBeLessThan(600_000);
    // A blocked event loop would stall for the whole command; a loaded machine only stretches both. Relative, so it
    // holds under load: the longest stall is under half of the time the call took.
    expect(gapMs).toBeLessThan(elapsedMs / 2);
  });

  it('yes moved to the background is cancelled cleanly', async () => {
    const ctx = f.ctx();
    const result = await exec({ command: 'yes deskhand-bg-yes', timeout: 500 }, ctx);
    const id = idFrom(result.output);
    const { gapMs, elapsedMs } = await maxLoopGap(async () => {
      await new Promise((r) => setTimeout(r, 700));
      await f.tools.cancelBackgroundJobs.execute({ ids: [id] }, ctx);
    });
    // A blocked event loop would stall for the whole command; a loaded machine only stretches both. Relative, so it
    // holds under load: the longest stall is under half of the time the call took.
    expect(gapMs).toBeLessThan(elapsedMs / 2);
    expect(processesWith('yes deskhand-bg-yes')).toEqual([]);
    // The log stopped at its cap.
    const size = Number(/of (\d+)[;)]/.exec((await f.tools.taskOutput.execute({ id }, ctx)).output)?.[1]);
    expect(size).toBeLessThan(2 * 1024 * 1024 + 200);
  });

  it('cat /dev/urandom: binary output capped, stopped on timeout', async () => {
    const { value, gapMs, elapsedMs } = await maxLoopGap(() => exec({ command: 'cat /dev/urandom', timeout: 1_500, kill_on_timeout: true }));
    expect(value.output).toMatch(/^timed out after 1500 ms/);
    expect(value.output.length).toBeLessThan(600_000);
    // A blocked event loop would stall for the whole command; a loaded machine only stretches both. Relative, so it
    // holds under load: the longest stall is under half of the time the call took.
    expect(gapMs).toBeLessThan(elapsedMs / 2);
    expect(processesWith('cat /dev/urandom')).toEqual([]);
  });

  it('a command waiting on stdin gets EOF at once', async () => {
    const started = Date.now();
    const result = await exec({ command: 'read line; echo "read exit $?"; cat; python3 -c "input()" 2>&1 | tail -1' });
    expect(result.output).toContain('read exit 1');
    expect(result.output).toContain('EOFError');
    // Without EOF, `read` waits for ever: the bound is the failure's distance, not a speed (holds under load).
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a fork bomb (bounded by a process limit) is stopped and leaves nothing', async (t) => {
    if (process.getuid?.() !== 0) return t.skip(); // needs root to drop to a throwaway uid whose process count is bounded
    let nobody = 0;
    try {
      nobody = execFileSync('ps', ['-u', '65534', '-o', 'pid='], { encoding: 'utf8' }).split('\n').filter(Boolean).length;
    } catch {
      // ps exits 1 when it lists nothing
    }
    if (nobody > 0) return t.skip(); // other processes of uid 65534 would share the limit
    const tag = `forkbomb${Math.floor(Math.random() * 1e9)}`;
    markers.push(tag);
    // RLIMIT_NPROC does not bind root, so the bomb runs as uid 65534 with at most 48 processes; outside the sandbox
    // because the sandbox drops the capability to change uid.
    const command = `ulimit -u 48; exec setpriv --reuid=65534 --regid=65534 --clear-groups bash -c ': ${tag}; b(){ b|b& }; b; sleep 60' 2>/dev/null`;
    const { value, gapMs, elapsedMs } = await maxLoopGap(() => exec({ command, timeout: 2_000, kill_on_timeout: true }, f.ctx({ sandbox: 'off' })));
    expect(value.output).toMatch(/^timed out after 2000 ms/);
    expect(gapMs).toBeLessThan(elapsedMs / 2);
    expect(processesWith(tag)).toEqual([]);
    expect(liveProcessesOf(65534)).toEqual([]);
    // Still responsive: a normal command right after.
    expect((await exec({ command: 'echo alive' })).output).toContain('alive');
  });
});
