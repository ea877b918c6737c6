/**
 * grep_vs_rg_ratio: the grep tool against raw ripgrep on the same generated tree (~20,000 files, ~200 MB of text,
 * cached under the OS temp folder between runs), same pattern, same output (content lines, head_limit 0 = all).
 * Tool and raw rg run alternately (order swapping each round) in one process; the ratio is taken per round and
 * printed with its spread. Raw rg is spawned from
 * Node the same way and its whole stdout collected, so both sides pay for process start and pipe reading.
 * grep_files_vs_rg_ratio is the same comparison for files_with_matches (`rg -l`).
 *
 * Warm and cold: the figures above are warm (the tree in the OS page cache after the warm-up round: what a search of
 * a project just worked on costs). The page cache decides the figure, so the same comparison runs cold too
 * (grep_cold_vs_rg_ratio, grep_cold_tool_ms, rg_cold_raw_ms): before every single call of either arm the kernel's page
 * cache, dentries and inodes are dropped (`sync; echo 3 > /proc/sys/vm/drop_caches`, which needs root; the bench fails
 * without it), so each call reads the tree from disk. Nothing else caches between calls: the tool keeps no index, and
 * rg is a fresh process each time. The drop itself is not timed.
 *
 * The tool matches what the model may see (grep-redacted.ts): each file with a match is read and redacted once, and
 * the runtime's redactor remembers the files redaction left unchanged. So there are three tool arms, each against raw
 * rg in the same rounds: warm (grep_vs_rg_ratio: one redactor across the rounds, as a conversation's runtime keeps
 * it: a repeated search reads only what changed), first (grep_first_vs_rg_ratio: the tree in the page cache but a
 * fresh redactor for every call, as the first search after the app starts), and cold (a fresh redactor and a dropped
 * page cache for every call).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SecretRedactor } from '../src/main/runtime/context/redaction';
import type { ToolContext } from '../src/main/runtime/tool';
import { grepTool } from '../src/main/tools/files/grep';
import { ripgrepPath } from '../src/main/tools/files/rg';
import { makeContext } from '../test/support/tool-context';
import { figure, isSmoke, paired, ratio, roundsOf, type BenchResult } from './lib';

/** 200 MB; a smoke run (CI) searches a 10 MB tree, enough to exercise every path without building 200 MB first. */
const DIRS = isSmoke() ? 10 : 200;
const FILES_PER_DIR = 100;
const TARGET_FILE_BYTES = 10_000;
const NEEDLE = 'deskhandneedle';
const ROUNDS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20);
/** Cold rounds (each call reads the whole tree from disk). */
const COLD_ROUNDS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20);
const TREE = join(tmpdir(), `deskhand-bench-grep-v1-${DIRS * FILES_PER_DIR}`);

/** Deterministic pseudo-random numbers (mulberry32). */
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

function ensureTree(): void {
  if (existsSync(join(TREE, '.complete'))) return;
  rmSync(TREE, { recursive: true, force: true });
  const rand = rng(42);
  const words = ['const', 'let', 'value', 'return', 'function', 'import', 'export', 'server', 'client', 'request', 'response', 'error', 'result', 'config', 'handler', 'await', 'async', 'string', 'number', 'object', 'update', 'render', 'state', 'props', 'index', 'length', 'buffer', 'stream', 'option', 'default'];
  // A pool of lines; about 0.5% carry the needle (≈ 15–20k matching lines over the tree).
  const pool: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    const n = 4 + Math.floor(rand() * 10);
    const parts: string[] = [];
    for (let w = 0; w < n; w++) parts.push(words[Math.floor(rand() * words.length)] as string);
    if (rand() < 0.005) parts.splice(Math.floor(rand() * parts.length), 0, NEEDLE);
    pool.push(`${'  '.repeat(Math.floor(rand() * 4))}${parts.join(' ')};`);
  }
  for (let d = 0; d < DIRS; d++) {
    const dir = join(TREE, `pkg${String(d).padStart(3, '0')}`, 'src');
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) {
      let text = '';
      while (text.length < TARGET_FILE_BYTES) text += `${pool[Math.floor(rand() * pool.length)]}\n`;
      writeFileSync(join(dir, `module${String(f).padStart(3, '0')}.ts`), text);
    }
  }
  writeFileSync(join(TREE, '.complete'), '');
}

async function rawRg(args: string[]): Promise<{ ms: number; bytes: number }> {
  const bin = await ripgrepPath();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: TREE, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let bytes = 0;
    child.stdout.on('data', (c: Buffer) => {
      chunks.push(c);
      bytes += c.length;
    });
    child.on('error', reject);
    child.on('close', () => {
      Buffer.concat(chunks, bytes).toString('utf8');
      resolve({ ms: performance.now() - t0, bytes });
    });
  });
}

/** A tool context as the runtime builds it: the redactor's memo of files it left unchanged comes with it. */
function runtimeContext(redactor = new SecretRedactor()): ToolContext {
  return { ...makeContext(TREE), redact: (text: string) => redactor.redact(text), unchangedByRedaction: redactor.unchangedFiles };
}

/**
 * Tool and raw rg alternately (the order swapping each round, after a warm-up), paired per round. `fresh`: a new
 * redactor (an empty memo) for every call; otherwise one for the whole comparison.
 */
async function compare(
  toolArgs: Parameters<typeof grepTool.execute>[0],
  rgArgs: string[],
  fresh = false,
): Promise<{ tool: number[]; rg: number[]; toolOut: string; rgBytes: number }> {
  const shared = runtimeContext();
  let toolOut = '';
  let rgBytes = 0;
  const t = await paired(
    ROUNDS,
    1,
    async () => (toolOut = (await grepTool.execute(toolArgs, fresh ? runtimeContext() : shared)).output),
    async () => (rgBytes = (await rawRg(rgArgs)).bytes),
  );
  return { tool: t.a, rg: t.b, toolOut, rgBytes };
}

/** Empties the kernel's page cache, dentries and inodes (root only), after writing out what is dirty. */
function dropCaches(): void {
  execFileSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
  } catch (err) {
    throw new Error(`the cold arm needs to drop the page cache (echo 3 > /proc/sys/vm/drop_caches, as root): ${(err as Error).message}`);
  }
}

/** Tool and raw rg, each call from a dropped page cache, the order swapping each round; paired per round. */
async function compareCold(toolArgs: Parameters<typeof grepTool.execute>[0], rgArgs: string[]): Promise<{ tool: number[]; rg: number[] }> {
  const out = { tool: [] as number[], rg: [] as number[] };
  const arms = {
    tool: async () => {
      dropCaches();
      const ctx = runtimeContext();
      const t0 = performance.now();
      await grepTool.execute(toolArgs, ctx);
      out.tool.push(performance.now() - t0);
    },
    rg: async () => {
      dropCaches();
      out.rg.push((await rawRg(rgArgs)).ms);
    },
  };
  for (let i = 0; i < roundsOf(COLD_ROUNDS); i++) {
    if (i % 2 === 0) {
      await arms.tool();
      await arms.rg();
    } else {
      await arms.rg();
      await arms.tool();
    }
  }
  return out;
}

export default async function grepBench(): Promise<BenchResult> {
  ensureTree();
  const content = await compare({ pattern: NEEDLE, output_mode: 'content', head_limit: 0 }, ['--no-config', '-n', NEEDLE]);
  // Sanity: both sides found the same lines.
  const toolLines = content.toolOut.split('\n').length;
  // The smoke tree is a twentieth of the full one (DIRS): it holds hundreds of matching lines, not thousands.
  if (toolLines < (isSmoke() ? 200 : 1000) || Math.abs(content.toolOut.length + 1 - content.rgBytes) > content.rgBytes * 0.01) {
    throw new Error(`grep bench: outputs differ (tool ${content.toolOut.length} chars / ${toolLines} lines, rg ${content.rgBytes} bytes)`);
  }
  const first = await compare({ pattern: NEEDLE, output_mode: 'content', head_limit: 0 }, ['--no-config', '-n', NEEDLE], true);
  if (first.toolOut !== content.toolOut) throw new Error('grep bench: a fresh redactor answered differently from a warm one');
  const files = await compare({ pattern: NEEDLE, output_mode: 'files_with_matches', head_limit: 0 }, ['--no-config', '-l', NEEDLE]);
  const cold = await compareCold({ pattern: NEEDLE, output_mode: 'content', head_limit: 0 }, ['--no-config', '-n', NEEDLE]);
  return {
    grep_vs_rg_ratio: ratio(content.tool, content.rg, { baseline: 'rg -n, same tree, same run; warm (tree in the page cache, the redactor\'s memo kept across calls)', target: '≤ 1.2' }),
    grep_first_vs_rg_ratio: ratio(first.tool, first.rg, { baseline: 'rg -n, same tree, same run; tree in the page cache, a fresh redactor (empty memo) per call', headline: true }),
    grep_first_tool_ms: figure(first.tool, { unit: 'ms', baseline: 'grep tool, content mode, a fresh redactor per call' }),
    grep_cold_vs_rg_ratio: ratio(cold.tool, cold.rg, { baseline: 'rg -n, same tree, same run; cold: page cache, dentries and inodes dropped before every call', headline: true }),
    grep_cold_tool_ms: figure(cold.tool, { unit: 'ms', baseline: 'grep tool, content mode, from a dropped page cache' }),
    rg_cold_raw_ms: figure(cold.rg, { unit: 'ms', baseline: 'rg spawned from Node, from a dropped page cache' }),
    grep_tool_ms: figure(content.tool, { unit: 'ms', baseline: 'grep tool, content mode, all lines' }),
    rg_raw_ms: figure(content.rg, { unit: 'ms', baseline: 'rg spawned from Node, stdout read whole' }),
    grep_files_vs_rg_ratio: ratio(files.tool, files.rg, { baseline: 'rg -l, same tree, same run; the redactor\'s memo kept across calls' }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await grepBench());
}
