/**
 * read_tail_vs_head_ratio: read_file with line_offset -20 on a 1 GB log file, written through (every byte a real log
 * line on disk, no hole: its allocated blocks are checked), against read_file of the first 20 lines of a 1 MB text
 * file. A backwards chunked tail read should cost about the same as a head read; reading the whole file would be
 * hundreds of times slower. The files are written once and kept under the OS temp folder between runs (a smoke run
 * writes a 64 MB log instead). Calls alternate in one process (order swapping each round); the ratio is per pair,
 * printed with its spread. Both files are in the page cache after the first read (warm, as a log being followed is).
 */
import { closeSync, existsSync, openSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileTool } from '../src/main/tools/files/read-file';
import { makeContext } from '../test/support/tool-context';
import { figure, isSmoke, paired, ratio, type BenchResult } from './lib';

const SIZE = isSmoke() ? 64 * 1024 ** 2 : 1024 ** 3;
const ROUNDS = 200;
const DIR = tmpdir();
const BIG = join(DIR, `deskhand-bench-read-tail-${SIZE / 1024 ** 2}mb-written.log`);
const SMALL = join(DIR, 'deskhand-bench-read-head-1mb.log');
const LAST = 1_000_000_000;

function logLine(i: number): string {
  return `2025-01-01T00:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} handled in ${(i * 7) % 1000} ms path=/api/v1/items/${i}\n`;
}

/** Exactly `SIZE` bytes of log lines, written in 8 MB blocks; the last 20 lines are numbered from LAST − 19 on. */
function writeBig(): void {
  const tmp = `${BIG}.partial`;
  const fd = openSync(tmp, 'w');
  try {
    let block = '';
    for (let i = 0; block.length < 8 * 1024 * 1024; i++) block += logLine(i);
    const buf = Buffer.from(block.slice(0, block.lastIndexOf('\n') + 1));
    let tail = '';
    for (let i = 0; i < 20; i++) tail += logLine(LAST - 19 + i);
    const tailBuf = Buffer.from(tail);
    let written = 0;
    const body = SIZE - tailBuf.length;
    while (written < body) {
      const n = Math.min(buf.length, body - written);
      // The last piece of the body is cut short: end it with a newline so the tail starts on its own line.
      const piece = n === buf.length ? buf : Buffer.concat([buf.subarray(0, n - 1), Buffer.from('\n')]);
      writeSync(fd, piece, 0, piece.length, written);
      written += piece.length;
    }
    writeSync(fd, tailBuf, 0, tailBuf.length, written);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, BIG);
}

function ensureFiles(): void {
  // A real file: every byte allocated on disk (a sparse file would have far fewer blocks than its size).
  const ok = existsSync(BIG) && statSync(BIG).size === SIZE && statSync(BIG).blocks * 512 >= SIZE;
  if (!ok) writeBig();
  if (!existsSync(SMALL) || statSync(SMALL).size < 1024 * 1024) {
    let text = '';
    for (let i = 0; text.length < 1024 * 1024; i++) text += logLine(i);
    writeFileSync(SMALL, text);
  }
}

export default async function readTailBench(): Promise<BenchResult> {
  ensureFiles();
  const ctx = makeContext(DIR);
  const tail = async (): Promise<string> => (await readFileTool.execute({ path: BIG, line_offset: -20 }, ctx)).output;
  const head = async (): Promise<string> => (await readFileTool.execute({ path: SMALL, n_lines: 20 }, ctx)).output;
  const t = await tail();
  const h = await head();
  if (!t.includes(`request ${LAST} `) || !h.includes('request 19 ')) throw new Error('read-tail bench: unexpected read_file output');
  const times = await paired(ROUNDS, 10, tail, head);
  return {
    read_tail_vs_head_ratio: ratio(times.a, times.b, { baseline: `read_file of the first 20 lines of a 1 MB file, same run; the ${SIZE / 1024 ** 2} MB log written through, not sparse`, headline: true }),
    read_tail_1gb_ms: figure(times.a, { unit: 'ms', baseline: `read_file line_offset -20 of a ${SIZE / 1024 ** 2} MB written log` }),
    read_head_1mb_ms: figure(times.b, { unit: 'ms' }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await readTailBench());
}
