/**
 * read_tail_vs_head_ratio: read_file with line_offset -20 on a 1 GB sparse file (text at the start, a hole of zero
 * bytes, 200 text lines at the end) against read_file of the first 20 lines of a 1 MB text file. A backwards chunked
 * tail read should cost about the same as a head read; reading the whole file would be hundreds of times slower.
 * (The file starts with 16 KB of text so read_file's binary sniff of the first 8 KB sees text, as in a real log.)
 * Calls alternate in one process; figures are medians over many calls.
 */
import { closeSync, existsSync, ftruncateSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileTool } from '../src/main/tools/files/read-file';
import { makeContext } from '../test/support/tool-context';

const GB = 1024 ** 3;
const ROUNDS = 200;
const DIR = tmpdir();
const BIG = join(DIR, 'deskhand-bench-read-tail-1gb.log');
const SMALL = join(DIR, 'deskhand-bench-read-head-1mb.log');

function logLine(i: number): string {
  return `2025-01-01T00:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} handled in ${(i * 7) % 1000} ms path=/api/v1/items/${i}\n`;
}

function ensureFiles(): void {
  if (!existsSync(BIG) || statSync(BIG).size !== GB) {
    let head = '';
    for (let i = 0; head.length < 16 * 1024; i++) head += logLine(i);
    let tail = '';
    for (let i = 0; i < 200; i++) tail += logLine(1_000_000 + i);
    const fd = openSync(BIG, 'w');
    writeSync(fd, head, 0);
    ftruncateSync(fd, GB);
    writeSync(fd, tail, GB - Buffer.byteLength(tail));
    closeSync(fd);
  }
  if (!existsSync(SMALL) || statSync(SMALL).size < 1024 * 1024) {
    let text = '';
    for (let i = 0; text.length < 1024 * 1024; i++) text += logLine(i);
    writeFileSync(SMALL, text);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export default async function readTailBench(): Promise<Record<string, number>> {
  ensureFiles();
  const ctx = makeContext(DIR);
  const tail = async (): Promise<string> => (await readFileTool.execute({ path: BIG, line_offset: -20 }, ctx)).output;
  const head = async (): Promise<string> => (await readFileTool.execute({ path: SMALL, n_lines: 20 }, ctx)).output;
  const t = await tail();
  const h = await head();
  if (!t.includes('request 1000199 ') || !h.includes('request 19 ')) throw new Error('read-tail bench: unexpected read_file output');
  const tails: number[] = [];
  const heads: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t0 = performance.now();
    await tail();
    tails.push(performance.now() - t0);
    t0 = performance.now();
    await head();
    heads.push(performance.now() - t0);
  }
  const tailMs = median(tails);
  const headMs = median(heads);
  return { read_tail_1gb_ms: tailMs, read_head_1mb_ms: headMs, read_tail_vs_head_ratio: tailMs / headMs };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await readTailBench());
}
