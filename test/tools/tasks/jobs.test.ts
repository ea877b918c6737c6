/**
 * run_background_jobs end to end: the detached worker (a real process), the concurrency cap, retries with backoff,
 * cancel, and a batch that survives its worker being killed with SIGKILL (a new worker picks it up).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackgroundTasks } from '../../../src/main/services/tasks/background-tasks';
import { backoffDelay } from '../../../src/main/services/tasks/job-worker';
import { killByMarker, sleeping, taskFixture, until, type TaskFixture } from '../../support/tasks';

let f: TaskFixture;
const markers: string[] = [];
beforeEach(() => {
  f = taskFixture();
});
afterEach(async () => {
  // Workers are detached: end any this test left (by the pid the store recorded), then the fixture.
  for (const t of f.tasks.rows.runningTasks('job_batch')) {
    await f.tasks.cancel([t.id], null).catch(() => undefined);
    if (t.owner_pid) {
      try {
        process.kill(t.owner_pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  await f.close();
  for (const m of markers.splice(0)) killByMarker(m);
});

async function start(args: Record<string, unknown>): Promise<string> {
  const { runBackgroundJobs } = f.tools;
  const result = await runBackgroundJobs.execute(runBackgroundJobs.params.parse(args), f.ctx());
  const id = /(jobs_[0-9a-f]{8})/.exec(result.output)?.[1];
  if (!id) throw new Error(result.output);
  return id;
}

async function finished(id: string, timeoutMs = 30_000) {
  const { finished: done } = await f.tasks.waitAny(f.conversationId, [id], timeoutMs);
  expect(done.map((t) => t.id)).toEqual([id]);
  return done[0]!;
}

describe('run_background_jobs', () => {
  it('asks once for the riskiest job and shows every job in the preview', async () => {
    const { runBackgroundJobs } = f.tools;
    const cctx = { cwd: f.ws, workspaceRoots: [f.ws], dataDir: f.dataDir };
    const args = runBackgroundJobs.params.parse({ jobs: [{ command: 'ls' }, { command: 'rm -rf build', retries: 2 }, { command: 'echo hi > out.txt', cwd: 'sub' }] });
    const c = (await runBackgroundJobs.effects!(args, cctx)).assessment!;
    expect(c.risk).toBe('high-risk');
    expect(c.reasons.join('\n')).toMatch(/job 2 \(high-risk\): rm/);
    expect(c.rulePattern).toBeNull();
    const proposal = await runBackgroundJobs.pair!.propose(args, f.ctx());
    expect(proposal.description).toBe('Run 3 commands in the background (at most 2 at once, failed ones retried up to 2 times)');
    expect(proposal.preview).toBe(`[1]\nls\n[2] (retries 2)\nrm -rf build\n[3] (in ${join(f.ws, 'sub')})\necho hi > out.txt`);
    expect((await runBackgroundJobs.effects!(runBackgroundJobs.params.parse({ jobs: [{ command: 'ls' }, { command: 'cat x' }] }), cctx)).assessment!.risk).toBe('read-only');
  });

  it('runs every job in a detached worker, at most `concurrency` at once, and reports each one', async () => {
    const log = join(f.ws, 'spans');
    const job = (n: number) => ({ command: `echo "start ${n} $(date +%s%N)" >> spans; sleep 0.4; echo "end ${n} $(date +%s%N)" >> spans; echo job ${n} done; exit ${n === 3 ? 7 : 0}` });
    const id = await start({ jobs: [job(1), job(2), job(3), job(4), job(5)], concurrency: 2, description: 'five' });
    const batch = await finished(id);
    expect(batch.status).toBe('failed');
    expect(batch.summary).toBe('5 jobs: 4 succeeded, 1 failed');
    const jobs = f.tasks.jobs(id);
    expect(jobs.map((j) => [j.status, j.exit_code])).toEqual([['succeeded', 0], ['succeeded', 0], ['failed', 7], ['succeeded', 0], ['succeeded', 0]]);
    expect(jobs.map((j) => j.tail?.trim())).toEqual(['job 1 done', 'job 2 done', 'job 3 done', 'job 4 done', 'job 5 done']);

    // The cap, from the jobs' own timestamps: never more than two between a start and an end.
    let running = 0;
    let most = 0;
    const events = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' ')).sort((a, b) => Number(BigInt(a[2]!) - BigInt(b[2]!)));
    for (const [kind] of events) {
      running += kind === 'start' ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(events).toHaveLength(10);
    expect(most).toBe(2);

    const text = f.tasks.describe(batch);
    expect(text).toContain(`${id}.3  failed, exit code 7`);
    const page = await f.tools.taskOutput.execute({ id: `${id}.2` }, f.ctx());
    expect(page.output).toContain('job 2 done');
    const listed = await f.tools.listBackgroundJobs.execute({ active_only: false }, f.ctx());
    expect(listed.output).toContain(`${id}  job batch  failed`);
    expect(listed.output).toContain(`${id}.5  succeeded, exit code 0`);
  });

  it('retries a failed job with exponential backoff', async () => {
    const command = 'date +%s%N >> attempts; n=$(wc -l < attempts); echo "attempt $n"; [ "$n" -ge 3 ]';
    const id = await start({ jobs: [{ command, retries: 3 }, { command: 'exit 4', retries: 1 }], backoff_ms: 200 });
    await finished(id);
    const [flaky, hopeless] = f.tasks.jobs(id);
    expect(flaky).toMatchObject({ status: 'succeeded', attempts: 3, note: 'succeeded on attempt 3' });
    expect(hopeless).toMatchObject({ status: 'failed', attempts: 2, exit_code: 4, note: 'exit code 4 on attempt 2 of 2' });
    const times = readFileSync(join(f.ws, 'attempts'), 'utf8').trim().split('\n').map((t) => Number(BigInt(t) / 1_000_000n));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(backoffDelay(200, 1) - 20);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(backoffDelay(200, 2) - 20);
    expect([backoffDelay(200, 1), backoffDelay(200, 2), backoffDelay(200, 3), backoffDelay(1000, 10)]).toEqual([200, 400, 800, 60_000]);
    const out = await f.tools.taskOutput.execute({ id: `${id}.1`, offset: 0 }, f.ctx());
    expect(out.output).toMatch(/attempt 1\n\n=== attempt 2 \(.*\) ===\nattempt 2\n\n=== attempt 3/);
  });

  it('survives its worker being killed: a new worker ends the leftovers, reruns what may be rerun and reports every job', async () => {
    const m = `${800 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 1e6)}`;
    markers.push(`sleep ${m}`);
    const id = await start({
      concurrency: 2,
      jobs: [
        { command: `echo first try; [ -f again ] && echo second try && exit 0; touch again; sleep ${m}`, retries: 1 },
        { command: `sleep ${m}` },
        { command: 'echo three' },
      ],
    });
    await until(() => sleeping(m).length === 2, 'both jobs to run', 20_000);
    const worker = f.tasks.rows.getTask(id)!.owner_pid!;
    process.kill(worker, 'SIGKILL');
    // In the sandbox the jobs die with their worker (die-with-parent).
    await until(() => sleeping(m).length === 0, 'the jobs to end with the worker', 5_000);
    expect(f.tasks.jobs(id).map((j) => j.status)).toEqual(['running', 'running', 'pending']);

    // Deskhand starts again (a fresh service on the same store) and recovers the batch.
    const next = new BackgroundTasks({ store: f.store, dataDir: f.dataDir });
    const report = await next.recover();
    expect(report.revived).toEqual([id]);
    const { finished: done } = await next.waitAny(f.conversationId, [id], 30_000);
    expect(done[0]).toMatchObject({ id, status: 'failed', summary: '3 jobs: 2 succeeded, 1 failed' });
    const jobs = next.jobs(id);
    expect(jobs[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(jobs[0]!.tail).toContain('second try');
    expect(jobs[1]).toMatchObject({ status: 'interrupted', note: 'the worker running it stopped (no retries left)' });
    expect(jobs[2]).toMatchObject({ status: 'succeeded', tail: 'three\n' });
    expect(next.rows.getTask(id)!.owner_pid).not.toBe(worker);
    await next.shutdown();
  });

  it('cancel stops the running jobs and drops the pending ones', async () => {
    const m = `${800 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 1e6)}`;
    markers.push(`sleep ${m}`);
    const id = await start({ concurrency: 1, jobs: [{ command: `sleep ${m}` }, { command: 'echo never' }] });
    await until(() => sleeping(m).length === 1, 'the first job to run', 20_000);
    const result = await f.tools.cancelBackgroundJobs.execute({ ids: [id] }, f.ctx());
    expect(result.output).toBe(`${id}: cancelled`);
    expect(sleeping(m)).toEqual([]);
    const batch = await until(() => {
      const t = f.tasks.rows.getTask(id)!;
      return t.status !== 'running' && t;
    }, 'the batch to close', 10_000);
    expect(batch).toMatchObject({ status: 'cancelled', notify: 0 });
    expect(f.tasks.jobs(id).map((j) => j.status)).toEqual(['cancelled', 'cancelled']);
  });
});
