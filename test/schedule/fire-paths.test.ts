/**
 * `deskhand fire ID` as the OS job runs it (the exact command and environment of `fireCommand`), on both of its paths
 * (issue 30): a reminder rings with the store, the OS scheduler and the notifier alone; a fire that must start a run
 * (a trigger, or a crashed fire's claim taken over) opens the whole runtime and runs. Each is proven by its effects:
 * the fire's row (when it was really claimed, how late against its due time, how it ended), the notification as dunst
 * received it on a private D-Bus session, the scripted model server's requests. What the reminder path loads is held
 * by test/cli/cli-import-cost.test.ts.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import type { ScheduleService } from '../../src/main/services/scheduler/schedules';
import { hostFireCommand, hostSchedules } from '../../src/main/host/assembly/schedule-wiring';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { rawAll } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { requireBuild } from '../support/cli';
import { until } from '../support/tasks';
import { startDesktopWorld, type DesktopWorld } from './desktop-world';

let server: ModelServer;
let world: DesktopWorld;
let dataDir: string;
let store: Store;
let schedules: ScheduleService;

beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
  world = await startDesktopWorld();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await world?.stop();
});
beforeEach(() => {
  dataDir = tempDir('deskhand-fire-paths-');
  store = new Store(dataDir);
  // No OS job is armed here: the test itself plays the OS and runs the job's command.
  schedules = hostSchedules(store, dataDir, { os: false });
  return () => store.close();
});

interface FireRow {
  id: string;
  schedule_id: string;
  due_at: number;
  claimed_at: number;
  claimed_by: string;
  finished_at: number | null;
  status: string;
  via: string;
  run_id: string | null;
  detail: string | null;
}
const firesOf = (id: string) => rawAll<FireRow>(dataDir, 'SELECT * FROM schedule_fires WHERE schedule_id = ?', id);

/** Runs the OS job of `id` (its command, arguments and environment) and waits for it to exit. */
async function runJob(id: string): Promise<{ code: number | null; started: number; exited: number; pid: number }> {
  // No waiting for the person's answer to the reminder (test/schedule/notify-actions.test.ts presses its buttons).
  const cmd = hostFireCommand(id, dataDir, { ...process.env, ...world.env, DESKHAND_NOTIFY: 'dbus', DESKHAND_NOTIFY_WAIT_S: '0' });
  const started = Date.now();
  const child = spawn(cmd.file, cmd.args, { env: { ...cmd.env, DESKHAND_NOTIFY: 'dbus' }, stdio: 'ignore' });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  return { code, started, exited: Date.now(), pid: child.pid! };
}

/** A conversation with one finished run on the scripted model server (where a woken run takes its provider from). */
function conversation(): string {
  const conv = store.createConversation({ id: `conv_${Math.random().toString(16).slice(2, 10)}`, title: 't', folder: tempDir('deskhand-fire-paths-work-'), policy: 'low-risk' });
  store.createRun({ id: `run_seed_${conv.id}`, conversation_id: conv.id, policy: 'low-risk', provider: 'openai-compatible', model: 'm', base_url: server.baseURL });
  store.updateRun(`run_seed_${conv.id}`, { status: 'finished' });
  return conv.id;
}

describe('deskhand fire, as the OS job runs it', () => {
  it('a late reminder rings on dunst and its fire records when it really happened and how late it was', async () => {
    const { row } = await schedules.addReminder({ text: 'Stretch FIRE-PATHS-1', when: '1h', conversationId: null });
    const due = Date.now() - 3_000;
    schedules.rows.update(row.id, { next_at: due });
    const job = await runJob(row.id);
    expect(job.code).toBe(0);
    await until(() => world.notifications().some((n) => n.body.includes('FIRE-PATHS-1')), 'the reminder on dunst', 10_000);
    expect(world.notifications().find((n) => n.body.includes('FIRE-PATHS-1'))).toMatchObject({ summary: 'Reminder', appname: 'Deskhand', category: 'deskhand.reminder' });
    const [fire] = firesOf(row.id);
    expect(fire).toMatchObject({ status: 'notified', via: 'os', due_at: due, run_id: null, detail: 'notified via dbus' });
    // Claimed by the job's process, while it ran: at least the 3 s late it was started, and finished after the claim.
    expect(fire!.claimed_by.split(':')[0]).toBe(String(job.pid));
    expect(fire!.claimed_at).toBeGreaterThanOrEqual(job.started);
    expect(fire!.claimed_at).toBeLessThanOrEqual(job.exited);
    expect(fire!.claimed_at - fire!.due_at).toBeGreaterThanOrEqual(3_000);
    expect(fire!.finished_at).toBeGreaterThanOrEqual(fire!.claimed_at);
    const after = schedules.get(row.id)!;
    expect(after).toMatchObject({ status: 'done', next_at: null });
    // The schedule's own "last fired" is the moment the job decided to fire, just before its claim.
    expect(after.last_fired_at).toBeGreaterThanOrEqual(job.started);
    expect(after.last_fired_at).toBeLessThanOrEqual(fire!.claimed_at);
    // Once: the same job run again finds nothing to fire.
    expect((await runJob(row.id)).code).toBe(0);
    expect(firesOf(row.id)).toHaveLength(1);
  }, 60_000);

  it('a due trigger opens the runtime and runs its conversation: the model server receives the prompt', async () => {
    const conv = conversation();
    const { row } = await schedules.registerTrigger({ when: '1h', prompt: 'FIRE-PATHS-2 check the build', conversationId: conv });
    schedules.rows.update(row.id, { next_at: Date.now() });
    server.enqueue(reply().text('The build is green.'));
    const before = server.requests.length;
    const job = await runJob(row.id);
    expect(job.code).toBe(0);
    const woke = server.requests.slice(before).filter((r) => JSON.stringify(r.body).includes('FIRE-PATHS-2'));
    expect(woke.length).toBeGreaterThanOrEqual(1);
    const [fire] = firesOf(row.id);
    expect(fire).toMatchObject({ status: 'ran', via: 'os' });
    const [run] = rawAll<{ conversation_id: string; status: string }>(dataDir, 'SELECT conversation_id, status FROM runs WHERE id = ?', fire!.run_id);
    expect(run).toEqual({ conversation_id: conv, status: 'finished' });
    await until(() => world.notifications().some((n) => n.summary === 'A scheduled prompt ran'), 'the ran notification', 10_000);
  }, 60_000);

  it("a reminder's job that finds a crashed trigger fire's claim runs that trigger (opening the runtime) and still rings", async () => {
    const conv = conversation();
    const { row: trigger } = await schedules.registerTrigger({ when: '1h', prompt: 'FIRE-PATHS-3 resume the work', conversationId: conv });
    // A fire claimed by a process that is gone (pid 2^22 + 1 is above any pid_max default), before it started its run.
    const claim = schedules.rows.claim(trigger.id, Date.now() - 60_000, `${4_194_305}:1`, 'os', 1, false);
    expect(claim).not.toBeNull();
    schedules.rows.update(trigger.id, { status: 'done', next_at: null });
    const { row: reminder } = await schedules.addReminder({ text: 'Water FIRE-PATHS-4', when: '1h', conversationId: null });
    schedules.rows.update(reminder.id, { next_at: Date.now() });
    server.enqueue(reply().text('Resumed.'));
    const before = server.requests.length;
    const job = await runJob(reminder.id);
    expect(job.code).toBe(0);
    expect(server.requests.slice(before).filter((r) => JSON.stringify(r.body).includes('FIRE-PATHS-3')).length).toBeGreaterThanOrEqual(1);
    expect(firesOf(trigger.id)).toEqual([expect.objectContaining({ id: claim!.id, status: 'ran', claimed_by: expect.stringMatching(new RegExp(`^${job.pid}:`)) })]);
    expect(firesOf(reminder.id)).toEqual([expect.objectContaining({ status: 'notified', via: 'os' })]);
    await until(() => world.notifications().some((n) => n.body.includes('FIRE-PATHS-4')), 'the reminder on dunst', 10_000);
  }, 60_000);
});
