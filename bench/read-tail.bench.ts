/**
 * read_tail_vs_head_ratio: read_file with line_offset -20 on a 1 GB sparse file (text at the start, a hole of zero
 * bytes, 200 text lines at the end) against read_file of the first 20 lines of a 1 MB text file. A backwards chunked
 * tail read should cost about the same as a head read; reading the whole file would be hundreds of times slower.
 * (The file starts with 16 KB of text so read_file's binary sniff of the first 8 KB sees text, as in a real log.)
 * Calls alternate in one process (order swapping each round); the ratio is per pair, printed with its spread.
 */
import { closeSync, existsSync, ftruncateSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileTool } from '../src/main/tools/files/read-file';
import { makeContext } from '../test/support/tool-context';
import { figure, paired, ratio, type BenchResult } from './lib';

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

export default async function readTailBench(): Promise<BenchResult> {
  ensureFiles();
  const ctx = makeContext(DIR);
  const tail = async (): Promise<string> => (await readFileTool.execute({ path: BIG, line_offset: -20 }, ctx)).output;
  const head = async (): Promise<string> => (await readFileTool.execute({ path: SMALL, n_lines: 20 }, ctx)).output;
  const t = await tail();
  const h = await head();
  if (!t.includes('request 1000199 ') || !h.includes('request 19 ')) throw new Error('read-tail bench: unexpected read_file output');
  const times = await paired(ROUNDS, 10, tail, head);
  return {
    read_tail_vs_head_ratio: ratio(times.a, times.b, { baseline: 'read_file of the first 20 lines of a 1 MB file, same run' }),
    read_tail_1gb_ms: figure(times.a, { unit: 'ms', baseline: 'read_file line_offset -20 of a 1 GB file' }),
    read_head_1mb_ms: figure(times.b, { unit: 'ms' }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await readTailBench());
}
