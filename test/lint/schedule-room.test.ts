/**
 * Scheduling in one room (issue 44): the schedule service owns a schedule's life and the hosts pass only how to wake.
 * A source scan of src/main: no host or Electron file builds the fire's dependencies itself (the service's fire
 * context, a waker, the service's fire or recovery functions) — every fire goes through `scheduleFire` /
 * `runScheduleNow` (host/background/schedule-fire.ts); the schedule service is constructed only by the assembly
 * (host/assembly/schedule-wiring.ts), which alone says which CLI entry an OS job starts; and the scheduler service
 * knows no entry file of the host. The table below shows each rule catches its spellings.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(process.cwd(), 'src', 'main');
const FIRE_DOOR = 'host/background/schedule-fire.ts';
const WIRING = 'host/assembly/schedule-wiring.ts';

/** The rules a file of src/main (path relative to it) breaks. */
export function violations(file: string, source: string): string[] {
  const out: string[] = [];
  const host = file.startsWith('host/') || file.startsWith('electron/');
  if (host && file !== FIRE_DOOR) {
    if (/from\s+['"][./]*(?:\.\.\/)*services\/scheduler\/fire['"]|import\(\s*['"][./]*services\/scheduler\/fire['"]/.test(source)) out.push('imports the service fire');
    if (/\b(?:FireContext|Waker|FireDeps|runtimeWaker|fireInService|recoverInService|executeFire)\b/.test(source)) out.push('builds fire dependencies');
  }
  if (file !== WIRING && /\bnew\s+ScheduleService\s*\(/.test(source)) out.push('constructs the schedule service');
  if (file !== WIRING && !file.startsWith('services/scheduler/') && /\b(?:fireCommand|platformScheduler)\s*\(/.test(source)) out.push('makes the OS job itself');
  if (file.startsWith('services/scheduler/') && /import\.meta\.url|\bcli\.js\b|cli\/main\.ts|DESKHAND_CLI_ENTRY|\bout\/main\b|['"]out['"]/.test(source)) out.push('the service knows the host entry');
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('scheduling in one room', () => {
  it('no file of src/main breaks a rule', () => {
    const broken = files(ROOT)
      .map((f) => ({ file: relative(ROOT, f).split('\\').join('/'), source: readFileSync(f, 'utf8') }))
      .flatMap(({ file, source }) => violations(file, source).map((v) => `${file}: ${v}`));
    expect(broken).toEqual([]);
  });

  it('the scan sees the door, the wiring and the service it guards', () => {
    const all = files(ROOT).map((f) => relative(ROOT, f).split('\\').join('/'));
    expect(all).toEqual(expect.arrayContaining([FIRE_DOOR, WIRING, 'services/scheduler/fire.ts', 'services/scheduler/os-schedulers.ts', 'host/cli/schedule.ts', 'electron/schedule-shell.ts']));
  });

  it.each([
    ['host/cli/schedule.ts', "import { fireSchedule } from '../../services/scheduler/fire';", 'imports the service fire'],
    ['electron/x.ts', "const m = await import('../services/scheduler/fire');", 'imports the service fire'],
    ['host/background/schedule-ticker.ts', "const ctx: FireContext = { notifier, redactor, waker, via: 'ticker' };", 'builds fire dependencies'],
    ['host/web/web-command.ts', 'const w: Waker = { wake };', 'builds fire dependencies'],
    ['host/cli/schedule.ts', 'const deps: FireDeps = { runtime };', 'builds fire dependencies'],
    ['host/app/groups/schedule.ts', 'await executeFire(s, fire, row, ctx);', 'builds fire dependencies'],
    ['host/cli/schedule.ts', 'const s = new ScheduleService({ store, dataDir, os, entry });', 'constructs the schedule service'],
    ['host/assembly/open-runtime.ts', 'x = new  ScheduleService ({});', 'constructs the schedule service'],
    ['host/cli/schedule.ts', 'const os = platformScheduler(dataDir);', 'makes the OS job itself'],
    ['electron/desktop-app.ts', 'const c = fireCommand(id, dir, entry);', 'makes the OS job itself'],
    ['services/scheduler/os-schedulers.ts', "const here = dirname(fileURLToPath(import.meta.url));", 'the service knows the host entry'],
    ['services/scheduler/os-schedulers.ts', "const c = join(here, 'cli.js');", 'the service knows the host entry'],
    ['services/scheduler/schedules.ts', "const src = join(here, '..', 'host', 'cli/main.ts');", 'the service knows the host entry'],
    ['services/scheduler/os-schedulers.ts', 'const o = env.DESKHAND_CLI_ENTRY;', 'the service knows the host entry'],
  ])('%s: %s is refused', (file, source, rule) => {
    expect(violations(file, source)).toContain(rule);
  });

  it.each([
    ['host/cli/schedule.ts', "const fire = scheduleFire(runtime, { via: 'os', provider });"],
    ['electron/schedule-shell.ts', "await runScheduleNow(runtime, id, { provider });"],
    [FIRE_DOOR, "import { fireSchedule as fireInService, type FireContext } from '../../services/scheduler/fire';"],
    [WIRING, 'return new ScheduleService({ store, dataDir, os: platformScheduler(dataDir), entry: () => fireEntry() });'],
    ['services/scheduler/schedules.ts', 'fireCommand(row.id, this.opts.dataDir, this.opts.entry())'],
  ])('%s: %s is allowed', (file, source) => {
    expect(violations(file, source)).toEqual([]);
  });
});
