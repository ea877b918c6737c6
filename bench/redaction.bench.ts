/**
 * redact_one_pass_vs_indexof_ratio: the redactor's exact-secret scan (issue 54, item 2) on 10 MB of code-like text in
 * 1,000 files of 10 kB (what grep's first search redacts), with 20 vault secrets of 30 characters (each with its
 * encodings and 12-character windows: about 700 needles), against the way it scanned before: one `indexOf` pass per
 * needle over each file. Both arms run in the same rounds, alternately; credential shapes are off in both (they are
 * the same regexes either way), so the figure is the needle scan alone. redact_one_pass_ms and redact_indexof_ms are
 * the two arms; redact_shapes_ms is the whole redactor with shapes and no secrets (the rest of grep's redaction cost).
 * redact_shapes_vs_every_shape_ratio: that, against the same redactor with its trigger pass off (every credential shape
 * run over every text, as before the pass), alternately in the same rounds.
 */
import { pathToFileURL } from 'node:url';
import { SecretRedactor, shapeTriggerTuning } from '../src/main/runtime/context/redaction';
import { figure, paired, ratio, roundsOf, type BenchResult } from './lib';

const ROUNDS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20);

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function files(): string[] {
  const rand = rng(42);
  const words = ['const', 'let', 'value', 'return', 'function', 'import', 'export', 'server', 'client', 'request', 'response', 'error', 'result', 'config', 'handler', 'await', 'async', 'string', 'number', 'object', 'update', 'render', 'state', 'props', 'index', 'length', 'buffer', 'stream', 'option', 'default'];
  const out: string[] = [];
  for (let f = 0; f < 1000; f++) {
    const lines: string[] = [];
    let size = 0;
    while (size < 10_000) {
      const n = 4 + Math.floor(rand() * 10);
      const line = `${'  '.repeat(Math.floor(rand() * 4))}${Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ')};`;
      lines.push(line);
      size += line.length + 1;
    }
    // Flat strings, as a file read from disk is.
    out.push(Buffer.from(lines.join('\n')).toString('utf8'));
  }
  return out;
}

export default async function redactionBench(): Promise<BenchResult> {
  const texts = files();
  const rand = rng(7);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const secrets: Record<string, string> = {};
  for (let i = 0; i < 20; i++) secrets[`SECRET_${i}`] = Array.from({ length: 30 }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
  const redactor = new SecretRedactor({ env: {}, shapes: false, secrets });
  // The needles as the redactor holds them (its private list), for the per-needle arm.
  const needles = (redactor as unknown as { needles: { text: string }[] }).needles.map((n) => n.text);
  let hits = 0;
  const t = await paired(
    roundsOf(ROUNDS),
    1,
    async () => {
      for (const text of texts) hits += redactor.matches(text).length;
    },
    async () => {
      for (const text of texts) {
        for (const n of needles) for (let i = text.indexOf(n); i !== -1; i = text.indexOf(n, i + n.length)) hits++;
      }
    },
  );
  if (hits !== 0) throw new Error('the generated text holds a secret');
  const shapes = new SecretRedactor({ env: {} });
  // The shapes as they run (one trigger pass decides which can match), against every shape over every text (as before
  // the trigger pass), alternately in the same rounds.
  const s = await paired(
    roundsOf(ROUNDS),
    1,
    async () => {
      shapeTriggerTuning.enabled = true;
      for (const text of texts) shapes.redact(text);
    },
    async () => {
      shapeTriggerTuning.enabled = false;
      try {
        for (const text of texts) shapes.redact(text);
      } finally {
        shapeTriggerTuning.enabled = true;
      }
    },
  );
  return {
    redact_needles: needles.length,
    redact_one_pass_vs_indexof_ratio: ratio(t.a, t.b, { baseline: `one indexOf pass per needle (${needles.length} needles), 10 MB, same rounds`, headline: true }),
    redact_one_pass_ms: figure(t.a, { unit: 'ms', baseline: '10 MB in 1,000 files, 20 secrets, shapes off' }),
    redact_indexof_ms: figure(t.b, { unit: 'ms', baseline: 'the same needles, one indexOf pass each' }),
    redact_shapes_ms: figure(s.a, { unit: 'ms', baseline: 'the whole redactor, credential shapes, no secrets, 10 MB' }),
    redact_shapes_vs_every_shape_ratio: ratio(s.a, s.b, { baseline: 'the same with every shape run over every text (no trigger pass), same rounds', headline: true }),
    redact_every_shape_ms: figure(s.b, { unit: 'ms', baseline: 'every shape over every text, no secrets, 10 MB' }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await redactionBench());
}
