/**
 * How this host wakes a schedule (issue 44, "scheduling in one room"): the one thing about scheduling that is the
 * host's to say. The schedule service (services/scheduler/) owns a schedule's life and builds the OS job's command;
 * the assembly tells it which CLI entry the job starts (`fireEntry`) and builds the service once here for every host
 * (the app's runtime, `deskhand fire`).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FireCommand, FireEntry } from '../../services/scheduler';
import { ScheduleService, type ScheduleServiceOptions } from '../../services/scheduler/schedules';
import { fireCommand, platformScheduler } from '../../services/scheduler/os-schedulers';

/**
 * The CLI an OS job starts, with this build: `DESKHAND_CLI_ENTRY` when set, else out/main/cli.cjs (or cli.js) beside us (the built
 * app and CLI), else the TypeScript entry via tsx (a source checkout). Always on this process's node (or Electron as node).
 */
export function fireEntry(env: NodeJS.ProcessEnv = process.env): FireEntry {
  const here = dirname(fileURLToPath(import.meta.url));
  const override = env.DESKHAND_CLI_ENTRY;
  if (override) return { file: process.execPath, args: [override] };
  // The CommonJS build first (its modules compile from V8's cache: a woken run's start), else the ES one.
  for (const name of ['cli.cjs', 'cli.js']) {
    for (const candidate of [join(here, name), join(here, '..', name), join(here, '..', '..', '..', '..', 'out', 'main', name)]) {
      if (existsSync(candidate)) return { file: process.execPath, args: [candidate] };
    }
  }
  const source = join(here, '..', 'cli', 'main.ts');
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { file: process.execPath, args: ['--import', tsx, source] };
}

/** `deskhand fire ID --data-dir DIR` as this host's OS job runs it (what the service installs). */
export function hostFireCommand(scheduleId: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): FireCommand {
  return fireCommand(scheduleId, dataDir, fireEntry(env), env);
}

/**
 * The schedule service on a store, waking through this host's CLI. `os`: arm jobs in the platform's OS scheduler
 * (the app's host services, `deskhand fire`); without it nothing is armed (a runtime built without host services).
 */
export function hostSchedules(store: ScheduleServiceOptions['store'], dataDir: string, opts: { os: boolean }): ScheduleService {
  return new ScheduleService({ store, dataDir, os: opts.os ? platformScheduler(dataDir) : null, entry: () => fireEntry() });
}
