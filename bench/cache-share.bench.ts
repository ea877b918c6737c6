/**
 * How much of a task's input the prompt cache serves (issue 48 item 4): a 20-step scripted task (19 reads of the
 * project, then an answer) in a new conversation of the full app runtime, on the Anthropic wire, whose scripted server
 * caches and reports usage as the API does (the longest marked prefix an earlier request wrote is read; what the
 * request adds beyond it is written; test/support/model-server.ts, anthropicCacheUse).
 *
 * cache_read_share: of the run's input tokens, those the cache served (`runs.cache_read_tokens / input_tokens`);
 * cache_write_share: those written to it. The same requests every run (no timing): n=1 figures, exact.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAppRuntime } from '../src/main/host/assembly/open-runtime';
import { Store } from '../src/main/services/store/store';
import { reply, startModelServer } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, type BenchResult } from './lib';

const STEPS = 20;

export default async function cacheShareBench(): Promise<BenchResult> {
  const server = await startModelServer();
  const work = tempDir('deskhand-bench-work-');
  const files = Array.from({ length: 6 }, (_, i) => `file${i}.ts`);
  for (const [i, name] of files.entries()) writeFileSync(join(work, name), `export const n${i} = ${i};\n`.repeat(40));
  const store = new Store(tempDir('deskhand-bench-data-'));
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, afterTurn: () => undefined });
  try {
    for (let step = 1; step < STEPS; step++) {
      // Different calls each step (the repeat guard stops a model that repeats one call).
      const file = files[step % files.length]!;
      server.enqueue(step % 3 === 0 ? reply().tool('grep', { pattern: `n${step % 6}`, output_mode: 'content' }) : reply().tool('read_file', { path: file, line_offset: step, n_lines: 20 }));
    }
    server.enqueue(reply().text('Read the project: six files of constants.'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const outcome = await runtime.sendMessage(conv.id, 'Read the project and tell me what it holds.', {
      provider: { provider: 'anthropic', model: 'claude-sonnet-4-5', baseURL: server.baseURL, apiKey: 'sk-bench' },
      interactive: false,
    });
    if (outcome.status !== 'finished') throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
    if (server.requests.length !== STEPS) throw new Error(`expected ${STEPS} model requests, saw ${server.requests.length}`);
    const run = store.getRun(outcome.runId)!;
    const exact = { exact: 'a token count of scripted requests, the same every run' };
    return {
      cache_read_share: figure([run.cache_read_tokens / run.input_tokens], { unit: 'share', target: '≥ 0.8', ...exact }),
      cache_write_share: figure([run.cache_write_tokens / run.input_tokens], { unit: 'share', ...exact }),
      cache_task_input_tokens: run.input_tokens,
      cache_task_steps: run.step,
    };
  } finally {
    await runtime.tasks.shutdown();
    store.close();
    await server.close();
  }
}
