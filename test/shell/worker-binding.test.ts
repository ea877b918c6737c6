/**
 * The job worker of run_background_jobs loads the same better-sqlite3 build as the process that launches it. In the
 * app that process is Electron, whose ABI only the Electron build matches; the worker is Electron run as Node, so the
 * Node build in node_modules would fail there with an ABI mismatch.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteBinding, useSqliteBinding } from '../../src/main/services/store/native-binding';
import { launchWorker } from '../../src/main/services/tasks/worker-launch';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { nodeSqliteBuild } from './harness';

const before = sqliteBinding();
afterEach(() => useSqliteBinding(before));

/** Launches a worker for a batch that does not exist: it opens the store, finds nothing to do, and says how it ended. */
async function workerLog(): Promise<string> {
  const dataDir = tempDir('deskhand-worker-');
  expect(launchWorker(dataDir, 'batch_none')).not.toBeNull();
  const log = join(dataDir, 'tasks', 'batch_none.worker.log');
  return until(() => {
    try {
      const text = readFileSync(log, 'utf8');
      return /ended|failed/.test(text) ? text : null;
    } catch {
      return null;
    }
  }, 'the worker to end', 20_000);
}

describe('the job worker', () => {
  it('opens the store with the build this process chose', async () => {
    const dir = tempDir('deskhand-binding-');
    const good = join(dir, 'electron-build.node');
    copyFileSync(nodeSqliteBuild(), good);
    useSqliteBinding(good);
    expect(await workerLog()).toMatch(/ended: not mine/);

    // Proof that it is that file the worker loads: a broken one fails it, naming the path.
    const broken = join(dir, 'broken-build.node');
    writeFileSync(broken, 'not a shared object');
    useSqliteBinding(broken);
    const log = await workerLog();
    expect(log).toMatch(/failed/);
    expect(log).toContain(broken);
  });
});
