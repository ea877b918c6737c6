/**
 * At least 20 samples behind every headline figure (issue 35): bench/run.ts refuses a bench whose figure with a target
 * (or marked `headline`) was taken from fewer, outside --smoke — the run fails and the figure is not printed. Proven
 * on run.ts itself over a folder of throwaway benches (DESKHAND_BENCH_DIR), and on lib.ts's check directly.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIN_SAMPLES, checkSamples, figure, percentile, pooledPercentile } from '../../bench/lib';
import { tempDir } from '../support/tool-context';

const RUN = resolve(__dirname, '../../bench/run.ts');
const LIB = pathToFileURL(resolve(__dirname, '../../bench/lib.ts')).href;
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** A folder with one bench returning `figures` (source text of an object literal over lib's `figure`). */
function benchDir(figures: string): string {
  const dir = tempDir('deskhand-bench-samples-');
  writeFileSync(join(dir, 'probe.bench.ts'), `import { figure } from ${JSON.stringify(LIB)};\nexport default async () => (${figures});\n`);
  return dir;
}

function run(dir: string, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', tsx, RUN, ...args], { env: { ...process.env, DESKHAND_BENCH_DIR: dir }, encoding: 'utf8', timeout: 60_000 });
}

const samples = (n: number) => `Array.from({ length: ${n} }, (_, i) => 100 + i)`;

describe('bench/run.ts refuses a headline figure with fewer than 20 samples', () => {
  it.each([
    { what: 'a figure with a target', fig: `figure(${samples(19)}, { unit: 'ms', target: '≤ 400' })` },
    { what: 'a figure marked headline', fig: `figure(${samples(5)}, { unit: 'ms', headline: true })` },
    { what: 'a single sample with a target', fig: `figure([1], { unit: 'ms', target: '≤ 1' })` },
  ])('$what: the run fails, names the figure and its count, and prints no figure', ({ fig }) => {
    const dir = benchDir(`{ probe_ms: ${fig}, other_ms: figure(${samples(3)}, { unit: 'ms' }) }`);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/probe\.bench\.ts failed: Error: probe_ms is a headline figure.* taken from \d+ samples?; at least 20 are needed/);
    expect(r.stdout).not.toMatch(/probe_ms:|other_ms:/);
  });

  it('20 samples pass, and so do a figure without a target and an exact count (the same figures, printed)', () => {
    const dir = benchDir(`{ probe_ms: figure(${samples(MIN_SAMPLES)}, { unit: 'ms', target: '≤ 400' }), side_ms: figure(${samples(3)}, { unit: 'ms' }), tokens: figure([4200], { unit: 'tokens', target: '≤ 10000', exact: 'a count' }) }`);
    const r = run(dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('probe_ms: 109.5 ms (101.9–117.1, n=20) [target ≤ 400]');
    expect(r.stdout).toContain('side_ms: 101.0 ms');
    expect(r.stdout).toContain('tokens: 4200.0 tokens');
    expect(existsSync(join(dir, 'results', 'latest.json'))).toBe(true);
  });

  it('--smoke takes one round of everything and reports it (its figures mean nothing and are not written)', () => {
    const dir = benchDir(`{ probe_ms: figure([1], { unit: 'ms', target: '≤ 400' }) }`);
    const r = run(dir, '--smoke');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('probe.bench.ts: ok');
    expect(existsSync(join(dir, 'results'))).toBe(false);
  });
});

describe('bench/run.ts runs each bench in a process of its own', () => {
  it('a bench does not meet what an earlier one left in its process, and one that kills its process fails by name', () => {
    const dir = tempDir('deskhand-bench-isolated-');
    // Each bench counts the benches that ran in its process before it (itself included).
    const counting = `const g = globalThis as { benchesHere?: number };\nexport default async () => ({ benches_here: (g.benchesHere = (g.benchesHere ?? 0) + 1) });\n`;
    writeFileSync(join(dir, 'a.bench.ts'), counting);
    writeFileSync(join(dir, 'b.bench.ts'), counting.replace('benches_here', 'benches_here_b'));
    writeFileSync(join(dir, 'c.bench.ts'), 'export default async () => { process.exit(3); };\n');
    const r = run(dir);
    expect(r.stdout).toContain('benches_here: 1.0');
    expect(r.stdout).toContain('benches_here_b: 1.0');
    expect(r.stderr).toContain('c.bench.ts failed: Error: its process ended (3) without a report');
    expect(r.status).toBe(1);
  });
});

describe('checkSamples', () => {
  it('throws for a headline figure under 20 samples and not otherwise', () => {
    const under = figure([1, 2, 3], { target: '≤ 3' });
    expect(() => checkSamples('x', under, false)).toThrow(/x is a headline figure \(target ≤ 3\) taken from 3 samples; at least 20/);
    expect(() => checkSamples('x', under, true)).not.toThrow();
    expect(() => checkSamples('x', figure([1, 2, 3]), false)).not.toThrow();
    expect(() => checkSamples('x', figure([1], { target: '≤ 3', exact: 'a count' }), false)).not.toThrow();
    expect(() => checkSamples('x', figure(Array.from({ length: 20 }, (_, i) => i), { headline: true }), false)).not.toThrow();
    expect(() => checkSamples('x', 42, false)).not.toThrow();
  });

  it('throws for a figure of no samples in a smoke run as well (the bench measured nothing: schedule.bench printed NaN)', () => {
    expect(() => checkSamples('fire_to_run_ms', figure([]), true)).toThrow(/fire_to_run_ms has no samples/);
    expect(() => checkSamples('fire_to_run_ms', figure([]), false)).toThrow(/fire_to_run_ms has no samples/);
    expect(() => checkSamples('x', figure([5]), true)).not.toThrow();
  });
});

describe('pooledPercentile (the token lag headline: the p95 of every token of every reply)', () => {
  it('is the percentile of the pool, not the median of each group\'s percentile; n counts the groups, held to 20', () => {
    // 19 replies whose tokens all lag 10 ms, one whose tokens all lag 500 ms: the median of per-reply p95s says 10.
    const groups = [...Array.from({ length: 19 }, () => Array.from({ length: 100 }, () => 10)), Array.from({ length: 100 }, () => 500)];
    const f = pooledPercentile(groups, 0.95, { target: '≤ 50' });
    expect(f.median).toBe(percentile(groups.flat(), 0.95));
    expect(f.median).toBeGreaterThan(10);
    expect(percentile(groups.map((g) => percentile(g, 0.95)), 0.5)).toBe(10);
    expect(f.n).toBe(20);
    // The spread is that of resampled replies: some resamples leave the slow reply out, some take it twice.
    expect(f.p10).toBeLessThan(f.p90);
    expect(pooledPercentile(groups, 0.95)).toEqual(pooledPercentile(groups, 0.95)); // a fixed seed: same samples, same figure
    expect(() => checkSamples('token_to_screen_p95_ms', f, false)).not.toThrow();
    expect(() => checkSamples('token_to_screen_p95_ms', pooledPercentile(groups.slice(0, 6), 0.95, { target: '≤ 50' }), false)).toThrow(/taken from 6 samples/);
  });
});
