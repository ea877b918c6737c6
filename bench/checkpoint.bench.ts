/**
 * The change ledger's cost per step (docs/rewind.md), on the ledger itself over a real store and a real 10,000-file
 * workspace (100 folders of 100 small files) in a temp folder:
 *
 * - checkpoint_step_overhead_ms: one step's scan before plus its scan after (what a step that may change files pays),
 *   with nothing changed; with one file changed between the two (its write not timed); and around a command that
 *   creates 5,000 files (their creation not timed; then _per_file_us is the after-scan's cost per created file).
 * - rewind_ms: rewinding a step that modified 50 files (each round a fresh step; the rewind's own scans included).
 *
 * Rounds: DESKHAND_BENCH_ROUNDS (default 20) each; `--smoke` one round of each (and a 1,000-file workspace).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeLedger } from '../src/main/services/ledger';
import { Store } from '../src/main/services/store/store';
import { figure, isSmoke, roundsOf, type BenchResult } from './lib';

const ROUNDS = roundsOf(Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20));
const WARMUP = isSmoke() ? 0 : 3;
const FOLDERS = isSmoke() ? 10 : 100;
const PER_FOLDER = 100;
const CREATED = isSmoke() ? 500 : 5_000;

export default async function checkpointBench(): Promise<BenchResult> {
  const base = mkdtempSync(join(tmpdir(), 'deskhand-bench-ledger-'));
  const work = join(base, 'work');
  const store = new Store(join(base, 'data'));
  try {
    for (let d = 0; d < FOLDERS; d++) {
      mkdirSync(join(work, `dir${d}`), { recursive: true });
      for (let f = 0; f < PER_FOLDER; f++) writeFileSync(join(work, `dir${d}`, `file${f}.txt`), `folder ${d} file ${f}\n`);
    }
    const ledger = new ChangeLedger(store, join(base, 'data'));
    const scope = { conversationId: 'conv_bench', runId: 'run_bench', roots: [work] };
    const t0 = performance.now();
    await (await ledger.beginStep(scope))(); // first sight: every file read and kept once
    const firstSightMs = performance.now() - t0;

    const step = async (between: () => void): Promise<number> => {
      const a = performance.now();
      const after = await ledger.beginStep(scope);
      const b = performance.now();
      between();
      const c = performance.now();
      await after();
      return b - a + (performance.now() - c);
    };

    const nothing: number[] = [];
    const one: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const n = await step(() => undefined);
      const o = await step(() => writeFileSync(join(work, 'dir0', 'file0.txt'), `changed ${i}\n`));
      if (i < WARMUP) continue;
      nothing.push(n);
      one.push(o);
    }

    const many: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const made = join(work, `made${i}`);
      many.push(
        await step(() => {
          mkdirSync(made);
          for (let f = 0; f < CREATED; f++) writeFileSync(join(made, `n${f}.txt`), `new ${i} ${f}\n`);
        }),
      );
      rmSync(made, { recursive: true });
      await (await ledger.beginStep(scope))(); // the removal, out of the figure
    }

    const rewinds: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const runId = `run_rewind_${i}`;
      const after = await ledger.beginStep({ ...scope, runId });
      for (let f = 0; f < 50; f++) writeFileSync(join(work, `dir${1 + (f % 9)}`, `file${f}.txt`), `turn ${i} ${f}\n`);
      await after();
      const sets = ledger.setsOf('conv_bench').filter((s) => s.runId === runId);
      const a = performance.now();
      const result = await ledger.rewind('conv_bench', sets, { dryRun: false, note: { bench: i }, roots: [work] });
      rewinds.push(performance.now() - a);
      if (result.items.filter((x) => x.action === 'restored').length !== 50) throw new Error(`rewind put back ${result.items.length} paths, not 50`);
    }

    const manyFig = figure(many, { unit: 'ms', baseline: `${CREATED} files created by the step`, headline: true });
    return {
      checkpoint_first_sight_ms: firstSightMs,
      checkpoint_step_overhead_ms_nothing_changed: figure(nothing, { unit: 'ms', baseline: `${FOLDERS * PER_FOLDER}-file workspace, scan before + after`, target: '≤ 15' }),
      checkpoint_step_overhead_ms_one_file_changed: figure(one, { unit: 'ms', baseline: `${FOLDERS * PER_FOLDER}-file workspace`, target: '≤ 20' }),
      checkpoint_step_overhead_ms_5000_created: manyFig,
      checkpoint_step_overhead_per_created_file_us: figure(
        many.map((m, i) => ((m - (nothing[i] ?? nothing[0]!)) * 1000) / CREATED),
        { unit: 'µs', baseline: 'overhead above the nothing-changed step of the same round', headline: true },
      ),
      rewind_ms: figure(rewinds, { unit: 'ms', baseline: '50 files modified by one step', target: '≤ 500' }),
    };
  } finally {
    store.close();
    rmSync(base, { recursive: true, force: true });
  }
}
