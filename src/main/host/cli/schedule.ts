/**
 * `deskhand fire ID` (what every OS job runs: works with the app closed) and `deskhand schedule list | cancel ID |
 * run ID | doctor [--dry-run]`. Fire exit codes as `run`: 0 done (or nothing to do), 3 parked, 1 failed.
 */
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { hostNotifier } from '../assembly/notifier';
import { listenForActions, WaitingNotifier } from '../../services/scheduler/actions';
import { launchHostProgram } from '../../services/processes/launcher';
import { displayTime } from '../../services/scheduler';
import { hostSchedules } from '../assembly/schedule-wiring';
import { SecretRedactor } from '../../runtime/context/redaction';
import { fireProvider } from '../assembly/provider-choice';
import { resolveDataDir } from '../assembly/data-dir';
import type { AppRuntime } from '../assembly/open-runtime';
import { runScheduleNow, scheduleFire, staleClaims, type FireOutcome } from '../background/schedule-fire';
import { parseSubcommand, usage } from './common';
import { closeStore, openStore } from '../assembly/open-store';

export { fireProvider } from '../assembly/provider-choice';

const openRuntime = async (...args: Parameters<typeof import('../assembly/open-runtime').openRuntime>) => (await import('../assembly/open-runtime')).openRuntime(...args);

function report(o: FireOutcome, json: boolean): void {
  if (json) process.stdout.write(`${JSON.stringify({ type: 'fire', ...o })}\n`);
  else process.stderr.write(`${o.scheduleId}: ${o.status}${o.runId ? ` (run ${o.runId})` : ''} — ${o.detail}\n`);
}

const exitFor = (o: FireOutcome) => (o.status === 'parked' ? 3 : o.status === 'failed' ? 1 : 0);


/** How long `deskhand fire` waits for the person to act on the reminder it rang. */
export function notifyWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.DESKHAND_NOTIFY_WAIT_S);
  return env.DESKHAND_NOTIFY_WAIT_S !== undefined && Number.isFinite(s) && s >= 0 ? Math.min(s, 3600) * 1000 : 600_000;
}

/**
 * "Open" pressed with the app closed: starts the desktop app on the reminder's conversation, when the job knows how
 * (`DESKHAND_APP_COMMAND`, a JSON array the desktop app sets for the jobs it arms). A running app gets it as its
 * second instance and shows the conversation.
 */
function openApp(scheduleId: string, env: NodeJS.ProcessEnv = process.env): void {
  let cmd: unknown;
  try {
    cmd = JSON.parse(env.DESKHAND_APP_COMMAND ?? 'null');
  } catch {
    cmd = null;
  }
  if (!Array.isArray(cmd) || cmd.length === 0 || !cmd.every((c) => typeof c === 'string')) {
    process.stderr.write(`deskhand fire: Open was pressed for ${scheduleId}, but this job does not know how to start the desktop app (it was armed outside the app); open Deskhand yourself.\n`);
    return;
  }
  const [program, ...args] = cmd as string[];
  // Not as node: the job may carry ELECTRON_RUN_AS_NODE (a job armed by the app runs the CLI with Electron's binary).
  const inherit = Object.keys(env).filter((k) => k !== 'ELECTRON_RUN_AS_NODE');
  const launched = launchHostProgram({ program: program!, args: [...args, `--open-schedule=${scheduleId}`], inherit, source: env, stdio: ['ignore', 'ignore', 'ignore'] });
  launched.child.on('error', (err) => process.stderr.write(`deskhand fire: could not start the desktop app: ${err.message}\n`));
  launched.child.unref();
}

/**
 * What an OS job runs. A reminder rings with the store, the OS scheduler and the notifier alone; the runtime (every
 * family, MCP servers, recovery of crashed runs) is opened only when the fire must start a run: a trigger's prompt,
 * or a crashed fire's open claim taken over (`recoverClaims`).
 */
export async function fireCommandMain(args: string[]): Promise<number> {
  const { values, positionals } = parseSubcommand(args, {});
  const id = positionals[0];
  if (!id) throw usage('fire needs a schedule ID (the OS job passes it; see `deskhand schedule list`).');
  const dataDir = resolveDataDir(values['data-dir']);
  const store = openStore(dataDir);
  // The runtime's own redactor when it is opened (one redactor for the store, the notification and the run).
  const redactor = new SecretRedactor();
  store.setRedactor((text) => redactor.redact(text));
  const schedules = hostSchedules(store, dataDir, { os: true });
  const opened: { runtime?: Promise<AppRuntime> } = {};
  // Shown through a notifier that remembers the reminder it rang: the person's Snooze or Dismiss comes back here.
  const notifier = new WaitingNotifier(hostNotifier());
  const actions = listenForActions(notifier, schedules, {
    open: (target) => openApp(target.scheduleId),
    onActed: (r) => process.stderr.write(`${r.scheduleId}: ${r.action} — ${r.message}\n`),
    onError: (err) => process.stderr.write(`deskhand fire: acting on the notification failed: ${errorMessage(err)}\n`),
  });
  const json = !!values.json;
  try {
    const fire = scheduleFire(
      { schedules, notifier, redactor, open: () => (opened.runtime ??= openRuntime({ dataDir, store, redactor, notifier })) },
      { via: 'os', provider: (run) => fireProvider(run), ...(json ? { onEvent: (e) => process.stdout.write(`${JSON.stringify(e)}\n`) } : {}) },
    );
    // Whatever a crashed fire left claimed is finished first (once), then this job's own fire.
    for (const o of await fire.recover()) report(o, json);
    const outcome = await fire.fire(id);
    report(outcome, json);
    // The app may be closed: this process answers the reminder's buttons until they are pressed, the notification
    // is closed, or the wait is over (DESKHAND_NOTIFY_WAIT_S, default 10 minutes), then exits.
    if (notifier.count > 0) await notifier.settled(notifyWaitMs());
    await actions.idle();
    return exitFor(outcome);
  } finally {
    actions.off();
    await notifier.close().catch(() => undefined);
    // The runtime closes the store it was given.
    const runtime = opened.runtime ? await opened.runtime.catch(() => null) : null;
    if (runtime) await runtime.close();
    else closeStore(store);
  }
}

export async function scheduleCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { 'dry-run': { type: 'boolean' } });
  const json = !!values.json;
  // Only `schedule run` continues a conversation (and may call MCP tools); list, cancel and doctor start no server.
  const runtime = await openRuntime({ dataDir: resolveDataDir(values['data-dir']), mcpStart: 'on-demand' });
  const schedules = runtime.schedules;
  const notifier = runtime.notifier;
  try {
    switch (sub) {
      case 'list': {
        const rows = schedules.list({});
        if (json) {
          process.stdout.write(`${JSON.stringify({ schedules: rows, fires: schedules.fires(null, 50) })}\n`);
          return 0;
        }
        const live = rows.filter((r) => r.status === 'active' || r.status === 'paused');
        if (live.length === 0) process.stdout.write('No pending reminders or triggers.\n');
        for (const r of live) process.stdout.write(`${schedules.describe(r)}\n  ${r.kind === 'reminder' ? 'reminder' : 'prompt'}: ${r.text.replace(/\s+/g, ' ').slice(0, 100)}\n`);
        const fires = schedules.fires(null, 10);
        if (fires.length) process.stdout.write('Recent fires:\n');
        for (const f of fires) process.stdout.write(`  ${f.id}  ${f.schedule_id}  ${new Date(f.due_at).toISOString()}  ${f.status}${f.run_id ? `  run ${f.run_id}` : ''}\n`);
        return 0;
      }
      case 'cancel': {
        const id = positionals[0];
        if (!id) throw usage('schedule cancel needs an ID (see `deskhand schedule list`).');
        const row = schedules.get(id);
        if (!row) throw new DeskhandError('not_found', `No reminder or trigger ${id}. See \`deskhand schedule list\`.`);
        const done = await schedules.cancel(id);
        process.stderr.write(done ? `Cancelled ${id}; its OS job is removed.\n` : `${id} is ${row.status}; nothing to cancel.\n`);
        return done ? 0 : 1;
      }
      case 'run': {
        const id = positionals[0];
        if (!id) throw usage('schedule run needs an ID.');
        await runtime.startMcp();
        const outcome = await runScheduleNow(runtime, id, { notifier, provider: (run) => fireProvider(run), ...(json ? { onEvent: (e) => process.stdout.write(`${JSON.stringify(e)}\n`) } : {}) });
        report(outcome, json);
        return exitFor(outcome);
      }
      case 'doctor': {
        const repair = !values['dry-run'];
        const stale = staleClaims(schedules);
        const r = await schedules.doctor(repair, stale);
        const recovered = repair ? await scheduleFire(runtime, { via: 'recover', notifier, provider: (run) => fireProvider(run) }).recover() : [];
        const mismatches = r.jobsWithoutRows.length + r.rowsWithoutJobs.length + r.staleClaims.length;
        if (json) {
          process.stdout.write(`${JSON.stringify({ mismatches, ...r, recovered })}\n`);
          return 0;
        }
        process.stdout.write(`OS scheduler: ${r.backend}${r.backendNote ? ` — ${r.backendNote}` : ''}\n`);
        for (const j of r.jobsWithoutRows) process.stdout.write(`job without row: ${r.backend} job ${j.ref} fires ${j.scheduleId}${j.at ? ` at ${new Date(j.at).toISOString()}` : ''}${repair ? ' — removed' : ''}\n`);
        for (const row of r.rowsWithoutJobs) process.stdout.write(`row without job: ${row.id} due ${row.next_at ? displayTime(row.next_at, row.tz) : '-'}${repair ? ' — job installed again' : ''}\n`);
        for (const f of r.staleClaims) process.stdout.write(`stale claim: ${f.id} of ${f.schedule_id} (process ${f.claimed_by.split(':')[0]} is gone)${repair ? ' — recovered' : ''}\n`);
        for (const o of recovered) process.stdout.write(`  ${o.scheduleId}: ${o.status} — ${o.detail}\n`);
        process.stdout.write(`${mismatches} mismatch${mismatches === 1 ? '' : 'es'}${mismatches && repair ? ', repaired' : ''}.\n`);
        return 0;
      }
      default:
        throw usage('schedule needs list, cancel ID, run ID or doctor [--dry-run].');
    }
  } catch (err) {
    if (DeskhandError.isInstance(err)) throw err;
    throw new DeskhandError('internal', errorMessage(err));
  } finally {
    await runtime.close();
  }
}
