/**
 * exec_overhead_ratio: execute_command of `true` (decided by the approval engine — classification parse, path checks,
 * sandbox plan — then run: task rows in the store, process-group bookkeeping, spawn, output capture, the result text)
 * against the honest floor for a shell tool, `bash -c true` spawned with its output piped, in the same run, rounds
 * interleaved, the ratio taken per round. Sandbox mode "off" here.
 *
 * exec_overhead_ratio_sandboxed: the same call in sandbox mode "workspace-write" against bubblewrap running
 * `bash -c true` with the very argument vector the sandbox builds for that call (computed once, before timing). The
 * bench fails when bubblewrap was not used (no bwrap, or it cannot run here): the sandboxed call's result must say
 * `sandbox: bubblewrap`, and a probe inside it must see its own pid namespace.
 *
 * exec_overhead_ratio_new_command: as exec_overhead_ratio, but each command text is new (`true # 17`), so neither the
 * parse cache nor the classification cache helps: what a command the agent has not run before costs.
 *
 * exec_overhead_vs_spawn_ratio: the unsandboxed call against a bare spawn of `true` (no shell), the old baseline.
 */
import { spawn } from 'node:child_process';
import { decideCall } from '../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../src/main/runtime/tool';
import { SHELL } from '../src/main/services/processes/command-process';
import { planSandbox, sandboxSupport } from '../src/main/services/sandbox/sandbox';
import { Store } from '../src/main/services/store/store';
import { BackgroundTasks } from '../src/main/services/tasks/background-tasks';
import { makeContext, tempDir } from '../test/support/tool-context';
import { commandTools } from '../test/support/tasks';
import { figure, interleaved, ratio, type BenchResult } from './lib';

const ROUNDS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 80);
const WARMUP = 8;

/** Spawns `file args`, reads its output to the end (as any shell tool must) and resolves with it. */
function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} exited ${code}: ${out}`))));
  });
}

export default async function execOverhead(): Promise<BenchResult> {
  const dataDir = tempDir('deskhand-bench-data-');
  const ws = tempDir('deskhand-bench-ws-');
  const store = new Store(dataDir);
  const tasks = new BackgroundTasks({ store, dataDir });
  store.createConversation({ id: 'conv_bench', title: 'bench', folder: ws, policy: 'read-only' });
  const tool = commandTools({ tasks, dataDir }).executeCommand as unknown as ToolDefinition;

  // One tool context per sandbox mode, made before timing (as the runtime shares its redactor across calls).
  const contexts = {
    off: { ...makeContext(ws, { dataDir }), conversationId: 'conv_bench', sandbox: 'off' as const },
    'workspace-write': { ...makeContext(ws, { dataDir }), conversationId: 'conv_bench', sandbox: 'workspace-write' as const },
  };
  const viaTool = async (sandbox: 'off' | 'workspace-write', command = 'true'): Promise<string> => {
    const ctx = contexts[sandbox];
    const args = tool.params.parse({ command });
    const d = await decideCall({ tool, args, policy: 'high-risk', tainted: false, ctx: { cwd: ws, workspaceRoots: [ws], dataDir, sandbox } });
    if (d.decision === 'deny') throw new Error('bench command was denied');
    const result = await tool.execute(args, ctx);
    if (!result.output.includes('exit code: 0')) throw new Error(`bench command failed:\n${result.output}`);
    if (sandbox !== 'off' && !result.output.includes('sandbox: bubblewrap, workspace-write')) {
      throw new Error(`the sandboxed call did not run in bubblewrap:\n${result.output}`);
    }
    return result.output;
  };

  // The sandboxed figure is about bubblewrap: without it, fail loudly rather than time an unsandboxed command.
  const support = sandboxSupport();
  if (support.kind !== 'bubblewrap' || !support.binary) throw new Error(`exec bench: bubblewrap is not usable here (${support.detail}); the sandboxed figure would be meaningless`);
  // The argument vector the sandbox builds for this workspace, with `bash -c true` as the command.
  const plan = planSandbox({ mode: 'workspace-write', network: false, outside: false, roots: [ws], cwd: ws, dataDir });
  const bw = plan.argv(SHELL, 'true');
  if (bw.file !== support.binary) throw new Error(`exec bench: the sandbox plan does not use bubblewrap (${bw.file})`);
  // Inside bubblewrap's pid namespace the shell's pid is tiny; outside it is not.
  const probe = await viaTool('workspace-write', 'echo "pid=$$"');
  if (!/pid=[1-9]\n/.test(probe)) throw new Error(`exec bench: the sandboxed command is not in a pid namespace:\n${probe}`);
  const baseProbe = await run(bw.file, [...bw.args.slice(0, -1), 'echo "pid=$$"']);
  if (!/^pid=[1-9]\n$/.test(baseProbe)) throw new Error(`exec bench: the bwrap baseline is not sandboxed: ${baseProbe}`);

  let t: Record<'spawnTrue' | 'bashTrue' | 'tool' | 'toolDistinct' | 'bwrapBashTrue' | 'toolSandboxed', number[]>;
  let distinct = 0;
  try {
    t = await interleaved(ROUNDS, WARMUP, {
      spawnTrue: () => run('true', []),
      bashTrue: () => run(SHELL, ['-c', 'true']),
      tool: () => viaTool('off'),
      // A command never seen before (no cached parse or classification): `true` with a different comment each time.
      toolDistinct: () => viaTool('off', `true # ${++distinct}`),
      bwrapBashTrue: () => run(bw.file, bw.args),
      toolSandboxed: () => viaTool('workspace-write'),
    });
  } finally {
    await tasks.shutdown();
    store.close();
  }
  return {
    exec_overhead_ratio: ratio(t.tool, t.bashTrue, { baseline: 'bash -c true, same run', target: '≤ 1.5' }),
    exec_overhead_ratio_sandboxed: ratio(t.toolSandboxed, t.bwrapBashTrue, { baseline: 'bwrap (sandbox argv) bash -c true, same run', target: '≤ 2' }),
    exec_overhead_ratio_new_command: ratio(t.toolDistinct, t.bashTrue, { baseline: 'bash -c true, same run; each command new (no cache hit)' }),
    exec_overhead_vs_spawn_ratio: ratio(t.tool, t.spawnTrue, { baseline: 'spawn true (no shell), same run' }),
    exec_tool_ms: figure(t.tool, { unit: 'ms', baseline: 'execute_command true, sandbox off' }),
    exec_tool_sandboxed_ms: figure(t.toolSandboxed, { unit: 'ms', baseline: 'execute_command true, bubblewrap' }),
    exec_bash_true_ms: figure(t.bashTrue, { unit: 'ms' }),
    exec_bwrap_bash_true_ms: figure(t.bwrapBashTrue, { unit: 'ms' }),
    spawn_direct_ms: figure(t.spawnTrue, { unit: 'ms' }),
  };
}
