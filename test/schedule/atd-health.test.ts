/**
 * The OS scheduler's health through what the person reads (issue 34 item 9): with the test world's real atd, the
 * canary job runs, add_reminder installs an at job and says nothing is wrong, and `deskhand schedule doctor` names the
 * backend with no warning; with a pid file whose pid is not atd (a stale pid file: the pid belongs to another
 * program), the reminder's result and the doctor both say atd is not running and no at job is installed.
 * atd itself is not stopped here: it is one daemon with one spool for every test on this machine (other suites, other
 * worktrees); a stopped daemon is the fake-exec row of test/schedule/os-jobs.test.ts instead.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { AtScheduler } from '../../src/main/services/scheduler/os-schedulers';
import { createScheduleFamily } from '../../src/main/tools/schedule';
import { requireBuild, runCli } from '../support/cli';
import { makeContext, tempDir } from '../support/tool-context';

const opened: AppRuntime[] = [];
beforeAll(() => requireBuild());
afterEach(() => {
  for (const r of opened.splice(0)) r.close();
  delete process.env.DESKHAND_ATD_PID_FILE;
  delete process.env.DESKHAND_OS_SCHEDULER;
});

async function addReminder(dataDir: string): Promise<{ runtime: AppRuntime; output: string; id: string }> {
  delete process.env.DESKHAND_OS_SCHEDULER;
  const runtime = createAppRuntime({ dataDir, vault: null });
  opened.push(runtime);
  const conv = runtime.createConversation({ folder: dataDir, policy: 'low-risk' }).id;
  const tool = createScheduleFamily({ schedules: runtime.schedules }).tools.find((t) => t.name === 'add_reminder')!;
  const r = await tool.execute(tool.params.parse({ when: '3h', text: 'Call Ana' }) as never, { ...makeContext(dataDir), conversationId: conv });
  const output = typeof r === 'string' ? r : (r as { output: string }).output;
  const id = /rem_[0-9a-f]{8}/.exec(output)![0];
  return { runtime, output, id };
}

describe('atd health, end to end', () => {
  it('with the real atd: the reminder gets an at job, its result and the doctor say nothing is wrong', async () => {
    const dataDir = tempDir('deskhand-atd-health-');
    const { runtime, output, id } = await addReminder(dataDir);
    expect(output).not.toMatch(/atd is not running|only while Deskhand runs/);
    const row = runtime.schedules.get(id)!;
    expect([row.os_backend, row.os_note]).toEqual(['at', null]);
    expect((await new AtScheduler(dataDir).list()).map((j) => j.scheduleId)).toEqual([id]);
    const doctor = await runCli(['schedule', 'doctor', '--dry-run', '--data-dir', dataDir]);
    expect(doctor.stdout.split('\n')[0]).toBe('OS scheduler: at');
    await runtime.schedules.cancel(id);
  }, 90_000);

  it('with a stale pid file (its pid is another program): the result and the doctor say atd is not running', async () => {
    const dataDir = tempDir('deskhand-atd-health-');
    const pidFile = join(tempDir('deskhand-atd-pid-'), 'atd.pid');
    writeFileSync(pidFile, `${process.pid}\n`);
    process.env.DESKHAND_ATD_PID_FILE = pidFile;
    const { runtime, output, id } = await addReminder(dataDir);
    const stale = new RegExp(`atd is not running \\(pid ${process.pid} from its pid file is node, not atd: a stale pid file\\)`);
    expect(output).toMatch(stale);
    expect(output).toMatch(/It rings only while Deskhand runs\./);
    expect(runtime.schedules.get(id)!.os_job).toBeNull();
    expect(await new AtScheduler(dataDir).list()).toEqual([]);
    const doctor = await runCli(['schedule', 'doctor', '--dry-run', '--data-dir', dataDir], { env: { DESKHAND_ATD_PID_FILE: pidFile } });
    expect(doctor.stdout.split('\n')[0]).toMatch(/^OS scheduler: at — /);
    expect(doctor.stdout).toMatch(stale);
  }, 90_000);
});
