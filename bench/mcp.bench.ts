/**
 * mcp_call_overhead_ms: a server-everything `echo` call through Deskhand's path (registry lookup, argument parsing with
 * the server's JSON Schema, effects and the approval engine's decision, the MCP manager and its owned stdio transport,
 * formatting, the untrusted envelope) against the same call through the SDK's own Client and StdioClientTransport to a
 * second server-everything process, in the same run. Calls alternate (order swapped each round); the overhead is the
 * per-round difference, also given as a ratio.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { resolve } from 'node:path';
import { callEffects, decide } from '../src/main/runtime/decision/approval-engine';
import { ToolRegistry } from '../src/main/runtime/registry';
import { wrapUntrusted } from '../src/main/runtime/context/untrusted';
import { McpManager } from '../src/main/services/mcp/manager';
import { Store } from '../src/main/services/store/store';
import { registerMcpTools } from '../src/main/tools/extensions/mcp-tools';
import { makeContext, tempDir } from '../test/support/tool-context';
import { figure, paired, ratio, type BenchResult } from './lib';

const ROUNDS = 200;
const WARMUP = 20;
const EVERYTHING = resolve(process.cwd(), 'node_modules/.bin/mcp-server-everything');

export default async function mcpBench(): Promise<BenchResult> {
  const dataDir = tempDir('deskhand-bench-data-');
  const work = tempDir('deskhand-bench-ws-');
  const store = new Store(dataDir);
  const manager = new McpManager({ store, secret: async () => null });
  const registry = new ToolRegistry();
  const stop = registerMcpTools(manager, registry, { deferAbove: 1000 });
  const direct = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  try {
    await manager.connect({ name: 'everything', transport: 'stdio', command: EVERYTHING, args: [], tier: 'read-only' });
    await direct.connect(new StdioClientTransport({ command: EVERYTHING, args: [] }));
    const ectx = { cwd: work, workspaceRoots: [work], dataDir };
    const ctx = makeContext(work, { dataDir });

    const viaDeskhand = async (): Promise<void> => {
      const tool = registry.resolve('mcp__everything__echo');
      const args = registry.parseArgs(tool, { message: 'bench' });
      const d = decide({ tool, args, effects: await callEffects(tool, args, ectx), policy: 'read-only', tainted: false, ctx: ectx });
      if (d.decision !== 'allow') throw new Error(`bench call was not allowed: ${d.reasons.join('; ')}`);
      const result = await tool.execute(args as never, { ...ctx, signal: new AbortController().signal });
      const out = wrapUntrusted(result.untrustedSource!, result.output);
      if (!out.includes('Echo: bench')) throw new Error(`unexpected result: ${out}`);
    };
    const viaSdk = async (): Promise<void> => {
      const r = await direct.callTool({ name: 'echo', arguments: { message: 'bench' } });
      if (!JSON.stringify(r.content).includes('Echo: bench')) throw new Error('unexpected SDK result');
    };
    const { a, b } = await paired(ROUNDS, WARMUP, viaDeskhand, viaSdk);
    return {
      mcp_call_overhead_ms: figure(a.map((x, i) => x - b[i]!), { unit: 'ms', baseline: 'the same echo call through the SDK Client directly (mcp_sdk_direct_ms)' }),
      mcp_call_deskhand_ms: figure(a, { unit: 'ms' }),
      mcp_sdk_direct_ms: figure(b, { unit: 'ms' }),
      mcp_call_overhead_ratio: ratio(a, b, { baseline: 'mcp_sdk_direct_ms' }),
    };
  } finally {
    stop();
    await direct.close().catch(() => undefined);
    await manager.close();
    store.close();
  }
}
