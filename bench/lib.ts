/**
 * Shared bench helpers. A figure is a set of samples reported as `median (p10–p90, n=…)`, with the name of the
 * baseline it was measured against in the same run. Ratios are computed per round (paired samples), so the spread of
 * a ratio is the spread of the paired rounds, not a ratio of two medians.
 */
export interface Figure {
  median: number;
  p10: number;
  p90: number;
  n: number;
  /** Unit shown after the value, such as `ms`, `x` or `pages/s`. */
  unit?: string;
  /** What this figure was measured against in the same run (another figure's name or a short description). */
  baseline?: string;
  /** The target the issue sets, shown for reference (`≤ 1.5`). A figure with a target is a headline figure. */
  target?: string;
  /** A headline figure without a target (one docs/performance.md quotes): held to MIN_SAMPLES like one with a target. */
  headline?: boolean;
  /** Why one value is the whole figure (a count that is the same every run, not a timing): exempt from MIN_SAMPLES. */
  exact?: string;
}

/** The fewest samples a headline figure may be reported with, outside `--smoke` (issue 35). */
export const MIN_SAMPLES = 20;

export const isHeadline = (f: Figure): boolean => f.headline === true || f.target !== undefined;

/**
 * Refuses a headline figure (one with a target, or marked `headline`) taken from fewer than MIN_SAMPLES samples,
 * unless it is exact (a count) or the run is a smoke run (one round of everything, figures meaning nothing). run.ts
 * calls it on every figure a bench returns, so a bench that cuts its rounds fails loudly instead of printing a figure.
 */
export function checkSamples(name: string, v: Figure | number | string, smoke = isSmoke()): void {
  // A figure of no samples at all (NaN) means the bench lost what it measures: a failure in a smoke run too.
  if (isFigure(v) && v.exact === undefined && !(v.n > 0)) throw new Error(`${name} has no samples: the bench measured nothing.`);
  if (smoke || !isFigure(v) || !isHeadline(v) || v.exact !== undefined) return;
  if (!(v.n >= MIN_SAMPLES)) {
    throw new Error(`${name} is a headline figure${v.target ? ` (target ${v.target})` : ''} taken from ${v.n} sample${v.n === 1 ? '' : 's'}; at least ${MIN_SAMPLES} are needed. Raise the bench's rounds, or mark a count that is the same every run \`exact\`.`);
  }
}

export type BenchResult = Record<string, Figure | number | string>;

/**
 * `bench/run.ts --smoke` (CI, through scripts/test.sh): one round of every bench, no warm-up, so a bench that throws or
 * lost its real part fails the run; the figures of a smoke run mean nothing and are not written as results.
 */
export const isSmoke = (): boolean => process.env.DESKHAND_BENCH_SMOKE === '1';
/** The rounds a bench asked for, or 1 in a smoke run (for loops of a bench's own). */
export const roundsOf = (n: number): number => (isSmoke() ? 1 : n);
const warm = (n: number): number => (isSmoke() ? 0 : n);

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Median and p10–p90 of the samples. */
export function figure(samples: readonly number[], extra: Omit<Figure, 'median' | 'p10' | 'p90' | 'n'> = {}): Figure {
  const s = [...samples].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p10: quantile(s, 0.1), p90: quantile(s, 0.9), n: s.length, ...extra };
}

/** Per-round ratio of paired samples (`measured[i] / baseline[i]`). */
export function ratio(measured: readonly number[], baseline: readonly number[], extra: Omit<Figure, 'median' | 'p10' | 'p90' | 'n'> = {}): Figure {
  if (measured.length !== baseline.length) throw new Error('ratio: samples must be paired');
  return figure(measured.map((m, i) => m / baseline[i]!), { unit: 'x', ...extra });
}

/**
 * Runs `a` and `b` alternately for `rounds` (after `warmup`), swapping the order each round so neither side always
 * runs warm; returns the paired durations in milliseconds.
 */
export async function paired(
  rounds: number,
  warmup: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number[]; b: number[] }> {
  const out = { a: [] as number[], b: [] as number[] };
  [rounds, warmup] = [roundsOf(rounds), warm(warmup)];
  for (let i = 0; i < warmup + rounds; i++) {
    const first = i % 2 === 0;
    const t0 = performance.now();
    await (first ? a() : b());
    const t1 = performance.now();
    await (first ? b() : a());
    const t2 = performance.now();
    if (i < warmup) continue;
    out.a.push(first ? t1 - t0 : t2 - t1);
    out.b.push(first ? t2 - t1 : t1 - t0);
  }
  return out;
}

/** Times `fn` `rounds` times after `warmup` runs; milliseconds. */
export async function timed(rounds: number, warmup: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  [rounds, warmup] = [roundsOf(rounds), warm(warmup)];
  for (let i = 0; i < warmup + rounds; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= warmup) out.push(performance.now() - t0);
  }
  return out;
}

const num = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3));

export function isFigure(v: unknown): v is Figure {
  return typeof v === 'object' && v !== null && typeof (v as Figure).median === 'number' && typeof (v as Figure).n === 'number';
}

/** `name: median (p10–p90, n=…)`, with unit, baseline and target when known. */
export function formatFigure(name: string, v: Figure | number | string): string {
  if (!isFigure(v)) return `${name}: ${typeof v === 'number' ? num(v) : v}`;
  const unit = v.unit ? ` ${v.unit}` : '';
  const extras = [v.baseline ? `vs ${v.baseline}` : '', v.target ? `target ${v.target}` : ''].filter(Boolean).join('; ');
  return `${name}: ${num(v.median)}${unit} (${num(v.p10)}–${num(v.p90)}, n=${v.n})${extras ? ` [${extras}]` : ''}`;
}

/**
 * Runs every arm once per round, in an order that rotates each round (so no arm always runs first or warm), for
 * `rounds` after `warmup`; returns each arm's durations in milliseconds, paired by round (index i of every arm is the
 * same round), ready for `ratio()`.
 */
export async function interleaved<K extends string>(rounds: number, warmup: number, arms: Record<K, () => Promise<unknown>>): Promise<Record<K, number[]>> {
  const names = Object.keys(arms) as K[];
  const out = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  [rounds, warmup] = [roundsOf(rounds), warm(warmup)];
  for (let i = 0; i < warmup + rounds; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      const t0 = performance.now();
      await arms[name]();
      const ms = performance.now() - t0;
      if (i >= warmup) out[name].push(ms);
    }
  }
  return out;
}

/** Samples of a figure computed elsewhere (such as a p95 per repeat), kept as one figure with spread. */
export function percentile(samples: readonly number[], q: number): number {
  return quantile([...samples].sort((a, b) => a - b), q);
}

/**
 * The `q` percentile of every sample of every group pooled (such as each token's lag over every reply): one number, the
 * figure's value. Its spread is how far that percentile moves when the groups (the independent units: replies, not
 * tokens) are resampled with replacement (`p10`–`p90` over 1,000 resamples, a fixed seed so a rerun of the same samples
 * prints the same spread); `n` is the number of groups, the count held to MIN_SAMPLES.
 */
export function pooledPercentile(groups: readonly (readonly number[])[], q: number, extra: Omit<Figure, 'median' | 'p10' | 'p90' | 'n'> = {}): Figure {
  const value = percentile(groups.flat(), q);
  let seed = 0x2545f491;
  const next = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const resampled: number[] = [];
  for (let b = 0; b < 1000 && groups.length > 0; b++) {
    const pool: number[] = [];
    for (let i = 0; i < groups.length; i++) pool.push(...groups[Math.floor(next() * groups.length)]!);
    resampled.push(percentile(pool, q));
  }
  const s = resampled.sort((a, b) => a - b);
  return { median: value, p10: quantile(s, 0.1), p90: quantile(s, 0.9), n: groups.length, ...extra };
}
