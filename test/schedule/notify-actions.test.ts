/**
 * A rung reminder's buttons, pressed on a real notification server with the app closed (issue 51, item 1): the OS
 * job's own process (`deskhand fire`, as atd runs it) shows the reminder on dunst over a private D-Bus session, waits
 * for the person, acts, then exits. The buttons are pressed through dunst itself (`dunstctl context` opens its menu,
 * whose menu program picks the button; `dunstctl action` is the click). Proven by effects: the schedule's row, its
 * job in the real atd's queue (`atq`), the fire's record, the command the click started.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import type { ScheduleService } from '../../src/main/services/scheduler/schedules';
import { hostFireCommand, hostSchedules } from '../../src/main/host/assembly/schedule-wiring';
import { parseWhen } from '../../src/main/services/scheduler/when';
import { rawAll } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { requireBuild } from '../support/cli';
import { until } from '../support/tasks';
import { startDesktopWorld, type DesktopWorld } from './desktop-world';

let world: DesktopWorld;
let dataDir: string;
let store: Store;
let schedules: ScheduleService;

beforeAll(async () => {
  requireBuild();
  // A display of its own when there is none: another file's world ends the Xvfb it started, and dunst with it.
  world = await startDesktopWorld(':76');
}, 60_000);
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  dataDir = tempDir('deskhand-notify-actions-');
  store = new Store(dataDir);
  schedules = hostSchedules(store, dataDir, { os: false });
  world.notifications();
  return () => store.close();
});

interface Row {
  status: string;
  next_at: number | null;
  os_backend: string | null;
  os_job: string | null;
}
interface Fire {
  status: string;
  acted: string | null;
  acted_at: number | null;
}
const rowOf = (id: string) => rawAll<Row>(dataDir, 'SELECT status, next_at, os_backend, os_job FROM schedules WHERE id = ?', id)[0]!;
const firesOf = (id: string) => rawAll<Fire>(dataDir, 'SELECT status, acted, acted_at FROM schedule_fires WHERE schedule_id = ?', id);

/** A due reminder's OS job, started as atd starts it, that waits up to a minute for the person. */
async function ring(text: string, extraEnv: Record<string, string> = {}): Promise<{ id: string; job: ChildProcess; exited: Promise<number | null> }> {
  const { row } = await schedules.addReminder({ text, when: '1h', conversationId: null });
  schedules.rows.update(row.id, { next_at: Date.now() - 1_000 });
  const cmd = hostFireCommand(row.id, dataDir, { ...process.env, ...world.env, DESKHAND_NOTIFY: 'dbus', DESKHAND_NOTIFY_WAIT_S: '60', ...extraEnv });
  const job = spawn(cmd.file, cmd.args, { env: cmd.env, stdio: 'ignore' });
  const exited = new Promise<number | null>((r) => job.on('exit', r));
  await until(() => firesOf(row.id)[0]?.status === 'notified' && world.displayed() > 0, 'the reminder on dunst', 20_000);
  return { id: row.id, job, exited };
}

const atrm = (job: string | null) => job && execFileSync('atrm', [job]);

describe("a reminder's buttons with the app closed", () => {
  it.each([
    { label: 'Snooze 10 min', minutes: 10 },
    { label: 'Snooze 1 h', minutes: 60 },
    { label: 'Tomorrow 09:00', minutes: null },
  ])('$label re-arms it with the OS scheduler: the row is active again and atq holds its job', async ({ label, minutes }) => {
    const { id, exited, job } = await ring(`Call the bank NOTIFY-ACT ${label}`);
    const pressed = Date.now();
    const offered = await world.press(label);
    // dunst offered every button of the reminder.
    for (const b of ['Snooze 10 min', 'Snooze 1 h', 'Tomorrow 09:00', 'Dismiss']) expect(offered.some((l) => l.includes(b))).toBe(true);
    expect(await exited).toBe(0);
    const row = rowOf(id);
    try {
      expect(row.status).toBe('active');
      if (minutes) {
        expect(row.next_at! - pressed).toBeGreaterThanOrEqual(minutes * 60_000 - 5_000);
        expect(row.next_at! - pressed).toBeLessThanOrEqual(minutes * 60_000 + 60_000);
      } else {
        const tz = rawAll<{ tz: string }>(dataDir, 'SELECT tz FROM schedules WHERE id = ?', id)[0]!.tz;
        expect(row.next_at).toBe(parseWhen('tomorrow 09:00', { now: pressed, tz }).at);
      }
      expect(row).toMatchObject({ os_backend: 'at', os_job: expect.stringMatching(/^\d+$/) });
      // The real atd's queue holds the job, and the job runs this schedule's fire.
      expect(world.atJobs().some((l) => l.split(/\s/)[0] === row.os_job)).toBe(true);
      expect(execFileSync('at', ['-c', row.os_job!], { encoding: 'utf8' })).toContain(`fire ${id}`);
      expect(firesOf(id)).toEqual([expect.objectContaining({ status: 'notified', acted: expect.stringMatching(/^snoozed until /) })]);
    } finally {
      atrm(row.os_job);
      if (job.exitCode === null) job.kill();
    }
  }, 90_000);

  it('Dismiss marks the fire and leaves nothing armed', async () => {
    const { id, exited } = await ring('Water the plants NOTIFY-ACT dismiss');
    await world.press('Dismiss');
    expect(await exited).toBe(0);
    expect(rowOf(id)).toMatchObject({ status: 'done', next_at: null, os_job: null });
    expect(firesOf(id)).toEqual([expect.objectContaining({ status: 'notified', acted: 'dismissed', acted_at: expect.any(Number) })]);
  }, 90_000);

  it("a click opens the reminder's conversation: the desktop app is started on it", async () => {
    const dir = tempDir('deskhand-notify-open-');
    const launched = join(dir, 'argv.json');
    const fakeApp = join(dir, 'app.mjs');
    writeFileSync(fakeApp, `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(launched)}, JSON.stringify({ argv: process.argv.slice(2), runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null }));\n`);
    const { id, exited } = await ring('Read the report NOTIFY-ACT open', { DESKHAND_APP_COMMAND: JSON.stringify([process.execPath, fakeApp]) });
    world.click();
    expect(await exited).toBe(0);
    await until(() => existsSync(launched), 'the app started by the click', 10_000);
    expect(JSON.parse(readFileSync(launched, 'utf8'))).toEqual({ argv: [`--open-schedule=${id}`], runAsNode: null });
    expect(firesOf(id)).toEqual([expect.objectContaining({ acted: 'opened' })]);
  }, 90_000);

  it('closing the notification ends the wait: the process exits and nothing changed', async () => {
    const { id, exited } = await ring('Stand up NOTIFY-ACT close');
    world.notifications();
    expect(await exited).toBe(0);
    expect(rowOf(id)).toMatchObject({ status: 'done', os_job: null });
    expect(firesOf(id)).toEqual([expect.objectContaining({ status: 'notified', acted: null })]);
  }, 90_000);
});
