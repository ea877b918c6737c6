/**
 * Settings beyond providers take effect: the log retention in settings.json decides what the next start's pruning
 * deletes (bytes on disk). The other settings' effects are in e2e/layout.spec.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/main/host/assembly/open-runtime';
import { defaultSettings } from '../../src/main/host/assembly/settings-file';
import { rawRun } from '../support/raw-db';
import { taskFixture, until } from '../support/tasks';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A data dir holding one background command that ended `daysAgo` days ago, with its output log on disk. */
async function endedTaskLog(daysAgo: number): Promise<{ dataDir: string; log: string }> {
  const f = taskFixture();
  const ctx = f.ctx();
  const { executeCommand, waitTasks } = f.tools;
  const started = await executeCommand.execute(executeCommand.params.parse({ command: 'echo kept', run_in_background: true, description: 'echo' }), ctx);
  const id = /(cmd_[0-9a-f]{8})/.exec(started.output)![1]!;
  await waitTasks.execute({ ids: [id], timeout: 10 }, ctx);
  const log = f.tasks.rows.getTask(id)!.output_path!;
  await f.close();
  rawRun(f.dataDir, 'UPDATE background_tasks SET finished_at = ? WHERE id = ?', Date.now() - daysAgo * 24 * 3600_000, id);
  expect(existsSync(log)).toBe(true);
  return { dataDir: f.dataDir, log };
}

function start(dataDir: string) {
  const runtime = openRuntime({ dataDir, vault: null });
  closers.push(async () => {
    await runtime.shutdownServices();
    runtime.store.close();
  });
  return runtime;
}

describe('Settings → log retention', () => {
  it('keeps a 3-day-old log under the default 7 days, deletes it when Settings says 2 days', async () => {
    const kept = await endedTaskLog(3);
    // The pruning a start runs, run again here so its outcome is known before the assertion below.
    expect(start(kept.dataDir).tasks.pruneLogs()).toBe(0);
    const pruned = await endedTaskLog(3);
    writeFileSync(join(pruned.dataDir, 'settings.json'), JSON.stringify({ ...defaultSettings({}), logRetentionDays: 2 }));
    start(pruned.dataDir);
    // openRuntime prunes in the background (tasks.recover): wait for its effect on disk.
    await until(() => !existsSync(pruned.log), 'the log pruned under a 2-day retention');
    expect(existsSync(kept.log)).toBe(true);
  });
});
