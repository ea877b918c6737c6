/**
 * loop_overhead_ms_per_tool_call: 1,000 read-only tool calls scripted at zero model latency, store included: the
 * scripted model answers each step with 10 parallel `stat` calls, and the figure is the whole run's wall time divided
 * by 1,000 (model HTTP + SSE parsing included, so it is an upper bound). `loop_overhead_net_ms_per_tool_call`
 * subtracts the same number of model steps carrying one trivial call each, measured in the same run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAppRuntime } from '../src/main/host/open-runtime';
import { Store } from '../src/main/services/store/store';
import { reply, startModelServer } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';

const CALLS = 1000;
const PER_STEP = 10;

export default async function loopOverhead(): Promise<Record<string, number>> {
  const server = await startModelServer();
  const work = tempDir('deskhand-bench-work-');
  writeFileSync(join(work, 'a.txt'), 'hello\n');
  const provider = { provider: 'openai' as const, model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' };
  try {
    const measure = async (withTools: boolean): Promise<number> => {
      const store = new Store(tempDir('deskhand-bench-data-'));
      const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, maxSteps: CALLS / PER_STEP + 1, afterTurn: () => undefined }); // no memory-extraction side call in the measured turn
      let steps = 0;
      server.setFallback(() => {
        steps++;
        if (steps > CALLS / PER_STEP) return reply().text('done');
        let r = reply();
        for (let i = 0; i < PER_STEP; i++) r = withTools ? r.tool('stat', { path: 'a.txt' }) : r.text('x');
        // Without tools the run would end after one step; keep it going with a no-op read-only call per step.
        return withTools ? r : r.tool('get_time', {});
      });
      const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
      const t0 = performance.now();
      const outcome = await runtime.sendMessage(conv.id, 'bench', { provider, interactive: false });
      const elapsed = performance.now() - t0;
      if (outcome.status !== 'finished') throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
      store.close();
      return elapsed;
    };
    await measure(true); // warm-up: module loading, JIT, SQLite page cache
    const withTools = await measure(true);
    const baseline = await measure(false);
    return {
      loop_overhead_ms_per_tool_call: withTools / CALLS,
      loop_overhead_net_ms_per_tool_call: Math.max(0, withTools - baseline) / (CALLS - CALLS / PER_STEP),
      loop_total_ms_1000_calls: withTools,
      loop_model_only_ms: baseline,
    };
  } finally {
    await server.close();
  }
}
