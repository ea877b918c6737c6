/**
 * The one Chromium process of the app: started by Playwright with a persistent profile, in its own process group
 * (Playwright starts browsers detached), carrying a Deskhand tag in its environment. The group is recorded through
 * `OwnedGroups` (the process_groups table, so `BackgroundTasks.recover()` ends it after a crash) and ended on close,
 * on quit, and synchronously on process exit.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { launchEnv } from '../processes/launcher';
import { killNow, stopRecordedGroup } from '../processes/command-process';
import { TAG_ENV, processStartTime, taggedProcesses } from '../processes/proc-info';
import type { OwnedGroups } from './index';

const OPEN = new Set<BrowserProcess>();
process.on('exit', () => {
  for (const p of OPEN) p.killNow();
});

export interface LaunchSpec {
  executable: string;
  profileDir: string;
  downloadsDir: string;
  headless: boolean;
  args?: string[];
  owned?: OwnedGroups | null;
}

export class BrowserProcess {
  pgid: number | null = null;
  private closed = false;

  private constructor(
    readonly context: BrowserContext,
    private readonly owned: OwnedGroups | null,
    readonly tag: string,
    /** Launched without a window (a headed browser ends when its last tab closes). */
    readonly headless: boolean,
  ) {}

  static async launch(spec: LaunchSpec): Promise<BrowserProcess> {
    mkdirSync(spec.profileDir, { recursive: true, mode: 0o700 });
    mkdirSync(spec.downloadsDir, { recursive: true, mode: 0o700 });
    // A profile left locked by a browser that was killed would make Chromium refuse it ("profile in use").
    for (const lock of ['SingletonLock', 'SingletonSocket', 'SingletonCookie']) rmSync(join(spec.profileDir, lock), { force: true });
    const tag = `browser-${randomBytes(6).toString('hex')}`;
    const env = launchEnv({ env: { [TAG_ENV]: tag } });
    // Playwright loads with the first browser launched (a command that only builds the tools never loads it).
    const { chromium } = await import('playwright-core');
    const context = await chromium
      .launchPersistentContext(spec.profileDir, {
      executablePath: spec.executable,
      headless: spec.headless,
      env,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      acceptDownloads: true,
      downloadsPath: spec.downloadsDir,
      viewport: { width: 1280, height: 800 },
      // The OS sandbox needs an unprivileged user; as root Chromium refuses to start with it.
      chromiumSandbox: typeof process.getuid === 'function' && process.getuid() !== 0,
      args: ['--no-first-run', '--no-default-browser-check', '--disable-sync', '--password-store=basic', ...(spec.args ?? [])],
      timeout: 60_000,
    })
      .catch((err: unknown) => {
        // Whatever started before the failure is ended now.
        for (const pid of taggedProcesses(tag)) killPid(pid);
        throw new Error(`The browser did not start (${spec.executable}): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      });
    const proc = new BrowserProcess(context, spec.owned ?? null, tag, spec.headless);
    proc.pgid = leaderOf(tag);
    if (proc.pgid !== null) {
      const start = processStartTime(proc.pgid);
      if (start) proc.owned?.record({ pgid: proc.pgid, start_time: start, tag: proc.tag });
    }
    OPEN.add(proc);
    context.on('close', () => void proc.reap());
    return proc;
  }

  /** Graceful close (the profile is written), then whatever is left of the group and its tagged processes is ended. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.race([this.context.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    await this.reap();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private async reap(): Promise<void> {
    this.closed = true;
    if (this.pgid !== null) await stopRecordedGroup({ pgid: this.pgid, start_time: processStartTime(this.pgid) ?? '', tag: this.tag }, 1_000).catch(() => undefined);
    else for (const pid of taggedProcesses(this.tag)) killPid(pid);
    OPEN.delete(this);
    try {
      this.owned?.forget(this.tag);
    } catch {
      // the store may be closed on quit; the row is then ended at the next start
    }
  }

  /** Synchronous last resort (process 'exit'). */
  killNow(): void {
    killNow(this.pgid ?? undefined, this.tag);
  }
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

/** The leader of the browser's process group: the tagged process whose pid is its own group id. */
function leaderOf(tag: string): number | null {
  const tagged = taggedProcesses(tag);
  if (process.platform !== 'linux') return tagged[0] ?? null;
  for (const pid of tagged) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pid) return pid;
    } catch {
      // gone
    }
  }
  return null;
}

/** Processes whose command line names this profile folder (tests and `doctor`-style checks). */
export function processesUsingProfile(profileDir: string): number[] {
  if (process.platform !== 'linux') return [];
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes(profileDir)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}
