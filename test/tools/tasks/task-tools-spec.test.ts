/**
 * The shell and background-task tools against Spec II, with real processes and a real store: execute_command's
 * description and 10-minute background limit (disable_timeout lifts it), list_background_jobs listing running tasks
 * by default, task_output's output_path, wait_tasks' required timeout, and cancel_background_jobs' reason.
 */
import { rawGet } from '../../support/raw-db';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/main/runtime/tool';
import { backgroundLimits } from '../../../src/main/tools/shell/execute-command';
import { killByMarker, taskFixture, until, type TaskFixture } from '../../support/tasks';
import { builtinTools } from '../../support/tools';

let f: TaskFixture;
let tools: Map<string, ToolDefinition>;
const markers: string[] = [];

beforeEach(() => {
  f = taskFixture();
  tools = new Map(builtinTools({ dataDir: f.dataDir, tasks: f.tasks }).map((t) => [t.name, t]));
});

afterEach(async () => {
  backgroundLimits.defaultTimeoutMs = 600_000;
  await f.close();
  for (const m of markers.splice(0)) killByMarker(m);
});

function marker(): string {
  const m = `${900 + Math.floor(Math.random() * 90)}.${Math.floor(Math.random() * 1e6)}`;
  markers.push(`sleep ${m}`);
  return m;
}

/** Calls a tool as the runtime does: arguments parsed by its schema first. */
async function call(name: string, args: Record<string, unknown>, ctx = f.ctx({ sandbox: 'off' })): Promise<string> {
  const tool = tools.get(name)!;
  return (await tool.execute(tool.params.parse(args), ctx)).output;
}

const idIn = (output: string): string => /(cmd_[0-9a-f]{8})/.exec(output)![1]!;
const status = (id: string) => rawGet<{ status: string; summary: string | null }>(f.dataDir, 'SELECT status, summary FROM background_tasks WHERE id = ?', id)!;

describe('execute_command in the background (Spec II)', () => {
  it('requires a description with run_in_background', () => {
    const params = tools.get('execute_command')!.params;
    const missing = params.safeParse({ command: 'sleep 1', run_in_background: true });
    expect(missing.success).toBe(false);
    expect(JSON.stringify(missing.error?.issues)).toMatch(/description is required with run_in_background/);
    expect(params.safeParse({ command: 'sleep 1', run_in_background: true, description: '   ' }).success).toBe(false);
    expect(params.safeParse({ command: 'sleep 1', run_in_background: true, description: 'a nap' }).success).toBe(true);
    expect(params.safeParse({ command: 'ls' }).success).toBe(true);
  });

  it('stops a background task at the default limit unless disable_timeout lifts it', async () => {
    backgroundLimits.defaultTimeoutMs = 1_000;
    const m = marker();
    const limited = idIn(await call('execute_command', { command: `sleep ${m}`, run_in_background: true, description: 'limited' }));
    const free = idIn(await call('execute_command', { command: `sleep ${m}`, run_in_background: true, description: 'free', disable_timeout: true }));
    await until(() => status(limited).status !== 'running', 'the limited task to end');
    expect(status(limited).status).toBe('timed_out');
    expect(status(free).status).toBe('running');
    await call('cancel_background_jobs', { ids: [free] });
  });

  it('gives a foreground command that moved to the background the same limit', async () => {
    backgroundLimits.defaultTimeoutMs = 1_000;
    const m = marker();
    const out = await call('execute_command', { command: `sleep ${m}`, timeout: 200 });
    expect(out).toMatch(/continues as background task cmd_[0-9a-f]{8} \(stopped after/);
    const id = idIn(out);
    await until(() => status(id).status !== 'running', 'the moved task to end');
    expect(status(id).status).toBe('timed_out');
  });
});

describe('background task tools (Spec II)', () => {
  it('list_background_jobs lists running tasks only, unless active_only is false', async () => {
    const done = idIn(await call('execute_command', { command: 'echo done', run_in_background: true, description: 'quick one' }));
    await until(() => status(done).status !== 'running', 'the quick task to end');
    const m = marker();
    const running = idIn(await call('execute_command', { command: `sleep ${m}`, run_in_background: true, description: 'long one' }));
    const active = await call('list_background_jobs', {});
    expect(active).toContain(running);
    expect(active).not.toContain(done);
    const all = await call('list_background_jobs', { active_only: false });
    expect(all).toContain(running);
    expect(all).toContain(done);
    await call('cancel_background_jobs', { ids: [running] });
    expect(await call('list_background_jobs', {})).toMatch(/No background task of this conversation is running/);
  });

  it('task_output reports the saved output path, which holds the whole output', async () => {
    const id = idIn(await call('execute_command', { command: 'seq 1 5', run_in_background: true, description: 'count' }));
    await until(() => status(id).status !== 'running', 'the task to end');
    const out = await call('task_output', { id });
    const path = /output_path: (\S+)/.exec(out)?.[1];
    expect(path).toBeTruthy();
    expect(existsSync(path!)).toBe(true);
    expect(readFileSync(path!, 'utf8')).toBe('1\n2\n3\n4\n5\n');
  });

  it('wait_tasks requires its timeout in seconds, at most 600', async () => {
    const params = tools.get('wait_tasks')!.params;
    expect(params.safeParse({}).success).toBe(false);
    expect(JSON.stringify(params.safeParse({}).error?.issues)).toMatch(/timeout is required/);
    expect(params.safeParse({ timeout: 601 }).success).toBe(false);
    expect(params.safeParse({ timeout: 600 }).success).toBe(true);
    expect(await call('wait_tasks', { timeout: 1 })).toMatch(/nothing to wait for/);
  });

  it('cancel_background_jobs keeps the reason it was given with the task', async () => {
    const m = marker();
    const id = idIn(await call('execute_command', { command: `sleep ${m}`, run_in_background: true, description: 'to stop' }));
    expect(await call('cancel_background_jobs', { ids: [id], reason: 'the build was fixed another way' })).toBe(`${id}: cancelled`);
    expect(status(id)).toMatchObject({ status: 'cancelled' });
    expect(status(id).summary).toMatch(/the build was fixed another way/);
    expect(await call('list_background_jobs', { active_only: false })).toMatch(/the build was fixed another way/);
    const other = idIn(await call('execute_command', { command: `sleep ${m}`, run_in_background: true, description: 'default reason' }));
    await call('cancel_background_jobs', { ids: [other] });
    expect(status(other).summary).toMatch(/Stopped by cancel_background_jobs/);
  });
});
