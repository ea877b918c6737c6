/**
 * Where one execute_command call's milliseconds go, phase by phase (not a figure of `npm run bench`: a tool for
 * docs/performance.md). Each phase is called in isolation, repeatedly, and its median printed.
 * Run: node --import tsx bench/exec-phases.ts
 */
import { spawnSync } from 'node:child_process';
import { classifyCommand } from '../src/main/tools/shell/command-classifier';
import { cwdContainment } from '../src/main/tools/shell/execute-command';
import { bwrapArgs } from '../src/main/services/sandbox/sandbox';
import { anyLeftover, processStartTime } from '../src/main/services/processes/proc-info';
import { childEnv } from '../src/main/services/processes/child-env';
import { TaskLog } from '../src/main/services/processes/task-log';
import { Store } from '../src/main/services/store/store';
import { tempDir } from '../test/support/tool-context';

const ws = tempDir('deskhand-phases-ws-');
const dataDir = tempDir('deskhand-phases-data-');
const ctx = { cwd: ws, workspaceRoots: [ws], dataDir };

async function phase(name: string, n: number, fn: () => unknown): Promise<void> {
  for (let i = 0; i < 5; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  xs.sort((a, b) => a - b);
  process.stdout.write(`${name.padEnd(58)} ${xs[n >> 1]!.toFixed(3)} ms\n`);
}

const store = new Store(dataDir);
store.createConversation({ id: 'c', title: 'x', folder: ws, policy: 'read-only' });
const rows = store.tasks as unknown as { transactionWithoutFsync?: (fn: () => unknown) => unknown; transaction: (fn: () => unknown) => unknown; insertTask: (r: object) => unknown };
let k = 0;
const insert = () =>
  rows.insertTask({ id: `t${k++}`, conversation_id: 'c', run_id: null, call_id: null, kind: 'command', title: 'x', spec: '{}', background: 0, notify: 0, output_path: null, owner_pid: 1, owner_start: 'x' });

const self = processStartTime(process.pid);

let distinct = 0;
// Warm the classifier first (JIT): the first few hundred parses are several times slower.
for (let i = 0; i < 300; i++) classifyCommand(`true # ${distinct++}`, ctx);
await phase('classification of a new command (`true # n`)', 300, () => classifyCommand(`true # ${distinct++}`, ctx));
await phase('classification of `true` (repeated command)', 300, () => classifyCommand('true', ctx));
await phase('working-folder containment check', 300, () => cwdContainment(ws, ctx));
await phase('bubblewrap argument vector (hidden paths included)', 100, () => bwrapArgs({ mode: 'workspace-write', network: false, outside: false, roots: [ws], cwd: ws, dataDir }));
{
  // Right after a command (a fresh `true`) ended, as settleCommand asks it.
  const xs: number[] = [];
  for (let i = 0; i < 60; i++) {
    const ended = spawnSync('true');
    const t0 = performance.now();
    anyLeftover(ended.pid!, 'shnothing', self, Date.now());
    xs.push(performance.now() - t0);
  }
  xs.sort((a, b) => a - b);
  process.stdout.write(`${'leftover check after the shell exits (unsandboxed)'.padEnd(58)} ${xs[30]!.toFixed(3)} ms\n`);
}
await phase('child environment', 300, () => childEnv());
await phase('output log open + close', 100, async () => {
  const l = new TaskLog(`${dataDir}/tasks/x.log`);
  await l.close();
});
await phase('task row commit, synchronous=FULL (fsync)', 40, () => rows.transaction(insert));
if (rows.transactionWithoutFsync) await phase('task row commit without fsync', 100, () => rows.transactionWithoutFsync!(insert));
store.close();
