/**
 * Crash recovery of child rows: a `deskhand run` process running a background child is killed with SIGKILL. Its
 * child row must not stay "running": the parent's wait_subagents (in the next process, with no start-up recovery)
 * returns it as failed with "interrupted: …", and a process that starts with recovery (openRuntime) ends it and
 * closes its task. Uses the built binary (`npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppRuntime, openRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { rawGet } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { allText, firstUser } from './harness';

let server: ModelServer | null = null;
let open: { runtime: AppRuntime; store: Store } | null = null;
afterEach(async () => {
  if (open) {
    await open.runtime.tasks.shutdown();
    open.store.close();
  }
  await server?.close();
  server = open = null;
});

type Row = { id: string; status: string; error: string | null; owner_pid: number | null; parent_conversation_id: string; task_id: string | null };

async function until<T>(what: string, fn: () => T | undefined | null | false, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A `deskhand run` whose parent spawns a background child that hangs, killed with SIGKILL once the child runs. */
async function killedMidChild(): Promise<{ dataDir: string; work: string; row: Row; exit: { signal: string | null } }> {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  const parent = [
    reply().tool('spawn_subagent', { prompt: 'SLOW CHILD: look around', description: 'slow child', type: 'explore', background: true }),
    reply().tool('wait_subagents', {}),
  ];
  server.setFallback((req) => (firstUser(req).includes('SLOW CHILD') ? reply().hang() : (parent.shift() ?? { status: 500, message: 'no parent reply left' })));
  let proc: ChildProcess | null = null;
  const done = runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'read-only', '--cwd', work, '--data-dir', dataDir, '--enable', 'subagents', '--json', 'start a helper'], {
    onSpawn: (c) => (proc = c),
  });
  // Running, and its own run recorded (the row turns running a moment before the child's run row is written).
  const row = await until('the child to run', () => {
    try {
      const r = rawGet<Row>(dataDir, "SELECT * FROM subagents WHERE status = 'running'");
      const run = r && rawGet<{ id: string }>(dataDir, 'SELECT r.id FROM runs r JOIN subagents s ON s.conversation_id = r.conversation_id WHERE s.id = ?', r.id);
      return run ? r : undefined;
    } catch {
      return undefined; // the database may not exist yet
    }
  });
  expect(row.owner_pid).toBe((proc as ChildProcess | null)?.pid);
  process.kill(row.owner_pid!, 'SIGKILL');
  const result = await done;
  expect(result.code).toBeNull();
  // Nothing cleaned up behind the dead process: the row still says running.
  expect(rawGet<Row>(dataDir, 'SELECT * FROM subagents WHERE id = ?', row.id)?.status).toBe('running');
  return { dataDir, work, row, exit: { signal: 'SIGKILL' } };
}

describe('child rows after their process is killed', () => {
  it("are returned by the parent's wait_subagents as failed (interrupted) when the parent resumes", async () => {
    requireBuild();
    const { dataDir, row } = await killedMidChild();
    // The next process opens without start-up recovery: the parent's own wait must notice the dead owner.
    const store = new Store(dataDir);
    const runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10 });
    open = { runtime, store };
    const seen: string[] = [];
    const parent = [reply().tool('wait_subagents', { ids: [row.id], until: 'all', timeout_seconds: 30 }), reply().text('noted')];
    server!.setFallback((req) => {
      seen.push(allText(req));
      return parent.shift() ?? { status: 500, message: 'no parent reply left' };
    });
    const out = await runtime.sendMessage(row.parent_conversation_id, 'go on', {
      provider: { provider: 'openai', model: 'm', baseURL: server!.baseURL, apiKey: 'sk-test' },
      interactive: false,
    });
    expect(out.status).toBe('finished');
    // The model's next request carries the wait's result: the child failed, interrupted, with the reason.
    expect(seen.at(-1)).toMatch(new RegExp(`Subagent ${row.id} \\(explore: slow child\\) failed`));
    expect(seen.at(-1)).toMatch(/interrupted: the process that ran it \(pid \d+\) stopped while it was running/);
    const after = store.module((await import('../../src/main/services/store/modules/subagents')).subagentsModule).get(row.id)!;
    expect(after.status).toBe('failed');
    expect(after.reported).toBe(1);
    // Its background task is closed too (interrupted), not left running.
    expect(store.tasks.getTask(row.task_id!)?.status).toBe('interrupted');
  }, 120_000);

  it('are ended at the next start (openRuntime), their tasks closed', async () => {
    requireBuild();
    const { dataDir, row } = await killedMidChild();
    const runtime = openRuntime({ dataDir, vault: null });
    open = { runtime, store: runtime.store };
    const after = runtime.subagents.get(row.id)!;
    expect(after.status).toBe('failed');
    expect(after.error).toMatch(/^interrupted: the process that ran it \(pid \d+\) stopped while it was running/);
    expect(after.finished_at).not.toBeNull();
    expect(runtime.store.tasks.getTask(row.task_id!)?.status).toBe('interrupted');
    // The child's own run is closed as interrupted by the runtime's recovery.
    const run = rawGet<{ status: string }>(dataDir, "SELECT r.status FROM runs r JOIN subagents s ON s.conversation_id = r.conversation_id WHERE s.id = ? ORDER BY r.created_at DESC LIMIT 1", row.id);
    expect(run?.status).toBe('interrupted');
    // A live owner is left alone: a row owned by this very process stays running.
    expect(runtime.subagents.recoverOrphans()).toEqual([]);
  }, 120_000);
});
