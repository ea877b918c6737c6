/**
 * The real OS scheduler end to end: the built `deskhand` schedules through the model's tool calls, exits, and the
 * real atd runs `deskhand fire ID` later — a reminder appears on the real notification server (dunst on a private
 * D-Bus session), a trigger wakes its conversation and the scripted model server receives the prompt, a fire that
 * needs approval parks and notifies, and `deskhand schedule doctor` reports zero mismatches afterwards.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { rawAll } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { requireBuild, runCli } from '../support/cli';
import { until } from '../support/tasks';
import { startDesktopWorld, type DesktopWorld } from './desktop-world';

let server: ModelServer;
let world: DesktopWorld;
let dataDir: string;
let work: string;

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
  dataDir = tempDir('deskhand-sched-data-');
  work = tempDir('deskhand-sched-work-');
});

// The fires' jobs do not wait for the reminder's buttons (test/schedule/notify-actions.test.ts presses them).
const env = () => ({ ...world.env, DESKHAND_NOTIFY: 'dbus', DESKHAND_NOTIFY_WAIT_S: '0' });
const cli = (args: string[]) => runCli(args, { env: env() });
const run = (prompt: string, policy = 'low-risk') =>
  cli(['run', '--provider', 'openai-compatible', '--base-url', server.baseURL, '--model', 'm', '--policy', policy, '--cwd', work, '--data-dir', dataDir, '--json', prompt]);

interface Row {
  id: string;
  status: string;
  os_job: string | null;
  os_backend: string | null;
}
interface Fire {
  id: string;
  status: string;
  run_id: string | null;
  via: string;
  detail: string | null;
}
const schedules = () => rawAll<Row>(dataDir, 'SELECT * FROM schedules');
const fires = () => rawAll<Fire>(dataDir, 'SELECT * FROM schedule_fires');
const deskhandProcesses = () => {
  try {
    return execFileSync('pgrep', ['-f', '--', `--data-dir ${dataDir}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
const jobsFor = () => {
  const hex = Buffer.from(dataDir).toString('hex');
  return world
    .atJobs()
    .map((l) => l.split(/\s+/)[0]!)
    .filter((n) => execFileSync('at', ['-c', n], { encoding: 'utf8' }).includes(hex));
};
const requestsWith = (text: string) => server.requests.filter((r) => JSON.stringify(r.body).includes(text));

describe('scheduling on the real atd, with the app closed', () => {
  it('a reminder set through add_reminder rings on the notification server after Deskhand has exited', async () => {
    server.enqueue(reply().tool('add_reminder', { when: '6s', text: 'Stretch your legs REM-7731' }), reply().text('Reminder set.'));
    const result = await run('remind me');
    expect(result.code, result.stderr).toBe(0);
    const toolResult = result.events.find((e) => e.type === 'tool.result') as { output: string } | undefined;
    // displayTime leaves out ":00" seconds, and "6s" from now lands on a whole minute about one run in sixty.
    expect(toolResult?.output).toMatch(/Reminder rem_[0-9a-f]{8} set for \w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})? \(/);
    const [row] = schedules();
    expect(row).toMatchObject({ status: 'active', os_backend: 'at' });
    // The OS holds the job now; the Deskhand that scheduled it is gone.
    expect(jobsFor()).toEqual([row!.os_job]);
    expect(world.notifications().filter((n) => n.body.includes('REM-7731'))).toEqual([]);
    await until(() => world.notifications().some((n) => n.body.includes('REM-7731')), 'the reminder on dunst', 90_000);
    const shown = world.notifications().find((n) => n.body.includes('REM-7731'))!;
    expect(shown).toMatchObject({ summary: 'Reminder', appname: 'Deskhand', category: 'deskhand.reminder' });
    await until(() => fires()[0]?.status === 'notified', 'the fire recorded', 10_000);
    expect(fires()).toHaveLength(1);
    expect(fires()[0]).toMatchObject({ via: 'os', status: 'notified' });
    expect(schedules()[0]).toMatchObject({ status: 'done', os_job: null });
    expect(jobsFor()).toEqual([]);
    await until(() => deskhandProcesses().length === 0, 'the fire process to exit', 10_000);
    const doctor = await cli(['schedule', 'doctor', '--data-dir', dataDir]);
    expect(doctor.stdout).toContain('0 mismatches.');
  }, 120_000);

  it('a trigger wakes its conversation through `deskhand fire`: the model server receives the prompt', async () => {
    server.enqueue(reply().tool('register_trigger', { when: '5s', prompt: 'WAKE-4411: check whether the build is green' }), reply().text('I will check later.'));
    const result = await run('check the build later');
    expect(result.code, result.stderr).toBe(0);
    const conversationId = (result.events.find((e) => e.type === 'run.started') as unknown as { conversationId: string }).conversationId;
    expect(requestsWith('scheduled prompt trg_')).toHaveLength(0);
    server.enqueue(reply().text('The build is green.'));
    await until(() => requestsWith('scheduled prompt trg_').some((r) => JSON.stringify(r.body).includes('WAKE-4411')), 'the woken run to call the model', 90_000);
    await until(() => fires()[0]?.status === 'ran', 'the fire to finish', 30_000);
    const fire = fires()[0]!;
    expect(fire.run_id).toMatch(/^run_/);
    const [woken] = rawAll<{ conversation_id: string; status: string }>(dataDir, 'SELECT conversation_id, status FROM runs WHERE id = ?', fire.run_id);
    expect(woken).toEqual({ conversation_id: conversationId, status: 'finished' });
    // The same conversation: the woken request carries the first turn's history.
    // The woken run's own request (a memory-extraction side call may follow it, carrying the turn's transcript).
    const wake = JSON.stringify(requestsWith('scheduled prompt trg_').find((r) => JSON.stringify(r.body).includes('WAKE-4411'))!.body);
    expect(wake).toContain('check the build later');
    expect(wake).toMatch(/<scheduled-fire id=\\"trg_[0-9a-f]{8}\\" due=/);
    await until(() => world.notifications().some((n) => n.summary === 'A scheduled prompt ran'), 'the ran notification', 10_000);
    const log = readFileSync(join(dataDir, 'schedule', 'fire.log'), 'utf8');
    expect(log).toMatch(/trg_[0-9a-f]{8}: ran \(run run_/);
    // atq lists a job while it runs: once `deskhand fire` has exited, no job is left for this data dir.
    await until(() => jobsFor().length === 0, 'the spent job to leave atq', 10_000);
  }, 120_000);

  it('a fire whose run needs approval parks and notifies; approving resumes it', async () => {
    server.enqueue(reply().tool('register_trigger', { when: '4s', prompt: 'PARK-5120: write the report' }), reply().text('Later.'));
    expect((await run('write the report later')).code).toBe(0);
    // A Makefile asks under every policy (it runs later): a workspace file would now run unasked (confined, SECURITY.md §9b).
    server.enqueue(reply().tool('write_file', { path: 'Makefile', content: 'scheduled report\n' }));
    await until(() => fires()[0]?.status === 'parked', 'the fire to park', 90_000);
    const fire = fires()[0]!;
    const [approval] = rawAll<{ id: string; tool: string; status: string }>(dataDir, "SELECT id, tool, status FROM approvals WHERE run_id = ? AND status = 'pending'", fire.run_id);
    expect(approval).toMatchObject({ tool: 'write_file' });
    expect(existsSync(join(work, 'Makefile'))).toBe(false);
    await until(() => world.notifications().some((n) => n.summary === 'A scheduled prompt needs your approval'), 'the approval notification', 10_000);
    const shown = world.notifications().find((n) => n.summary === 'A scheduled prompt needs your approval')!;
    // What to do in words; the id only where it is typed (runs list shows it), never in the notification (issue 52).
    expect(shown.body).toContain('Open Deskhand to decide');
    expect(shown.body).toContain('deskhand runs list');
    expect(shown.body).not.toContain(approval!.id);
    expect(shown.body).not.toContain('scheduled report'); // never the content of the call
    expect(shown.category).toBe('deskhand.approval');
    server.enqueue(reply().text('Report written.'));
    const approved = await cli(['runs', 'approve', approval!.id, '--data-dir', dataDir, '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(readFileSync(join(work, 'Makefile'), 'utf8')).toBe('scheduled report\n');
  }, 120_000);
});
