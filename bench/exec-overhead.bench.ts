/**
 * exec_overhead_ratio: execute_command of a trivial command (`true`), classification, sandbox and store included,
 * against spawning `true` directly; the same run, interleaved rounds, medians. Reported without the OS sandbox
 * (mode "off") and with it (bubblewrap where available).
 */
import { spawn } from 'node:child_process';
import { decideCall } from '../src/main/runtime/approval-engine';
import type { ToolDefinition } from '../src/main/runtime/tool';
import { Store } from '../src/main/services/store/store';
import { BackgroundTasks } from '../src/main/services/tasks/background-tasks';
import { makeContext, tempDir } from '../test/support/tool-context';
import { commandTools } from '../test/support/tasks';

const ROUNDS = 60;
const WARMUP = 5;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function spawnDirect(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('true', [], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

export default async function execOverhead(): Promise<Record<string, number>> {
  const dataDir = tempDir('deskhand-bench-data-');
  const ws = tempDir('deskhand-bench-ws-');
  const store = new Store(dataDir);
  const tasks = new BackgroundTasks({ store, dataDir });
  store.createConversation({ id: 'conv_bench', title: 'bench', folder: ws, policy: 'read-only' });
  const tool = commandTools({ tasks, dataDir }).executeCommand as unknown as ToolDefinition;

  const viaTool = async (sandbox: 'off' | 'workspace-write'): Promise<void> => {
    const ctx = { ...makeContext(ws, { dataDir }), conversationId: 'conv_bench', sandbox };
    const args = tool.params.parse({ command: 'true' });
    const d = await decideCall({ tool, args, policy: 'high-risk', tainted: false, ctx: { cwd: ws, workspaceRoots: [ws], dataDir, sandbox } });
    if (d.decision === 'deny') throw new Error('bench command was denied');
    const result = await tool.execute(args, ctx);
    if (!result.output.includes('exit code: 0')) throw new Error(`bench command failed:\n${result.output}`);
  };

  const times = { direct: [] as number[], tool: [] as number[], sandboxed: [] as number[] };
  try {
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const t0 = performance.now();
      await spawnDirect();
      const t1 = performance.now();
      await viaTool('off');
      const t2 = performance.now();
      await viaTool('workspace-write');
      const t3 = performance.now();
      if (i >= WARMUP) {
        times.direct.push(t1 - t0);
        times.tool.push(t2 - t1);
        times.sandboxed.push(t3 - t2);
      }
    }
  } finally {
    await tasks.shutdown();
    store.close();
  }
  const direct = median(times.direct);
  const toolMs = median(times.tool);
  const sandboxedMs = median(times.sandboxed);
  return {
    exec_overhead_ratio: toolMs / direct,
    exec_overhead_ratio_sandboxed: sandboxedMs / direct,
    exec_tool_ms: toolMs,
    exec_tool_sandboxed_ms: sandboxedMs,
    spawn_direct_ms: direct,
  };
}
