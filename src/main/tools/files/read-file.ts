/**
 * read_file: numbered lines of a UTF-8 text file, at most 1000 lines / 100 KB per call. Never reads a big file whole:
 * positive offsets read forward in chunks and stop at the cap; negative offsets scan backwards from the end in chunks
 * to find where the last N lines start, so the tail of a 1 GB log costs about as much as the head of a small file.
 */
import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { openVerified } from '../../runtime/path-guard';
import { snapshotOf } from './atomic-write';
import { formatBytes, fsError, throwIfAborted } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

export const READ_MAX_LINES = 1000;
export const READ_MAX_BYTES = 100 * 1024;
/** Longer lines are cut (with a marker) so one minified line cannot eat the whole budget. */
export const READ_MAX_LINE_CHARS = 2000;
/** Files up to this size get exact line numbers for negative offsets (they are cheap to count). */
const EXACT_COUNT_LIMIT = 1024 * 1024;
const FIRST_CHUNK = 64 * 1024;
const LATER_CHUNK = 1024 * 1024;
const BACK_CHUNK_FIRST = 16 * 1024;
const BACK_CHUNK_MAX = 1024 * 1024;
const SNIFF_BYTES = 8192;

const MEDIA_EXTS = new Set([
  '.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.tif', '.tiff', '.ico', '.heic', '.heif', '.avif',
  '.mp4', '.mov', '.webm', '.mkv', '.avi', '.m4v', '.mpg', '.mpeg', '.wmv', '.flv',
]);

/** Bytes and read calls issued by read_file, for tests and benchmarks that check how little a tail read touches. */
export const readCounters = { bytesRead: 0, reads: 0 };
export function resetReadCounters(): void {
  readCounters.bytesRead = 0;
  readCounters.reads = 0;
}

type Handle = Awaited<ReturnType<typeof open>>;

async function pread(fh: Handle, buf: Buffer, length: number, position: number): Promise<number> {
  const { bytesRead } = await fh.read(buf, 0, length, position);
  readCounters.reads++;
  readCounters.bytesRead += bytesRead;
  return bytesRead;
}

interface ForwardResult {
  lines: { no: number; text: string }[];
  /** Set when more content follows the last line shown. */
  more: boolean;
  stoppedBy: 'count' | 'bytes' | null;
  cut: number[];
  /** Lines seen in total when the read reached the end of the file (absolute numbering only). */
  linesAtEof: number | null;
}

/**
 * Reads forward from byte `startPos`, skipping `skip` lines, then collecting up to `want` lines (capped by
 * READ_MAX_BYTES). `firstNo` is the number shown for the line at `startPos`.
 */
async function readForward(
  fh: Handle,
  size: number,
  startPos: number,
  firstNo: number,
  skip: number,
  want: number,
  signal: AbortSignal,
  redact?: (text: string) => string,
): Promise<ForwardResult> {
  const lines: ForwardResult['lines'] = [];
  const cut: number[] = [];
  let no = firstNo;
  let skipped = 0;
  let outBytes = 0;
  let cur: Buffer[] = [];
  let curLen = 0;
  let curOverflow = false;
  const maxLineBytes = READ_MAX_LINE_CHARS * 4 + 4;
  let pos = startPos;
  let buf = Buffer.allocUnsafe(Math.max(1, Math.min(FIRST_CHUNK, size - startPos)));

  const finishLine = (): 'ok' | 'bytes' => {
    let text = curLen === 0 ? '' : (cur.length === 1 ? (cur[0] as Buffer) : Buffer.concat(cur, curLen)).toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (no === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    // Redact the whole line before cutting it: a credential cut in half would no longer be recognised.
    if (redact && (curOverflow || text.length > READ_MAX_LINE_CHARS)) text = redact(text);
    if (curOverflow || text.length > READ_MAX_LINE_CHARS) {
      let end = READ_MAX_LINE_CHARS;
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end--;
      text = `${text.slice(0, end)} … [line cut at ${READ_MAX_LINE_CHARS} characters]`;
      cut.push(no);
    }
    const bytes = Buffer.byteLength(text) + 8;
    if (lines.length > 0 && outBytes + bytes > READ_MAX_BYTES) return 'bytes';
    outBytes += bytes;
    lines.push({ no, text });
    cur = [];
    curLen = 0;
    curOverflow = false;
    return 'ok';
  };

  // `partial`: bytes follow the last newline consumed (a line without its newline yet).
  let partial = false;
  for (;;) {
    throwIfAborted(signal);
    const n = pos < size ? await pread(fh, buf, buf.length, pos) : 0;
    if (n === 0) break;
    const view = buf.subarray(0, n);
    const chunkEnd = pos + n;
    let i = 0;
    while (i < n) {
      const nl = view.indexOf(10, i);
      if (skipped < skip) {
        if (nl === -1) {
          partial = true;
          break;
        }
        skipped++;
        no++;
        i = nl + 1;
        partial = false;
        continue;
      }
      const segEnd = nl === -1 ? n : nl;
      if (!curOverflow && segEnd > i) {
        const take = Math.min(segEnd - i, maxLineBytes - curLen);
        if (take > 0) {
          cur.push(Buffer.from(view.subarray(i, i + take)));
          curLen += take;
        }
        if (take < segEnd - i) curOverflow = true;
      }
      if (nl === -1) {
        partial = true;
        break;
      }
      partial = false;
      if (finishLine() === 'bytes') return { lines, more: true, stoppedBy: 'bytes', cut, linesAtEof: null };
      no++;
      i = nl + 1;
      if (lines.length >= want) {
        return { lines, more: i < n || chunkEnd < size, stoppedBy: 'count', cut, linesAtEof: null };
      }
    }
    pos = chunkEnd;
    if (buf.length < LATER_CHUNK && pos < size) buf = Buffer.allocUnsafe(LATER_CHUNK);
  }
  // End of file: a last line without a trailing newline still counts.
  if (partial) {
    if (skipped >= skip) {
      if (finishLine() === 'bytes') return { lines, more: true, stoppedBy: 'bytes', cut, linesAtEof: null };
    }
    no++;
  }
  return { lines, more: false, stoppedBy: null, cut, linesAtEof: no - 1 };
}

/**
 * Finds the byte offset where the last `k` lines begin by scanning backwards in chunks. Returns the offset and, when
 * the scan reached the start of the file (fewer than k+1 lines), the total line count.
 */
async function locateTail(fh: Handle, size: number, k: number, signal: AbortSignal): Promise<{ start: number; total: number | null }> {
  let buf = Buffer.allocUnsafe(Math.min(BACK_CHUNK_FIRST, size));
  let seen = 0;
  let pos = size;
  let first = true;
  while (pos > 0) {
    throwIfAborted(signal);
    if (!first && buf.length < BACK_CHUNK_MAX) buf = Buffer.allocUnsafe(Math.min(BACK_CHUNK_MAX, buf.length * 4));
    const len = Math.min(buf.length, pos);
    const from = pos - len;
    const n = await pread(fh, buf, len, from);
    let j = n - 1;
    // A trailing newline ends the last line; it does not start another one.
    if (first && n > 0 && buf[n - 1] === 10) j = n - 2;
    first = false;
    while (j >= 0) {
      const nl = buf.lastIndexOf(10, j);
      if (nl === -1) break;
      seen++;
      if (seen === k) return { start: from + nl + 1, total: null };
      j = nl - 1;
    }
    pos = from;
  }
  return { start: 0, total: size === 0 ? 0 : seen + 1 };
}

function isBinary(sniff: Buffer, n: number): boolean {
  return sniff.subarray(0, n).includes(0);
}

function redactOf(ctx: ToolContext): ((text: string) => string) | undefined {
  return (text) => ctx.redact(text);
}

function numbered(lines: { no: number; text: string }[]): string {
  return lines.map((l) => `${String(l.no).padStart(6)}\t${l.text}`).join('\n');
}

const params = z.object({
  path: z.string().describe('File to read: absolute, relative to the working directory, or starting with ~.'),
  line_offset: z
    .number()
    .int()
    .optional()
    .describe(
      'Line to start at (1 = first line, the default). Negative counts from the end: -20 starts at the 20th line from the end, i.e. reads the last 20 lines.',
    ),
  n_lines: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`How many lines to read at most (default and maximum ${READ_MAX_LINES}).`),
});

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    `Read a UTF-8 text file. Returns numbered lines like \`cat -n\` (number, tab, text). At most ${READ_MAX_LINES} lines or ` +
    `100 KB per call; when more follows, a notice gives the line_offset to continue from. Use line_offset/n_lines to read ` +
    'a range, and a negative line_offset to read the end of a file (-50 = last 50 lines; cheap even for huge logs). ' +
    `Lines longer than ${READ_MAX_LINE_CHARS} characters are cut. Binary files are not shown (images and videos: use ` +
    'read_media_file; PDFs: read_pdf). Reading a file is required before write_file or edit_file may change it. ' +
    'For folders use ls; to search contents use grep.',
  params,
  risk: 'read-only',
  disclosure: 'private',
  presentation: { title: 'Read a file', icon: 'file', summary: (args) => readSummary(args) },
  effects: (args) => ({ paths: { read: [args.path] } }),
  async execute(args, ctx: ToolContext) {
    const abs = resolveToolPath(args.path, ctx);
    const shown = displayPath(abs, ctx.state.cwd);
    let st: Stats;
    try {
      st = await stat(abs);
    } catch (err) {
      throw fsError(err, shown, 'file');
    }
    if (st.isDirectory()) throw new ToolError(`${shown} is a folder, not a file. Use ls to list what it contains.`);
    if (!st.isFile()) throw new ToolError(`${shown} is not a regular file (a device, socket or pipe), so read_file cannot read it.`);
    const ext = extname(abs).toLowerCase();
    if (MEDIA_EXTS.has(ext)) {
      throw new ToolError(`${shown} is an image or video file (${formatBytes(st.size)}). Use read_media_file to look at it.`);
    }

    let fh: Handle;
    try {
      // Open, then verify the opened file is the one the approval engine checked (no link swapped in between).
      fh = (await openVerified(abs, ctx.checkedPaths?.get(abs)?.resolved)).fh;
    } catch (err) {
      throw fsError(err, shown, 'file');
    }
    try {
      const fst = await fh.stat();
      const size = fst.size;
      const sniff = Buffer.allocUnsafe(Math.min(SNIFF_BYTES, Math.max(size, 1)));
      const sniffed = size > 0 ? await pread(fh, sniff, sniff.length, 0) : 0;
      // Recorded for binary files too: the conversation has seen what is there, so write_file may replace it whole.
      ctx.state.recordFileSnapshot(snapshotOf(abs, fst));
      if (isBinary(sniff, sniffed)) {
        const hint = ext === '.pdf' ? ' Use read_pdf for PDFs.' : ' It cannot be shown as text; use stat for its metadata.';
        throw new ToolError(`${shown} is a binary file (${formatBytes(size)}; it contains NUL bytes).${hint}`);
      }
      if (size === 0) return { output: `(${shown} is empty: 0 lines.)` };

      const offset = args.line_offset ?? 1;
      const requested = args.n_lines ?? READ_MAX_LINES;
      const notes: string[] = [];
      if (requested > READ_MAX_LINES) notes.push(`n_lines is capped at ${READ_MAX_LINES} per call.`);

      let result: ForwardResult;
      let fromEnd = false;
      if (offset >= 0) {
        const startLine = Math.max(1, offset);
        const want = Math.min(requested, READ_MAX_LINES);
        result = await readForward(fh, size, 0, 1, startLine - 1, want, ctx.signal, redactOf(ctx));
        if (result.lines.length === 0) {
          const total = result.linesAtEof ?? 0;
          return {
            output:
              `${shown} has ${total} line${total === 1 ? '' : 's'}; line_offset=${offset} is past the end. ` +
              `Use line_offset=-${Math.min(20, Math.max(total, 1))} to read the last lines.`,
          };
        }
      } else {
        const k = -offset;
        const want = Math.min(requested, k, READ_MAX_LINES);
        if (size <= EXACT_COUNT_LIMIT) {
          // Small file: count lines exactly (one read) so numbers match a forward read.
          const all = Buffer.allocUnsafe(size);
          const n = await pread(fh, all, size, 0);
          let total = 0;
          let i = -1;
          while ((i = all.indexOf(10, i + 1)) !== -1 && i < n) total++;
          if (n > 0 && all[n - 1] !== 10) total++;
          const startLine = Math.max(1, total - k + 1);
          if (total - k + 1 < 1) notes.push(`The file has only ${total} lines; showing from line 1.`);
          result = await readForward(fh, size, 0, 1, startLine - 1, Math.min(want, total - startLine + 1), ctx.signal, redactOf(ctx));
        } else {
          const tail = await locateTail(fh, size, k, ctx.signal);
          if (tail.total !== null) {
            // Reached the start: the file has fewer than k lines, so absolute numbers are known.
            notes.push(`The file has only ${tail.total} lines; showing from line 1.`);
            result = await readForward(fh, size, 0, 1, 0, Math.min(want, tail.total), ctx.signal, redactOf(ctx));
          } else {
            fromEnd = true;
            result = await readForward(fh, size, tail.start, -k, 0, want, ctx.signal, redactOf(ctx));
          }
        }
      }

      const shownLines = result.lines;
      const first = shownLines[0]?.no ?? 0;
      const lastNo = shownLines[shownLines.length - 1]?.no ?? 0;
      const header = fromEnd
        ? `[${shown} is ${formatBytes(size)}; lines are numbered from the end (-1 = last line) because counting all lines would mean reading the whole file.]\n`
        : '';
      if (result.cut.length > 0) {
        const list = result.cut.slice(0, 10).join(', ') + (result.cut.length > 10 ? ', …' : '');
        notes.push(`Lines longer than ${READ_MAX_LINE_CHARS} characters were cut (line ${list}); use grep to search inside them.`);
      }
      const nextOffset = lastNo + 1;
      const more = fromEnd ? lastNo < -1 || result.more : result.more;
      if (more && nextOffset !== 0) {
        const why =
          result.stoppedBy === 'bytes'
            ? 'the 100 KB per-call limit was reached'
            : shownLines.length >= READ_MAX_LINES
              ? `the ${READ_MAX_LINES}-line per-call limit was reached`
              : 'more lines follow';
        notes.push(`Showing lines ${first} to ${lastNo}; ${why}. Continue with line_offset=${nextOffset}.`);
      }
      const footer = notes.length ? `\n[${notes.join(' ')}]` : '';
      return { output: header + numbered(shownLines) + footer };
    } finally {
      await fh.close().catch(() => undefined);
    }
  },
});

/** The card line of a read: the path, and the lines asked for (`src/app.ts (1–200)`, `log.txt (last 50)`). */
function readSummary(args: { path: string; line_offset?: number | undefined; n_lines?: number | undefined }): string {
  const { path, line_offset: from, n_lines: n } = args;
  if (from === undefined && n === undefined) return path;
  if (from !== undefined && from < 0) return `${path} (last ${-from})`;
  const start = from ?? 1;
  return `${path} (${start}–${n !== undefined ? start + n - 1 : 'end'})`;
}
