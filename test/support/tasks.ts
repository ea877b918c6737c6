/** Background-task fixtures: a real store and task service in temp folders, and process-table checks. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Store } from '../../src/main/services/store/store';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { osSandbox, type SandboxService } from '../../src/main/services/sandbox';
import type { TaskService } from '../../src/main/services/tasks';
import { BackgroundTasks } from '../../src/main/services/tasks/background-tasks';
import { createShellFamily } from '../../src/main/tools/shell';
import type { createCancelWaitFor } from '../../src/main/tools/shell/cancel-wait-for';
import type { createExecuteCommand } from '../../src/main/tools/shell/execute-command';
import type { createWaitFor } from '../../src/main/tools/shell/wait-for';
import { createTaskFamily } from '../../src/main/tools/tasks';
import type { createCancelBackgroundJobs } from '../../src/main/tools/tasks/cancel-background-jobs';
import type { createListBackgroundJobs } from '../../src/main/tools/tasks/list-background-jobs';
import type { createRunBackgroundJobs } from '../../src/main/tools/tasks/run-background-jobs';
import type { createTaskOutput } from '../../src/main/tools/tasks/task-output';
import type { createWaitTasks } from '../../src/main/tools/tasks/wait-tasks';
import type { SandboxMode } from '../../src/shared/sandbox';
import { makeContext, tempDir, type TestContext } from './tool-context';

/** The shell and task families as the host assembles them (assemble.ts), over one task service and the OS sandbox. */
export interface CommandTools {
  /** Every tool of both families, in registration order. */
  all: ToolDefinition[];
  /** The shell family's tools, in order. */
  shell: ToolDefinition[];
  executeCommand: ReturnType<typeof createExecuteCommand>;
  waitFor: ReturnType<typeof createWaitFor>;
  cancelWaitFor: ReturnType<typeof createCancelWaitFor>;
  runBackgroundJobs: ReturnType<typeof createRunBackgroundJobs>;
  listBackgroundJobs: ReturnType<typeof createListBackgroundJobs>;
  taskOutput: ReturnType<typeof createTaskOutput>;
  waitTasks: ReturnType<typeof createWaitTasks>;
  cancelBackgroundJobs: ReturnType<typeof createCancelBackgroundJobs>;
}

export function commandTools(deps: { tasks: TaskService; dataDir: string; sandbox?: SandboxService }): CommandTools {
  const shell = createShellFamily({ tasks: deps.tasks, sandbox: deps.sandbox ?? osSandbox, dataDir: deps.dataDir });
  const taskFamily = createTaskFamily({ tasks: deps.tasks, commands: shell.commands, dataDir: deps.dataDir });
  const all = [...shell.tools, ...taskFamily.tools];
  const pick = <T>(name: string): T => {
    const tool = all.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool as unknown as T;
  };
  return {
    all,
    shell: shell.tools,
    executeCommand: pick('execute_command'),
    waitFor: pick('wait_for'),
    cancelWaitFor: pick('cancel_wait_for'),
    runBackgroundJobs: pick('run_background_jobs'),
    listBackgroundJobs: pick('list_background_jobs'),
    taskOutput: pick('task_output'),
    waitTasks: pick('wait_tasks'),
    cancelBackgroundJobs: pick('cancel_background_jobs'),
  };
}

export interface TaskFixture {
  dataDir: string;
  ws: string;
  store: Store;
  tasks: BackgroundTasks;
  /** The shell and task families built over `tasks` (tools get services from their factories, not their context). */
  tools: CommandTools;
  conversationId: string;
  ctx(opts?: { sandbox?: SandboxMode; runId?: string }): TestContext & { sandbox: SandboxMode };
  close(): Promise<void>;
}

let n = 0;

export function taskFixture(opts: { logCapBytes?: number } = {}): TaskFixture {
  const dataDir = tempDir('deskhand-data-');
  const ws = tempDir('deskhand-ws-');
  const store = new Store(dataDir);
  const tasks = new BackgroundTasks({ store, dataDir, logCapBytes: opts.logCapBytes ?? 4 * 1024 * 1024 });
  const conversationId = `conv_tasks_${++n}`;
  store.createConversation({ id: conversationId, title: 'tasks', folder: ws, policy: 'read-only' });
  return {
    dataDir,
    ws,
    store,
    tasks,
    tools: commandTools({ tasks, dataDir }),
    conversationId,
    ctx: (o = {}) => ({ ...makeContext(ws, { dataDir }), conversationId, runId: o.runId ?? 'run_test', sandbox: o.sandbox ?? 'workspace-write' }),
    async close() {
      await tasks.shutdown();
      store.close();
    },
  };
}

/** Live (non-zombie) processes whose command line contains `marker`, from `ps`. */
export function processesWith(marker: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes(marker) && !/^\d+\s+Z/.test(l) && !l.includes('ps -eo'));
}

/** Polls until `fn` is truthy or the time is up (then throws with `what`). */
export async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Live processes that are exactly `sleep <m>` (not the shells or sandboxes whose command lines mention it). */
export function sleeping(m: string): string[] {
  return processesWith(`sleep ${m}`).filter((l) => l.replace(/^\d+\s+\S+\s+/, '') === `sleep ${m}`);
}

/** Kills leftovers by marker (test cleanup only, never relied on by assertions). */
export function killByMarker(marker: string): void {
  for (const line of processesWith(marker)) {
    const pid = Number(line.split(/\s+/)[0]);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Largest gap between 10 ms ticks while `fn` runs (how responsive the event loop stayed), and how long `fn` took. */
export async function maxLoopGap<T>(fn: () => Promise<T>): Promise<{ value: T; gapMs: number; elapsedMs: number }> {
  const started = performance.now();
  let last = started;
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  try {
    const value = await fn();
    const end = performance.now();
    return { value, gapMs: Math.max(gap, end - last), elapsedMs: end - started };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Live (non-zombie) processes that belong to a test's Deskhand: their command line names one of `markers` (a data
 * folder, a unique command), or their environment carries one (`NAME=marker` given to the CLI or a server).
 */
export function processesMarked(markers: string[]): string[] {
  const found: string[] = [];
  for (const line of execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m || m[2]!.startsWith('Z') || Number(m[1]) === process.pid || m[3]!.startsWith('ps -eo')) continue;
    let env = '';
    try {
      env = readFileSync(`/proc/${m[1]}/environ`, 'latin1');
    } catch {
      // gone, or not ours to read
    }
    if (markers.some((k) => m[3]!.includes(k) || env.includes(k))) found.push(`${m[1]} ${m[3]}`);
  }
  return found;
}
