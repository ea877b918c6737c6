/**
 * loop_overhead_ms_per_tool_call: what the agent loop adds per tool call — deciding, recording the call and its
 * result in the store, running a read-only tool (`stat`), events, building the next request — with the model at zero
 * latency. One run of CALLS sequential steps, each carrying one `stat` call; from its wall time the bare model round
 * trips are subtracted (the same scripted server and replies, and the very request bodies the agent's previous run of
 * this shape sent, fetched and read to the end by a plain HTTP client in the same process, right before each run),
 * and the rest divided by the number of calls. Each run is one sample; runs are repeated.
 *
 * loop_cpu_ms_per_tool_call: the same subtraction in this process's CPU time (the model server's is in its own
 * process, counted in neither arm). On a loaded machine the wall figure also counts every wait for a core at each of
 * a step's many event-loop hops; the CPU figure does not.
 *
 * loop_overhead_parallel_ms_per_step: the same with ten `stat` calls per model step (CALLS / 10 steps), per step —
 * what a step of ten calls costs the loop. loop_overhead_parallel_share_ms_per_call divides that run by its 100 calls
 * instead: the share of each call when ten run at once, not what one call costs (so it is not comparable with
 * loop_overhead_ms_per_tool_call, whose run has one call per step).
 *
 * loop_sdk_request_extra_ms: the provider SDK's share of a step, measured apart: the last sequential run's final
 * request (its whole history and tool set) through the SDK's `doStream`, read to the end, against the very body it
 * sends fetched and read by a plain HTTP client — alternating, same server.
 *
 * loop_runtime_ms_per_tool_call: Deskhand's own share, measured apart — the same sequential runs with the provider
 * replaced by an in-process model that hands the loop the same parts (a `stat` call per step, then the closing text)
 * without HTTP or a provider SDK; wall time per call, nothing subtracted. Alternates with the runs above.
 * loop_provider_share_ms_per_tool_call is the rest, per round: loop_overhead − loop_runtime (building each request
 * and reading its stream through the provider SDK and HTTP, beyond the bare round trip).
 *
 * loop_overhead_fetch_ms_per_tool_call: the sequential figure with the provider's requests carried by Node's `fetch`
 * (as before issue 54's twelfth round) instead of model-transport.ts's Node `http` client, in the same rounds (before
 * the sequential arm in odd rounds, after it in even ones), each beside bare round trips of its own; the bare arm is
 * `fetch` in both. loop_transport_saving_ms_per_tool_call is the difference per round: how much of the headline's
 * drop is the transport, so the headline is read knowing its baseline client is the slower one.
 *
 * The scripted server runs in a child process of its own (bench/model-server-process.ts), as a real provider is never
 * in the agent's process: its parse of each request and build of each reply, and its garbage, are in neither arm.
 * (Issue 54's sixth to ninth rounds also took the sequential figures with the server in this process, beside these:
 * the `…_inproc_…` figures, within their spread of these; dropped after that release.)
 * The server forgets the requests after each run (it keeps every request it answers, for tests), so its growing heap
 * does not tax the runs measured after it.
 */
import type { LanguageModel } from 'ai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAppRuntime } from '../src/main/host/assembly/open-runtime';
import { requestView } from '../src/main/runtime/context/compaction';
import { streamModelStep } from '../src/main/runtime/loop/model-call';
import { SecretRedactor } from '../src/main/runtime/context/redaction';
import { modelTransportTuning } from '../src/main/services/providers/model-transport';
import { createModel } from '../src/main/services/providers/providers';
import { Store } from '../src/main/services/store/store';
import { reply, type ReplyBuilder } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, paired, type BenchResult } from './lib';
import { startModelServerProcess } from './model-server-process';

const CALLS = 100;
const PER_STEP = 10;
/** Each repeat is one sample of every figure: 20, so the headline has at least 20. */
const REPEATS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20);

export default async function loopOverhead(): Promise<BenchResult> {
  const server = await startModelServerProcess();
  const work = tempDir('deskhand-bench-work-');
  writeFileSync(join(work, 'a.txt'), 'hello\n');
  const provider = { provider: 'openai' as const, model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' };
  const store = new Store(tempDir('deskhand-bench-data-'));
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, maxSteps: CALLS + 1, afterTurn: () => undefined, browser: null }); // no memory-extraction side call, no browser in the measured turns

  /** The replies of one run: `steps` steps of `perStep` stat calls, then a closing text. */
  const script = (perStep: number): ReplyBuilder[] => {
    const steps: ReplyBuilder[] = [];
    for (let s = 0; s < CALLS / perStep; s++) {
      let r = reply();
      // Two spellings of the path step by step: the same call step after step would meet the repeat guard.
      for (let i = 0; i < perStep; i++) r = r.tool('stat', { path: s % 2 ? 'a.txt' : './a.txt' });
      steps.push(r);
    }
    steps.push(reply().text('done'));
    return steps;
  };

  /** The request bodies of the last agent run of each shape (calls per step): the bare model replays them. */
  const bodies = new Map<number, string[]>();

  /**
   * The model alone: the very requests the last agent run of this shape sent (same bodies, so the server parses the
   * same growing history), each fetched and read to its end by a plain HTTP client, one after the other.
   */
  const bareModel = async (perStep: number): Promise<{ ms: number; cpuMs: number }> => {
    const sent = bodies.get(perStep);
    if (!sent) throw new Error('no agent run to replay yet');
    await server.enqueue(...script(perStep));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const body of sent) {
      const res = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
        body,
      });
      await res.text();
    }
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if ((await server.take()).length !== sent.length) throw new Error(`the bare round trips did not all reach the server ${server.where}`);
    return { ms, cpuMs: (c.user + c.system) / 1000 };
  };

  const agentRun = async (perStep: number): Promise<{ ms: number; cpuMs: number }> => {
    await server.enqueue(...script(perStep));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    if (perStep === 1) lastSequential = conv.id;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const outcome = await runtime.sendMessage(conv.id, 'bench', { provider, interactive: false });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const sent = (await server.take({ bodies: true })).map((r) => r.body!);
    bodies.set(perStep, sent);
    if (outcome.status !== 'finished') throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
    if (sent.length !== CALLS / perStep + 1) throw new Error(`expected ${CALLS / perStep + 1} model requests at the server ${server.where}, saw ${sent.length}`);
    const calls = store.toolCallsForConversation(conv.id);
    if (calls.length !== CALLS || calls.some((c) => c.tool !== 'stat' || c.status !== 'done')) {
      throw new Error(`expected ${CALLS} finished stat calls, found ${calls.length} (${[...new Set(calls.map((c) => `${c.tool}:${c.status}`))].join(', ')})`);
    }
    return { ms, cpuMs: (c.user + c.system) / 1000 };
  };

  // The same runs with an in-process model: what Deskhand's own code costs per call.
  const inProcess = inProcessModel(CALLS);
  const runtimeOnly = createAppRuntime({ store, dataDir: store.dataDir, vault: null, maxSteps: CALLS + 1, afterTurn: () => undefined, browser: null, modelFactory: () => inProcess.model });
  const runtimeRun = async (): Promise<number> => {
    inProcess.reset();
    const conv = runtimeOnly.createConversation({ folder: work, policy: 'read-only' });
    const t0 = performance.now();
    const outcome = await runtimeOnly.sendMessage(conv.id, 'bench', { provider, interactive: false });
    const ms = performance.now() - t0;
    if (outcome.status !== 'finished') throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
    const calls = store.toolCallsForConversation(conv.id);
    if (calls.length !== CALLS || calls.some((c) => c.tool !== 'stat' || c.status !== 'done' || c.is_error)) throw new Error('the in-process runs must finish every stat call');
    return ms / CALLS;
  };

  let lastSequential: string | null = null;
  const sdkExtra: number[] = [];
  let sdkBodyBytes = 0;
  const perCall = { sequential: [] as number[], sequentialFetch: [] as number[], parallel: [] as number[], sequentialCpu: [] as number[], parallelCpu: [] as number[], runtime: [] as number[] };
  /** The sequential run with the provider's requests on Node's `fetch` instead of model-transport.ts, beside its own bare arm. */
  const viaFetch = async (): Promise<void> => {
    const bare = await bareModel(1);
    modelTransportTuning.enabled = false;
    try {
      const run = await agentRun(1);
      perCall.sequentialFetch.push((run.ms - bare.ms) / CALLS);
    } finally {
      modelTransportTuning.enabled = true;
    }
  };
  const perStep = { parallel: [] as number[], parallelCpu: [] as number[] };
  const totals = { sequential: [] as number[], bareSequential: [] as number[] };
  try {
    // Warm-up: module loading, JIT, SQLite page cache; and the first request bodies to replay.
    await agentRun(1);
    await agentRun(PER_STEP);
    await bareModel(1);
    await runtimeRun();
    for (let r = 0; r < REPEATS; r++) {
      perCall.runtime.push(await runtimeRun());
      // The fetch arm goes before the sequential one in odd rounds, after it in even ones.
      if (r % 2 === 1) await viaFetch();
      for (const [name, callsPerStep] of [['sequential', 1], ['parallel', PER_STEP]] as const) {
        const bare = await bareModel(callsPerStep);
        const run = await agentRun(callsPerStep);
        perCall[name].push((run.ms - bare.ms) / CALLS);
        perCall[name === 'sequential' ? 'sequentialCpu' : 'parallelCpu'].push((run.cpuMs - bare.cpuMs) / CALLS);
        if (name === 'parallel') {
          perStep.parallel.push((run.ms - bare.ms) / (CALLS / PER_STEP));
          perStep.parallelCpu.push((run.cpuMs - bare.cpuMs) / (CALLS / PER_STEP));
        }
        if (name === 'sequential') {
          totals.sequential.push(run.ms);
          totals.bareSequential.push(bare.ms);
        }
      }
      if (r % 2 === 0) await viaFetch();
    }
    // The SDK's share: the final request of the last sequential run, through doStream and as a bare fetch.
    const convId = lastSequential!;
    const { messages } = requestView(store, convId);
    const tools = runtime.registry.toolSet({ conversationId: convId, policy: 'read-only', revealed: [] }).specs;
    // The system prompt the run itself sent last.
    const sent = bodies.get(1)!.at(-1)!;
    const system = (JSON.parse(sent) as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'system').map((m) => String(m.content));
    const model = createModel(provider);
    // The wire redactor every runtime request goes through (a redactor like a run's: this environment's credentials).
    const redactor = new SecretRedactor();
    const viaSdk = async () => {
      await server.enqueue(reply().tool('stat', { path: 'a.txt' }));
      for await (const part of streamModelStep({ model, system, messages, tools, signal: new AbortController().signal, redactor, onUsage: () => {} })) void part;
    };
    await viaSdk();
    const body = (await server.take({ bodies: true })).at(-1)!.body!;
    const bare = async () => {
      await server.enqueue(reply().tool('stat', { path: 'a.txt' }));
      const res = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body });
      await res.text();
    };
    const sdk = await paired(60, 10, viaSdk, bare);
    sdkExtra.push(...sdk.a.map((ms, i) => ms - sdk.b[i]!));
    sdkBodyBytes = body.length;
  } finally {
    store.close();
    await server.close();
  }
  return {
    loop_overhead_ms_per_tool_call: figure(perCall.sequential, { unit: 'ms', baseline: `(run − bare model round trips, same run) / ${CALLS} sequential calls`, target: '≤ 3' }),
    loop_overhead_parallel_ms_per_step: figure(perStep.parallel, { unit: 'ms/step', baseline: `(run − bare model round trips, same run) / ${CALLS / PER_STEP} steps of ${PER_STEP} calls` }),
    loop_overhead_parallel_share_ms_per_call: figure(perCall.parallel, { unit: 'ms', baseline: `the same run / ${CALLS} calls: each call's share when ${PER_STEP} run in one step, not one call's cost` }),
    loop_cpu_ms_per_tool_call: figure(perCall.sequentialCpu, { unit: 'ms', baseline: 'process CPU time, (run − bare model) / calls, sequential; less sensitive to a loaded machine' }),
    loop_cpu_parallel_ms_per_step: figure(perStep.parallelCpu, { unit: 'ms/step', baseline: `process CPU time, (run − bare model) / ${CALLS / PER_STEP} steps of ${PER_STEP} calls` }),
    loop_runtime_ms_per_tool_call: figure(perCall.runtime, { unit: 'ms', baseline: `the same ${CALLS} sequential calls with an in-process model (no HTTP, no provider SDK), per call` }),
    loop_provider_share_ms_per_tool_call: figure(
      perCall.sequential.map((ms, i) => ms - perCall.runtime[i]!),
      { unit: 'ms', baseline: 'per round: loop_overhead_ms_per_tool_call − loop_runtime_ms_per_tool_call (the provider SDK and HTTP beyond the bare round trip)' },
    ),
    loop_overhead_fetch_ms_per_tool_call: figure(perCall.sequentialFetch, { unit: 'ms', baseline: 'the same sequential runs with the provider\'s requests on Node\'s fetch (model-transport.ts off), same rounds, each beside its own bare round trips' }),
    loop_transport_saving_ms_per_tool_call: figure(
      perCall.sequentialFetch.map((ms, i) => ms - perCall.sequential[i]!),
      { unit: 'ms', baseline: 'per round: loop_overhead_fetch − loop_overhead (what carrying the requests on Node\'s http instead of fetch saves a call)' },
    ),
    loop_run_ms_100_sequential_calls: figure(totals.sequential, { unit: 'ms' }),
    loop_bare_model_ms_100_round_trips: figure(totals.bareSequential, { unit: 'ms', baseline: 'the scripted server alone (in a child process), plain HTTP client' }),
    loop_sdk_request_extra_ms: figure(sdkExtra, { unit: 'ms', baseline: `the same request (${Math.round(sdkBodyBytes / 1024)} KB: ${CALLS * 2 + 1} messages, the tool set) as a plain fetch, alternating` }),
  };
}

/**
 * A language model (the provider interface the loop calls) living in this process: each step hands the loop a `stat`
 * call as the scripted server's reply would, after `calls` steps the closing text. Nothing is sent anywhere.
 */
function inProcessModel(calls: number): { model: LanguageModel; reset: () => void } {
  let step = 0;
  const model = {
    specificationVersion: 'v3',
    provider: 'bench.in-process',
    modelId: 'bench',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('the in-process bench model only streams')),
    // Two spellings of the path step by step, as in the scripted runs: the same call step after step meets the repeat guard.
    doStream: () => {
      const i = step++;
      const parts =
        i < calls
          ? [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'stat', input: JSON.stringify({ path: i % 2 ? 'a.txt' : './a.txt' }) }]
          : [{ type: 'text-delta', id: 'text', delta: 'done' }];
      parts.push({ type: 'finish', finishReason: { unified: i < calls ? 'tool-calls' : 'stop', raw: undefined }, usage: { inputTokens: { total: 10 }, outputTokens: { total: 1 } } } as never);
      return Promise.resolve({
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      });
    },
  } as unknown as LanguageModel;
  return { model, reset: () => (step = 0) };
}
