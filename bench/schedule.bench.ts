/**
 * fire_to_run_ms: from spawning `deskhand fire ID` (what an OS job runs, with the app closed) to the model request of
 * the woken run arriving at a local scripted model server: process start, store open, crash-claim recovery, claim,
 * advance, then the resumed conversation's first model call. Baseline in the same run, paired and alternating:
 * `deskhand run --conversation ID PROMPT` to its model request (the same process start and store open, no schedule).
 * Needs `npm run build` (out/main/cli.js).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Store } from '../src/main/services/store/store';
import { hostSchedules } from '../src/main/host/assembly/schedule-wiring';
import { startModelServer } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, isSmoke, paired, ratio, type BenchResult } from './lib';

const ROUNDS = 20;
const WARMUP = 1;
const BIN = resolve(import.meta.dirname, '../bin/deskhand.js');

export default async function scheduleBench(): Promise<BenchResult> {
  if (!existsSync(resolve(import.meta.dirname, '../out/main/cli.js'))) throw new Error('Run `npm run build` first (out/main/cli.js is missing).');
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
  const measure = async (args: string[], key: string): Promise<number> => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'ignore' });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const arrived = arrivals.get(key);
    if (code !== 0 || arrived === undefined) throw new Error(`deskhand ${args[0]} exited ${code} without reaching the model server`);
    return arrived - t0;
  };
  const samples = { fire: [] as number[], run: [] as number[] };
  try {
    await paired(
      ROUNDS,
      WARMUP,
      async () => {
        const key = String(++mark);
        const { row } = await schedules.registerTrigger({ when: '1h', prompt: `MARK-${key} check in`, conversationId: conv.id });
        schedules.rows.update(row.id, { next_at: Date.now() });
        samples.fire.push(await measure(['fire', row.id, '--data-dir', dataDir], key));
      },
      async () => {
        const key = String(++mark);
        samples.run.push(await measure(['run', '--conversation', conv.id, '--provider', 'openai-compatible', '--base-url', server.baseURL, '--model', 'm', '--data-dir', dataDir, '--cwd', work, `MARK-${key} check in`], key));
      },
    );
    // paired() runs no warm-up in a smoke run: drop only the rounds it really ran as warm-up.
    const warmedUp = isSmoke() ? 0 : WARMUP;
    const fire = samples.fire.slice(warmedUp);
    const run = samples.run.slice(warmedUp);
    return {
      fire_to_run_ms: figure(fire, { unit: 'ms', baseline: 'run_to_request_ms' }),
      run_to_request_ms: figure(run, { unit: 'ms', baseline: '`deskhand run --conversation` to its model request', target: '≤ 250' }),
      fire_overhead_ratio: ratio(fire, run, { baseline: 'run_to_request_ms' }),
    };
  } finally {
    store.close();
    await server.close();
  }
}
