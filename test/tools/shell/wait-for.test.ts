/** wait_for / cancel_wait_for with real checks, a real store and the background-task service. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson, type WaitProgress } from '../../../src/main/services/tasks/task-text';
import { taskFixture, until, type TaskFixture } from '../../support/tasks';

let f: TaskFixture;
beforeEach(() => {
  f = taskFixture();
});
afterEach(async () => {
  await f.close();
});

const run = (args: Record<string, unknown>) => f.tools.waitFor.execute(f.tools.waitFor.params.parse(args), f.ctx());
const idOf = (output: string) => /(wait_[0-9a-f]{8})/.exec(output)?.[1] ?? '';
const task = (id: string) => f.tasks.rows.getTask(id)!;

describe('wait_for', () => {
  it('returns at once when the condition already holds, scheduling nothing', async () => {
    writeFileSync(join(f.ws, 'ready'), 'yes\n');
    const result = await run({ command: 'cat ready && test -f ready', interval_ms: 250 });
    expect(result.output).toMatch(/^The condition already holds: the check exited 0 right away/);
    expect(result.output).toContain('--- check output ---\nyes');
    expect(f.tasks.list(f.conversationId)).toEqual([]);
  });

  it('keeps checking in the background and ends when the check exits 0', async () => {
    const result = await run({ command: 'test -f flag && echo there', interval_ms: 250, timeout_ms: 10_000, description: 'flag' });
    expect(result.output).toMatch(/^The condition does not hold yet: the first check exited 1\./);
    const id = idOf(result.output);
    expect(task(id)).toMatchObject({ kind: 'wait_for', status: 'running', title: 'flag' });
    setTimeout(() => writeFileSync(join(f.ws, 'flag'), ''), 700);
    const { finished } = await f.tasks.waitAny(f.conversationId, [id], 10_000);
    expect(finished[0]).toMatchObject({ id, status: 'finished', exit_code: 0 });
    const progress = parseJson<WaitProgress>(finished[0]!.progress, {} as WaitProgress);
    expect(progress.checks).toBeGreaterThanOrEqual(2);
    expect(progress.identical).toBe(false);
    expect(f.tasks.describe(finished[0]!)).toContain('--- last check output ---\nthere');
  });

  it('calls out a check that answered the same every time', async () => {
    const result = await run({ command: 'echo not yet; exit 1', interval_ms: 250, timeout_ms: 1_200 });
    const id = idOf(result.output);
    const { finished } = await f.tasks.waitAny(f.conversationId, [id], 10_000);
    expect(finished[0]).toMatchObject({ status: 'timed_out', exit_code: 1 });
    const text = f.tasks.describe(finished[0]!);
    expect(text).toMatch(/Every one of the \d+ checks returned the same exit code \(1\) and the same output/);
    expect(text).toContain('Test the check command itself');
  });

  it('does not call out checks whose output changed', async () => {
    const result = await run({ command: 'date +%s%N; exit 1', interval_ms: 250, timeout_ms: 1_000 });
    const { finished } = await f.tasks.waitAny(f.conversationId, [idOf(result.output)], 10_000);
    expect(finished[0]!.status).toBe('timed_out');
    expect(f.tasks.describe(finished[0]!)).not.toContain('Every one of');
  });

  it('cancel_wait_for stops the checks and no wake-up follows', async () => {
    // Each check leaves a line in checks.log; a second wait, started after the cancel, is the positive event: once its
    // checks have run twice, a check of the first one still scheduled would have left a line among them.
    const log = join(f.ws, 'checks.log');
    const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
    const result = await run({ command: 'echo first >> checks.log; exit 1', interval_ms: 250, timeout_ms: 60_000 });
    const id = idOf(result.output);
    await until(() => lines().length >= 2, 'two checks of the first wait');
    const cancelled = await f.tools.cancelWaitFor.execute({ id }, f.ctx());
    expect(cancelled.output).toBe(`${id}: cancelled.`);
    const checks = parseJson<WaitProgress>(task(id).progress, {} as WaitProgress).checks;
    const other = idOf((await run({ command: 'echo second >> checks.log; exit 1', interval_ms: 250, timeout_ms: 60_000 })).output);
    await until(() => lines().filter((l) => l === 'second').length >= 3, 'three checks of the second wait');
    const afterSecond = lines().slice(lines().indexOf('second') + 1);
    expect(afterSecond.filter((l) => l === 'first')).toEqual([]);
    expect(lines().filter((l) => l === 'first').length).toBeLessThanOrEqual(checks + 1); // at most one in flight at the cancel
    expect(task(id)).toMatchObject({ status: 'cancelled' });
    expect(task(id).notified_at).not.toBeNull();
    expect(parseJson<WaitProgress>(task(id).progress, {} as WaitProgress).checks).toBe(checks);
    await f.tools.cancelWaitFor.execute({ id: other }, f.ctx());
    await expect(f.tools.cancelWaitFor.execute({ id: 'wait_00000000' }, f.ctx())).rejects.toThrow(/No background task/);
  });

  it('is classified like execute_command, the interval and timeout bounded', async () => {
    const cctx = { cwd: f.ws, workspaceRoots: [f.ws], dataDir: f.dataDir };
    const { waitFor } = f.tools;
    expect((await waitFor.effects!(waitFor.params.parse({ command: 'test -f x' }), cctx)).assessment!.risk).toBe('read-only');
    const net = (await waitFor.effects!(waitFor.params.parse({ command: 'curl -sf http://127.0.0.1:3000', network: true }), cctx)).assessment!;
    expect(net.risk).toBe('high-risk');
    expect(net.alwaysAsk).toMatch(/network/);
    expect(f.tools.waitFor.params.safeParse({ command: 'true', interval_ms: 100 }).error?.issues[0]?.message).toMatch(/at least 250/);
    expect(f.tools.waitFor.params.safeParse({ command: 'true', timeout_ms: 900_001 }).error?.issues[0]?.message).toMatch(/at most 900000/);
  });
});
