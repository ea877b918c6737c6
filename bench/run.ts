/**
 * Runs every bench/*.bench.ts (or those named on the command line) and prints one line per figure:
 * `name: median (p10–p90, n=…) [vs baseline; target …]`. Each benchmark measures its baselines side by side in the
 * same run, since these machines are noisy. All figures are written to bench/results/latest.json;
 * `--compare FILE` prints the change of each figure against an earlier results file.
 *
 * A bench fails the run when it throws, or when it reports a string where a figure belongs (its real part is missing:
 * no Chromium, no display…): a figure that could not be taken is a failure, not a line of text.
 * A headline figure (one with a target, or marked `headline`) taken from fewer than 20 samples fails its bench too,
 * outside --smoke (lib.ts, checkSamples): a figure quoted as a result has at least 20 samples behind it.
 * `--smoke` (run by scripts/test.sh in CI): one round of every bench and no warm-up (bench/lib.ts's helpers and
 * DESKHAND_BENCH_ROUNDS=1 for benches that read it), so a bench that rots fails CI; nothing is written to results.
 *
 * Each bench runs in a process of its own (this file again, `--child FILE OUT`, which writes the bench's figures or its
 * error to OUT): a bench run after others in one process met their heap and compiled code (after grep's, the loop's
 * per-call figures were twice what they are alone), so a figure depended on which benches ran before it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkSamples, formatFigure, isFigure, type BenchResult, type Figure } from './lib';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);

/** What a bench's process reports to the runner. */
type ChildReport = { figures: BenchResult } | { error: string };

if (argv[0] === '--child') {
  // One bench, in this process alone: its figures (or its error) to the file the runner named, then exit at once.
  const [, path, out] = argv;
  let report: ChildReport;
  try {
    const mod = (await import(pathToFileURL(path!).href)) as { default: () => Promise<BenchResult> };
    report = { figures: await mod.default() };
  } catch (err) {
    report = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  writeFileSync(out!, JSON.stringify(report));
  process.exit(0);
}

/** Runs one bench file in a process of its own (this file, `--child`), its output shown as it comes. */
async function runInChild(path: string): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'deskhand-bench-run-'));
  const out = join(dir, 'report.json');
  try {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', path, out], { stdio: 'inherit' });
    const exit = await new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? String(code))));
    if (!existsSync(out)) throw new Error(`its process ended (${exit}) without a report`);
    const report = JSON.parse(readFileSync(out, 'utf8')) as ChildReport;
    if ('error' in report) throw new BenchError(report.error);
    return report.figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bench's own error, as its process reported it (its stack, printed as it is). */
class BenchError extends Error {}
let compareWith: string | undefined;
const only: string[] = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--smoke') process.env.DESKHAND_BENCH_SMOKE = '1';
  else if (argv[i] === '--compare') {
    compareWith = argv[++i];
    if (!compareWith) throw new Error('--compare needs a results file, such as bench/results/latest.json');
  } else only.push(argv[i]!);
}
const previous: Record<string, Figure | number | string> = compareWith && existsSync(compareWith)
  ? (JSON.parse(readFileSync(compareWith, 'utf8')) as { figures: Record<string, Figure | number | string> }).figures
  : {};
if (compareWith && !existsSync(compareWith)) process.stderr.write(`--compare: ${compareWith} does not exist; printing without changes\n`);

const smoke = process.env.DESKHAND_BENCH_SMOKE === '1';
if (smoke) process.env.DESKHAND_BENCH_ROUNDS ??= '1';

// Where the benches are (DESKHAND_BENCH_DIR: another folder of *.bench.ts, as test/bench/samples.test.ts uses).
const benchDir = process.env.DESKHAND_BENCH_DIR ?? here;
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const valueOf = (v: Figure | number | string | undefined): number | undefined =>
  isFigure(v) ? v.median : typeof v === 'number' ? v : undefined;

const all: Record<string, Figure | number | string> = {};
let failed = false;
for (const file of files) {
  const started = performance.now();
  try {
    const figures = await runInChild(join(benchDir, file));
    if (Object.keys(figures).length === 0) throw new Error('it reported no figure');
    const missing = Object.entries(figures).filter(([, v]) => typeof v === 'string');
    if (missing.length) throw new Error(`its real part is missing: ${missing.map(([k, v]) => `${k}: ${String(v)}`).join('; ')}`);
    // A headline figure from fewer than 20 samples is refused before anything of this bench is printed (lib.ts).
    for (const [name, value] of Object.entries(figures)) checkSamples(name, value, smoke);
    for (const [name, value] of Object.entries(figures)) {
      all[name] = value;
      let line = formatFigure(name, value);
      const now = valueOf(value);
      const before = valueOf(previous[name]);
      if (compareWith && now !== undefined && before !== undefined && before !== 0) {
        const pct = ((now - before) / Math.abs(before)) * 100;
        line += `  Δ ${pct >= 0 ? '+' : ''}${pct.toFixed(1)}% (was ${Number(before.toPrecision(4))})`;
      } else if (compareWith && now !== undefined) line += '  Δ new';
      process.stdout.write(`${line}\n`);
    }
    if (smoke) process.stdout.write(`${file}: ok in ${((performance.now() - started) / 1000).toFixed(1)} s (smoke: one round)\n`);
  } catch (err) {
    failed = true;
    process.stderr.write(`${file} failed: ${err instanceof BenchError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
}
if (smoke) {
  process.stdout.write(`bench smoke: ${files.length} benches, ${failed ? 'some failed (above)' : 'all ran'}\n`);
} else {
  mkdirSync(join(benchDir, 'results'), { recursive: true });
  const out = join(benchDir, 'results', only.length ? `partial-${Date.now()}.json` : 'latest.json');
  writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), figures: all }, null, 2)}\n`);
  process.stdout.write(`figures written to ${out}\n`);
}
// Exit now: a bench that failed half-way may leave a handle open (a browser, a server, an X world), and a runner that
// never returns would hang CI instead of failing it.
process.exit(failed ? 1 : 0);
