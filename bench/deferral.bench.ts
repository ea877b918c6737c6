/**
 * What tools on demand cost and save over a whole task, counted with js-tiktoken's o200k: a 40-step scripted task
 * (the scripted model server drives the full app runtime; one tool call per step over a small project: ls, read_file,
 * grep, stat, pwd…) that needs two deferred families partway — it calls search_tools "memory" at step 12 then
 * view_memory, and search_tools "schedule" at step 26 then list_reminders — against the same task with every family
 * loaded from the first request (the two search_tools steps are then not needed: 38 requests).
 *
 * deferral_task_requests / all_loaded_task_requests: model requests of each arm;
 * deferral_task_input_tokens / all_loaded_task_input_tokens: the sum over the task's requests of each request body's
 * tokens (system + tools + messages: what a provider bills as input, before caching);
 * deferral_task_input_ratio: deferral ÷ all loaded. The bodies are the same every run (no spread): n=1 figures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { createAppRuntime } from '../src/main/host/assembly/open-runtime';
import { DEFAULT_FAMILIES, FAMILY_SUMMARIES } from '../src/main/runtime/prompt/tool-families';
import { Store } from '../src/main/services/store/store';
import { reply, startModelServer, type ReplyBuilder } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, type BenchResult } from './lib';

const enc = getEncoding('o200k_base');
const tokens = (text: string): number => enc.encode(text).length;

const STEPS = 40;

/** The routine steps, in turn: looking around and reading a small project. */
const ROUTINE: [string, Record<string, unknown>][] = [
  ['ls', {}],
  ['read_file', { path: 'README.md' }],
  ['grep', { pattern: 'export', path: 'src' }],
  ['read_file', { path: 'src/app.ts' }],
  ['stat', { path: 'src/util.ts' }],
  ['read_file', { path: 'src/util.ts' }],
  ['pwd', {}],
  ['find', { pattern: '*.ts' }],
];

/** The task's replies: 39 tool steps and a final answer; `deferred` keeps the two search_tools steps. */
function script(deferred: boolean): ReplyBuilder[] {
  const out: ReplyBuilder[] = [];
  let routine = 0;
  for (let step = 1; step < STEPS; step++) {
    if (step === 12) out.push(reply().tool('search_tools', { query: 'memory' }));
    else if (step === 13) out.push(reply().tool('view_memory', {}));
    else if (step === 26) out.push(reply().tool('search_tools', { query: 'schedule' }));
    else if (step === 27) out.push(reply().tool('list_reminders', {}));
    else {
      const [name, args] = ROUTINE[routine++ % ROUTINE.length]!;
      out.push(reply().tool(name, args));
    }
  }
  out.push(reply().text('Done: the project is read, nothing is remembered about it and no reminder is set.'));
  return deferred ? out : out.filter((r) => r.spec.tools?.[0]?.name !== 'search_tools');
}

function project(): string {
  const work = tempDir('deskhand-bench-deferral-');
  writeFileSync(join(work, 'README.md'), '# a project\n\nA small TypeScript project the bench reads.\n');
  const src = join(work, 'src');
  mkdirSync(src);
  writeFileSync(join(src, 'app.ts'), `import { add } from './util';\n\nexport function main(): number {\n  return add(2, 3);\n}\n`.repeat(6));
  writeFileSync(join(src, 'util.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n'.repeat(6));
  return work;
}

export async function runTask(deferred: boolean): Promise<{ requests: number; inputTokens: number; toolTokens: number; failures: string[] }> {
  const server = await startModelServer();
  const store = new Store(tempDir('deskhand-bench-data-'));
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, afterTurn: () => undefined, maxSteps: STEPS + 5 });
  try {
    const replies = script(deferred);
    server.enqueue(...replies);
    const conv = runtime.createConversation({ folder: project(), policy: 'read-only' });
    if (!deferred) runtime.setFamilies(conv.id, Object.keys(FAMILY_SUMMARIES).filter((f) => !(DEFAULT_FAMILIES as readonly string[]).includes(f)), true);
    const outcome = await runtime.sendMessage(conv.id, 'Read this project, check what you remember about it and whether a reminder is set.', {
      provider: { provider: 'openai', model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' },
      interactive: false,
    });
    if (outcome.status !== 'finished') throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
    if (server.requests.length !== replies.length) throw new Error(`expected ${replies.length} model requests, saw ${server.requests.length}`);
    // Every step's tool ran: a refused call (a family not loaded, arguments refused) would make the figure a lie.
    const failures = store
      .toolCallsForConversation(conv.id)
      .filter((c) => c.is_error || c.status !== 'done')
      .map((c) => `${c.tool} ${c.status}: ${c.output ?? ''}`);
    let inputTokens = 0;
    let toolTokens = 0;
    for (const r of server.requests) {
      inputTokens += tokens(JSON.stringify(r.body));
      toolTokens += tokens(JSON.stringify(r.body.tools ?? []));
    }
    return { requests: server.requests.length, inputTokens, toolTokens, failures };
  } finally {
    await runtime.tasks.shutdown();
    store.close();
    await server.close();
  }
}

export default async function deferralBench(): Promise<BenchResult> {
  const deferred = await runTask(true);
  const loaded = await runTask(false);
  for (const [arm, r] of [['deferral', deferred], ['all loaded', loaded]] as const) {
    if (r.failures.length) throw new Error(`${arm}: ${r.failures.length} tool calls failed, e.g. ${r.failures[0]!.slice(0, 300)}`);
  }
  const fmt = (n: number) => n.toLocaleString('en-US');
  // The two arms on one line for a reader (printed, not a figure: figures are numbers).
  process.stdout.write(`deferral_task_side_by_side: deferral ${deferred.requests} requests, ${fmt(deferred.inputTokens)} input tokens | all loaded ${loaded.requests} requests, ${fmt(loaded.inputTokens)} input tokens\n`);
  return {
    deferral_task_requests: figure([deferred.requests], { unit: 'requests' }),
    all_loaded_task_requests: figure([loaded.requests], { unit: 'requests' }),
    deferral_task_input_tokens: figure([deferred.inputTokens], { unit: 'tokens' }),
    all_loaded_task_input_tokens: figure([loaded.inputTokens], { unit: 'tokens' }),
    deferral_task_tool_tokens: figure([deferred.toolTokens], { unit: 'tokens' }),
    all_loaded_task_tool_tokens: figure([loaded.toolTokens], { unit: 'tokens' }),
    deferral_task_input_ratio: figure([deferred.inputTokens / loaded.inputTokens], { unit: '×' }),
  };
}
