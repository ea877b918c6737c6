/**
 * The schedule service and fire logic in-process: the 50-trigger limit, renewal, coalesced and stale fires, the
 * ticker (claims: two tickers fire a due schedule once), a crash between claim and run recovered once, and
 * `schedule doctor` against the real atd after cancel, expire and crash (zero mismatches; planted mismatches repaired).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { scheduleFire, staleClaims } from '../../src/main/host/background/schedule-fire';
import { ScheduleTicker } from '../../src/main/host/background/schedule-ticker';
import { Store } from '../../src/main/services/store/store';
import { hostFireCommand, hostSchedules } from '../../src/main/host/assembly/schedule-wiring';
import { AtScheduler } from '../../src/main/services/scheduler/os-schedulers';
import type { NotificationSpec, Notifier } from '../../src/main/services/notify';
import { createScheduleFamily } from '../../src/main/tools/schedule';
import { makeContext, tempDir } from '../support/tool-context';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { requireBuild, runCli } from '../support/cli';
import { startDesktopWorld, type DesktopWorld } from './desktop-world';

class RecordingNotifier implements Notifier {
  shown: NotificationSpec[] = [];
  async notify(spec: NotificationSpec) {
    this.shown.push(spec);
    return { via: 'test', id: String(this.shown.length) };
  }
  onAction() {
    return () => undefined;
  }
  async close() {}
}

let server: ModelServer;
let dataDir: string;
let runtime: AppRuntime;
let notifier: RecordingNotifier;
const opened: AppRuntime[] = [];

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  dataDir = tempDir('deskhand-sched-svc-');
  notifier = new RecordingNotifier();
});
afterEach(async () => {
  for (const r of opened.splice(0)) {
    for (const row of r.schedules.list({ live: true })) await r.schedules.cancel(row.id);
    r.store.close();
  }
  delete process.env.DESKHAND_OS_SCHEDULER;
});

function open(os: 'none' | 'at' = 'none'): AppRuntime {
  if (os === 'none') process.env.DESKHAND_OS_SCHEDULER = 'none';
  else delete process.env.DESKHAND_OS_SCHEDULER;
  const r = createAppRuntime({ dataDir, vault: null });
  opened.push(r);
  return r;
}

const provider = () => ({ provider: 'openai-compatible' as const, model: 'm', baseURL: server.baseURL, apiKey: null });
const deps = (r: AppRuntime, via = 'os') => scheduleFire(r, { notifier, provider, via });
const conversation = (r: AppRuntime) => r.createConversation({ folder: dataDir, policy: 'low-risk' }).id;
const tools = (r: AppRuntime) => Object.fromEntries(createScheduleFamily({ schedules: r.schedules }).tools.map((t) => [t.name, t]));
async function call(r: AppRuntime, conv: string, name: string, args: unknown) {
  const tool = tools(r)[name]!;
  const ctx = { ...makeContext(dataDir), conversationId: conv };
  return tool.execute(tool.params.parse(args) as never, ctx);
}

describe('triggers: limit, renewal, cancellation', () => {
  it('allows 50 active triggers per conversation and refuses the 51st with what to do', async () => {
    runtime = open();
    const conv = conversation(runtime);
    for (let i = 0; i < 50; i++) await call(runtime, conv, 'register_trigger', { when: `${i + 10}m`, prompt: `check ${i}` });
    await expect(call(runtime, conv, 'register_trigger', { when: '2h', prompt: 'one more' })).rejects.toThrow(/already has 50 active triggers \(the limit is 50\)\. Cancel some with cancel_trigger/);
    // Another conversation has its own 50.
    await expect(call(runtime, conversation(runtime), 'register_trigger', { when: '2h', prompt: 'elsewhere' })).resolves.toMatchObject({ output: expect.stringMatching(/registered/) });
    const first = runtime.schedules.list({ kind: 'trigger', conversationId: conv, live: true })[0]!;
    expect((await call(runtime, conv, 'cancel_trigger', { id: first.id })).output).toContain(`Cancelled trigger ${first.id}`);
    await expect(call(runtime, conv, 'cancel_trigger', { id: first.id })).rejects.toThrow(/is cancelled; there is nothing left to cancel/);
    await expect(call(runtime, conv, 'register_trigger', { when: '2h', prompt: 'now it fits' })).resolves.toBeTruthy();
    const listed = (await call(runtime, conv, 'list_triggers', {})).output;
    expect(listed.split('\n---\n')).toHaveLength(50);
  });

  it('registering the same cron and prompt renews instead of adding; bad input is refused with the reason', async () => {
    runtime = open();
    const conv = conversation(runtime);
    const a = (await call(runtime, conv, 'register_trigger', { cron: '0 9 * * 1-5', prompt: 'daily report' })).output;
    expect(a).toMatch(/Recurring; expires/);
    const b = (await call(runtime, conv, 'register_trigger', { cron: '0  9 * * 1-5', prompt: 'daily report' })).output;
    expect(b).toMatch(/renewed/);
    expect(runtime.schedules.list({ kind: 'trigger', live: true })).toHaveLength(1);
    await expect(call(runtime, conv, 'register_trigger', { prompt: 'x' })).rejects.toThrow(/exactly one of `when`/);
    await expect(call(runtime, conv, 'register_trigger', { cron: '0 9 * *', prompt: 'x' })).rejects.toThrow(/5-field/);
    await expect(call(runtime, conv, 'add_reminder', { when: '2020-01-01 10:00', text: 'x' })).rejects.toThrow(/is in the past/);
    await expect(call(runtime, conv, 'register_trigger', { when: '1h', prompt: 'x', conversation: 'conv_other' })).rejects.toThrow(/only wake the conversation it is registered from/);
  });
});

describe('firing', () => {
  it('coalesces missed cron fires into one run with a note, and a stale recurring trigger fires a last time and expires', async () => {
    runtime = open();
    const conv = conversation(runtime);
    const { row } = await runtime.schedules.registerTrigger({ cron: '* * * * *', prompt: 'COALESCE-1 tick', conversationId: conv });
    runtime.schedules.rows.update(row.id, { next_at: Date.now() - 5.5 * 60_000 });
    server.enqueue(reply().text('ok'));
    const before = server.requests.length;
    const o = await deps(runtime).fire(row.id);
    expect(o.status).toBe('ran');
    const body = JSON.stringify(server.requests.slice(before));
    expect(body).toMatch(/coalescedCount=\\"[67]\\"/);
    expect(body).toContain('scheduled fires were missed');
    const after = runtime.schedules.get(row.id)!;
    expect(after.status).toBe('active');
    expect(after.next_at!).toBeGreaterThan(Date.now());
    // Seven days later: the last fire says it is stale, and the trigger is gone.
    runtime.schedules.rows.update(row.id, { next_at: Date.now() - 1000, expires_at: Date.now() - 1000 });
    server.enqueue(reply().text('ok'));
    const before2 = server.requests.length;
    expect((await deps(runtime).fire(row.id)).status).toBe('ran');
    expect(JSON.stringify(server.requests.slice(before2))).toContain('stale=\\"true\\"');
    expect(runtime.schedules.get(row.id)).toMatchObject({ status: 'expired', next_at: null });
    expect((await deps(runtime).fire(row.id)).status).toBe('nothing');
  });

  it('two tickers on two connections fire a due reminder once (the claim decides)', async () => {
    runtime = open();
    const { row } = await runtime.schedules.addReminder({ when: '1s', text: 'once only', conversationId: null });
    expect(row.os_job).toBeNull();
    expect(row.os_note).toMatch(/DESKHAND_OS_SCHEDULER=none/);
    await new Promise((r) => setTimeout(r, 1100));
    const other = new Store(dataDir);
    const otherSchedules = hostSchedules(other, dataDir, { os: false });
    try {
      const t1 = new ScheduleTicker(runtime, { notifier, provider });
      const t2 = new ScheduleTicker({ schedules: otherSchedules, notifier, redactor: runtime.redactor, open: async () => runtime }, { notifier, provider });
      await Promise.all([t1.tick(), t2.tick(), t1.tick()]);
      expect(notifier.shown.map((n) => n.body)).toEqual(['once only']);
      expect(runtime.schedules.fires(row.id)).toHaveLength(1);
      expect(runtime.schedules.fires(row.id)[0]).toMatchObject({ status: 'notified', via: 'ticker' });
    } finally {
      other.close();
    }
  });

  it('snooze brings a rung reminder back; pause keeps a trigger from firing; run now fires it anyway', async () => {
    runtime = open();
    const conv = conversation(runtime);
    const { row } = await runtime.schedules.addReminder({ when: '1s', text: 'tea', conversationId: conv });
    runtime.schedules.rows.update(row.id, { next_at: Date.now() - 1 });
    expect((await deps(runtime).fire(row.id)).status).toBe('notified');
    const snoozed = await runtime.schedules.snooze(row.id, 10);
    expect(snoozed.status).toBe('active');
    expect(snoozed.next_at! - Date.now()).toBeGreaterThan(9 * 60_000);
    const t = (await runtime.schedules.registerTrigger({ when: '1h', prompt: 'RUN-NOW-7', conversationId: conv })).row;
    await runtime.schedules.pause(t.id);
    runtime.schedules.rows.update(t.id, { next_at: Date.now() - 1 });
    expect((await deps(runtime).fire(t.id)).status).toBe('nothing');
    server.enqueue(reply().text('ran now'));
    expect((await deps(runtime, 'now').fire(t.id, { force: true })).status).toBe('ran');
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('RUN-NOW-7');
  });
});

describe('crash between claim and run, and doctor on the real atd', () => {
  let world: DesktopWorld;
  beforeAll(async () => {
    requireBuild();
    world = await startDesktopWorld();
  }, 60_000);
  afterAll(async () => world?.stop());

  it('a fire killed after its claim is recovered once by doctor; doctor then reports zero mismatches', async () => {
    runtime = open('at');
    const conv = conversation(runtime);
    runtime.store.createRun({ id: 'run_seed', conversation_id: conv, policy: 'low-risk', provider: 'openai-compatible', model: 'm', base_url: server.baseURL });
    runtime.store.updateRun('run_seed', { status: 'finished' });
    const { row } = await runtime.schedules.registerTrigger({ when: '2h', prompt: 'CRASH-9001 resume the work', conversationId: conv });
    expect(row.os_backend).toBe('at');
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const child = spawn(process.execPath, ['--import', tsx, join(__dirname, 'crash-fire-main.ts'), dataDir, row.id], { stdio: 'ignore', env: { ...process.env, DESKHAND_OS_SCHEDULER: 'at' } });
    const signal = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
    expect(signal).toBe('SIGKILL');
    // The claim is there, its process is gone, nothing ran.
    const [claim] = runtime.schedules.fires(row.id);
    expect(claim).toMatchObject({ status: 'claimed', run_id: null });
    expect(runtime.schedules.get(row.id)).toMatchObject({ status: 'done' });
    expect(staleClaims(runtime.schedules)).toHaveLength(1);
    const before = server.requests.length;
    const dry = await runCli(['schedule', 'doctor', '--dry-run', '--data-dir', dataDir], { env: world.env });
    expect(dry.stdout).toMatch(/stale claim: fire_[0-9a-f]{8} of trg_/);
    expect(dry.stdout).toContain('1 mismatch.');
    expect(server.requests.length).toBe(before);
    server.enqueue(reply().text('Resumed.'));
    const fixed = await runCli(['schedule', 'doctor', '--data-dir', dataDir], { env: { ...world.env, DESKHAND_NOTIFY: 'dbus' } });
    expect(fixed.stdout).toMatch(/recovered/);
    expect(fixed.stdout).toMatch(/: ran — run finished/);
    const woke = server.requests.slice(before).filter((r) => JSON.stringify(r.body).includes('CRASH-9001'));
    expect(woke).toHaveLength(1);
    expect(runtime.schedules.fires(row.id)).toEqual([expect.objectContaining({ id: claim!.id, status: 'ran', run_id: expect.stringMatching(/^run_/) })]);
    // Nothing fires it again: not another recovery, not its (spent) OS job.
    expect((await deps(runtime).recover()).length).toBe(0);
    const again = await runCli(['fire', row.id, '--data-dir', dataDir], { env: world.env });
    expect(again.stderr).toMatch(/is done; nothing to fire/);
    expect(server.requests.length).toBe(before + 1);
    const clean = await runCli(['schedule', 'doctor', '--data-dir', dataDir], { env: world.env });
    expect(clean.stdout).toContain('0 mismatches.');
  }, 60_000);

  it('after cancel and expire no job is left behind; a lost job and a stray job are found and repaired', async () => {
    runtime = open('at');
    const conv = conversation(runtime);
    const at = new AtScheduler(dataDir);
    const cancelled = (await runtime.schedules.registerTrigger({ when: '2h', prompt: 'cancel me', conversationId: conv })).row;
    const expiring = (await runtime.schedules.registerTrigger({ cron: '0 * * * *', prompt: 'EXPIRE-1 hourly', conversationId: conv })).row;
    const reminder = (await runtime.schedules.addReminder({ when: '3h', text: 'keep me', conversationId: conv })).row;
    expect((await at.list()).map((j) => j.scheduleId).sort()).toEqual([cancelled.id, expiring.id, reminder.id].sort());
    expect(await runtime.schedules.cancel(cancelled.id)).toBe(true);
    // Seven days on: the recurring trigger's last fire expires it.
    runtime.schedules.rows.update(expiring.id, { next_at: Date.now() - 1000, expires_at: Date.now() - 1000 });
    server.enqueue(reply().text('last one'));
    expect((await deps(runtime).fire(expiring.id)).status).toBe('ran');
    expect(runtime.schedules.get(expiring.id)!.status).toBe('expired');
    expect((await at.list()).map((j) => j.scheduleId)).toEqual([reminder.id]);
    let report = await runtime.schedules.doctor(true, staleClaims(runtime.schedules));
    expect([report.jobsWithoutRows, report.rowsWithoutJobs, report.staleClaims]).toEqual([[], [], []]);
    // A job removed behind Deskhand's back, and a job for a schedule that no longer exists.
    await at.remove(runtime.schedules.get(reminder.id)!.os_job!);
    const stray = await at.install('rem_00000000', Date.now() + 4 * 3_600_000, hostFireCommand('rem_00000000', dataDir));
    report = await runtime.schedules.doctor(false);
    expect(report.rowsWithoutJobs.map((r) => r.id)).toEqual([reminder.id]);
    expect(report.jobsWithoutRows.map((j) => j.ref)).toEqual([stray]);
    report = await runtime.schedules.doctor(true);
    expect(report.repaired).toBe(true);
    const jobs = await at.list();
    expect(jobs.map((j) => j.scheduleId)).toEqual([reminder.id]);
    expect(jobs[0]!.ref).toBe(runtime.schedules.get(reminder.id)!.os_job);
    report = await runtime.schedules.doctor(false);
    expect(report.jobsWithoutRows.length + report.rowsWithoutJobs.length).toBe(0);
    await runtime.schedules.cancel(reminder.id);
    expect(await at.list()).toEqual([]);
  }, 60_000);
});
