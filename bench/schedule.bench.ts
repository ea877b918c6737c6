/**
 * fire_to_run_ms: from spawning `deskhand fire ID` (what an OS job runs, with the app closed) to the model request of
 * the woken run arriving at a local scripted model server: process start, store open, crash-claim recovery, claim,
 * advance, then the resumed conversation's first model call. Baseline in the same run, paired and alternating:
 * `deskhand run --conversation ID PROMPT` to its model request (the same process start and store open, no schedule).
 *
 * Both through bin/deskhand.js, which runs the CLI's CommonJS build with its compile cache (src/main/host/cli/
 * compile-cache.ts; a folder of the bench's own, warm after the first round). In the same rounds, order rotating:
 * run_to_request_cold_cache_ms, the same run with an empty cache folder each time (the first run after an install or
 * an update: every module compiled from source, the cache written at the exit), and run_to_request_esm_ms, the ES build
 * (out/main/cli.js) run directly, as `deskhand` ran before the CommonJS build; run_to_request_vs_esm_ratio pairs the two.
 * Needs `npm run build` (out/main/cli.cjs and cli.js).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Store } from '../src/main/services/store/store';
import { hostSchedules } from '../src/main/host/assembly/schedule-wiring';
import { startModelServer } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, interleaved, isSmoke, ratio, type BenchResult } from './lib';

const ROUNDS = 20;
const WARMUP = 1;
const BIN = resolve(import.meta.dirname, '../bin/deskhand.js');
const ESM_ENTRY = resolve(import.meta.dirname, '../out/main/cli.js');

export default async function scheduleBench(): Promise<BenchResult> {
  if (!existsSync(resolve(import.meta.dirname, '../out/main/cli.cjs'))) throw new Error('Run `npm run build` first (out/main/cli.cjs is missing).');
  const dataDir = tempDir('deskhand-bench-sched-');
  const work = tempDir('deskhand-bench-sched-work-');
  const arrivals = new Map<string, number>();
  const server = await startModelServer({
    onRequest: (r) => {
      // The newest mark in the conversation is this request's own.
      const m = [...JSON.stringify(r.body).matchAll(/MARK-(\d+)/g)].at(-1);
      if (m && !arrivals.has(m[1]!)) arrivals.set(m[1]!, performance.now());
    },
  });
  server.setFallback(() => ({ text: ['ok'] }));
  const env: NodeJS.ProcessEnv = { ...process.env, DESKHAND_OS_SCHEDULER: 'none', DESKHAND_NOTIFY: 'off', OPENAI_API_KEY: 'sk-bench' };
  delete env.DESKHAND_HOME;
  const store = new Store(dataDir);
  const schedules = hostSchedules(store, dataDir, { os: false });
  const conv = store.createConversation({ id: 'conv_bench', title: 'bench', folder: work, policy: 'low-risk' });
  store.createRun({ id: 'run_seed', conversation_id: conv.id, policy: 'low-risk', provider: 'openai-compatible', model: 'm', base_url: server.baseURL });
  store.updateRun('run_seed', { status: 'finished' });
  let mark = 0;
  /** Spawn to the request's arrival: `entry` is bin/deskhand.js (what people run), or a build file run directly. */
  const measure = async (args: string[], key: string, entry = BIN, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [entry, ...args], { env: { ...env, ...extraEnv }, stdio: 'ignore' });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const arrived = arrivals.get(key);
    if (code !== 0 || arrived === undefined) throw new Error(`deskhand ${args[0]} exited ${code} without reaching the model server`);
    return arrived - t0;
  };
  const runArgs = (key: string) => ['run', '--conversation', conv.id, '--provider', 'openai-compatible', '--base-url', server.baseURL, '--model', 'm', '--data-dir', dataDir, '--cwd', work, `MARK-${key} check in`];
  const samples = { fire: [] as number[], run: [] as number[], runCold: [] as number[], runEsm: [] as number[] };
  const run = (arm: keyof typeof samples, entry?: string, extraEnv?: () => NodeJS.ProcessEnv) => async () => {
    const key = String(++mark);
    samples[arm].push(await measure(runArgs(key), key, entry, extraEnv?.()));
  };
  const caches = tempDir('deskhand-bench-compile-cache-');
  let cold = 0;
  try {
    await interleaved(ROUNDS, WARMUP, {
      fire: async () => {
        const key = String(++mark);
        const { row } = await schedules.registerTrigger({ when: '1h', prompt: `MARK-${key} check in`, conversationId: conv.id });
        schedules.rows.update(row.id, { next_at: Date.now() });
        samples.fire.push(await measure(['fire', row.id, '--data-dir', dataDir], key, BIN, { DESKHAND_COMPILE_CACHE: join(caches, 'kept') }));
      },
      // What people run: bin/deskhand.js → the CommonJS build, its modules compiled from the compile cache.
      run: run('run', undefined, () => ({ DESKHAND_COMPILE_CACHE: join(caches, 'kept') })),
      // The same build with a cache folder of its own each time: a first run after an install or an update.
      runCold: run('runCold', undefined, () => ({ DESKHAND_COMPILE_CACHE: join(caches, `cold-${++cold}`) })),
      // The ES build (out/main/cli.js) run directly: every module compiled from source, as before the CommonJS build.
      runEsm: run('runEsm', ESM_ENTRY),
    });
    const warmedUp = isSmoke() ? 0 : WARMUP;
    const take = (name: keyof typeof samples) => samples[name].slice(warmedUp);
    const fire = take('fire');
    const runs = take('run');
    return {
      fire_to_run_ms: figure(fire, { unit: 'ms', baseline: 'run_to_request_ms' }),
      run_to_request_ms: figure(runs, { unit: 'ms', baseline: '`deskhand run --conversation` to its model request', target: '≤ 250' }),
      fire_overhead_ratio: ratio(fire, runs, { baseline: 'run_to_request_ms' }),
      run_to_request_cold_cache_ms: figure(take('runCold'), { unit: 'ms', baseline: 'the same with an empty compile cache (a first run after an install or update; it writes the cache at its exit)' }),
      run_to_request_esm_ms: figure(take('runEsm'), { unit: 'ms', baseline: 'the same run of the ES build (out/main/cli.js), every module compiled from source' }),
      run_to_request_vs_esm_ratio: ratio(runs, take('runEsm'), { baseline: 'run_to_request_esm_ms, same rounds' }),
    };
  } finally {
    store.close();
    await server.close();
  }
}
