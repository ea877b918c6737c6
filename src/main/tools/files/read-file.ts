/**
 * read_file: numbered lines of a UTF-8 text file, at most 1000 lines / 100 KB per call, and the file's edit snapshot
 * (Spec I). Never holds a big file whole: positive offsets read forward in chunks and stop at the cap; negative
 * offsets scan backwards from the end to find where the last N lines start, then count the newlines before that point
 * in blocks, so reads number lines from the top — except a tail more than COUNT_FROM_TOP_LIMIT into a file, which is
 * numbered from the end (-1 = last line) so that it never reads the bytes before it. `since_byte` follows a file that is still being written.
 */
import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { openVerified } from '../../runtime/decision/path-guard';
import { sniffMedia } from '../../services/media/index';
import { contentHash, editorSnapshot, editorText, SNAPSHOT_HASH_LIMIT, snapshotOf, snapshotToken } from './atomic-write';
import { formatBytes, fsError, throwIfAborted } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

export const READ_MAX_LINES = 1000;
export const READ_MAX_BYTES = 100 * 1024;
/** Longer lines are cut (with a marker) so one minified line cannot eat the whole budget. */
export const READ_MAX_LINE_CHARS = 2000;
/** Blocks newlines are counted in when a negative offset needs the number of the line it starts at. */
const COUNT_BLOCK = 8 * 1024 * 1024;
/**
 * Up to this many bytes before a tail, its lines are numbered from the top (counting costs a few milliseconds); past
 * it they are numbered from the end (-1 = the last line), so a tail read of a huge log stays as cheap as a head read
 * instead of reading every byte before it.
 */
export const COUNT_FROM_TOP_LIMIT = 32 * 1024 * 1024;
const FIRST_CHUNK = 64 * 1024;
const LATER_CHUNK = 1024 * 1024;
const BACK_CHUNK_FIRST = 16 * 1024;
const BACK_CHUNK_MAX = 1024 * 1024;
const SNIFF_BYTES = 8192;

const VIDEO_EXTS = new Set(['.mp4', '.mov', '.webm', '.mkv', '.avi', '.m4v', '.mpg', '.mpeg', '.wmv', '.flv']);
const AUDIO_EXTS = new Set(['.mp3', '.wav', '.ogg', '.oga', '.opus', '.flac', '.m4a', '.aac']);
const MEDIA_EXTS = new Set([
  '.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.tif', '.tiff', '.ico', '.heic', '.heif', '.avif',
  ...VIDEO_EXTS,
  ...AUDIO_EXTS,
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

/** Newlines in bytes [0, end), counted in blocks (memory stays at one block whatever the file size). */
async function countNewlines(fh: Handle, end: number, signal: AbortSignal): Promise<number> {
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(COUNT_BLOCK, end)));
  let count = 0;
  for (let pos = 0; pos < end; ) {
    throwIfAborted(signal);
    const n = await pread(fh, buf, Math.min(buf.length, end - pos), pos);
    if (n === 0) break;
    for (let i = buf.indexOf(10); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) count++;
    pos += n;
  }
  return count;
}

/** The whole content of a file small enough to hash, read through the handle that was verified. */
async function wholeFile(fh: Handle, size: number): Promise<Buffer | undefined> {
  if (size > SNAPSHOT_HASH_LIMIT) return undefined;
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = await pread(fh, buf, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return got === size ? buf : undefined;
}

/**
 * The file's text as the conversation's editor holds it, when an editor serves its files and its buffer differs from
 * the disk (null otherwise: the disk is read). An editor that fails to answer is not trusted to have the file.
 */
async function editorBuffer(ctx: ToolContext, abs: string, fh: Handle, diskSize: number): Promise<Buffer | null> {
  const text = await editorText(ctx, abs);
  if (text === null) return null;
  const data = Buffer.from(text, 'utf8');
  if (data.length === diskSize) {
    const disk = await wholeFile(fh, diskSize);
    if (disk?.equals(data)) return null;
  }
  return data;
}

/** An in-memory stand-in for a file handle over the editor's buffer: the readers above work on it unchanged. */
function bufferHandle(data: Buffer): Handle {
  const read = async (buf: Buffer, offset: number, length: number, position: number) => {
    const n = Math.max(0, Math.min(length, data.length - position));
    data.copy(buf, offset, position, position + n);
    return { bytesRead: n, buffer: buf };
  };
  return { read, close: async () => undefined } as unknown as Handle;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * What a file is by a signature in its first bytes that no text file starts with (Spec II: a file is told by its
 * signature, not only by a NUL byte: a PNG without an extension, or cut short before its first NUL, is an image):
 * PNG, JPEG, GIF87a/89a, WebP, PDF, WAV, AVI and MP3 (BMP, Ogg, FLAC and MP4 headers carry NULs).
 */
function signatureOf(head: Buffer): { kind: 'image' | 'audio' | 'video' | 'pdf'; mime: string } | null {
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  if (head.subarray(0, 8).equals(PNG_SIGNATURE)) return { kind: 'image', mime: 'image/png' };
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { kind: 'image', mime: 'image/jpeg' };
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return { kind: 'image', mime: 'image/gif' };
  if (ascii(0, 5) === '%PDF-') return { kind: 'pdf', mime: 'application/pdf' };
  // RIFF containers (WebP, WAV, AVI) may have no zero byte up front; so may an MP3 (frame sync 0xFF, never in UTF-8
  // text, or an ID3 tag whose version byte is binary). Ogg, FLAC and MP4 headers carry NULs the NUL check sees.
  const riff = ascii(0, 4) === 'RIFF';
  const mp3 = head[0] === 0xff || (ascii(0, 3) === 'ID3' && (head[3] ?? 0x20) < 0x10);
  const media = riff || mp3 ? sniffMedia(head) : null;
  return media ? { kind: media.kind, mime: media.mime } : null;
}

/** A binary file: named by what its first bytes say it is (media files point at read_media_file, PDFs at read_pdf). */
function binaryMessage(shown: string, path: string, head: Buffer, size: number): string {
  const signed = signatureOf(head);
  if (signed?.kind === 'pdf') {
    return `${shown} is a PDF (${formatBytes(size)}); read_file reads text only. Use read_pdf with path "${path}" for its text (pdf_page_count for its length).`;
  }
  const media = signed ?? sniffMedia(head);
  if (media) {
    const kind = media.kind === 'image' ? 'an image' : media.kind === 'video' ? 'a video' : 'an audio file';
    return `${shown} is ${kind} (${media.mime}, ${formatBytes(size)}); read_file reads text only. Use read_media_file with path "${path}".`;
  }
  return `${shown} is a binary file (${formatBytes(size)}; it contains NUL bytes). It cannot be shown as text; use stat for its metadata.`;
}

/** Not text: a NUL byte in the first bytes, or a media or PDF signature at the start. */
function isBinary(sniff: Buffer, n: number): boolean {
  const head = sniff.subarray(0, n);
  return head.includes(0) || signatureOf(head) !== null;
}

function redactOf(ctx: ToolContext): ((text: string) => string) | undefined {
  return (text) => ctx.redact(text);
}

function numbered(lines: { no: number; text: string }[]): string {
  return lines.map((l) => `${String(l.no).padStart(6)}\t${l.text}`).join('\n');
}

/**
 * A since_byte read: the bytes appended after `since` (at most READ_MAX_BYTES, ending at a line break when the cap
 * cuts), with the offset and inode for the next read. A file shorter than `since` was truncated, and one with another
 * inode than the caller's was rotated: both restart at byte 0.
 */
async function readSince(fh: Handle, st: Stats, since: number, inode: number | undefined, signal: AbortSignal): Promise<string> {
  throwIfAborted(signal);
  const notes: string[] = [];
  let from = since;
  if (inode !== undefined && inode !== st.ino) {
    notes.push(`The file was replaced (rotated: inode ${inode} is now ${st.ino}); reading from byte 0.`);
    from = 0;
  } else if (since > st.size) {
    notes.push(`The file was truncated (it is ${st.size} bytes, less than since_byte=${since}); reading from byte 0.`);
    from = 0;
  }
  const length = Math.min(READ_MAX_BYTES, st.size - from);
  const buf = Buffer.allocUnsafe(Math.max(length, 1));
  let got = 0;
  while (got < length) {
    const n = await pread(fh, buf, length - got, from + got);
    if (n === 0) break;
    got += n;
  }
  let end = got;
  if (from + got < st.size) {
    // Cut by the cap: end at the last line break, or at a character boundary when there is none.
    const nl = buf.lastIndexOf(10, got - 1);
    if (nl !== -1) end = nl + 1;
    else while (end > 0 && ((buf[end] as number) & 0xc0) === 0x80) end--;
    notes.push(`More follows (the file is ${st.size} bytes); continue with since_byte=${from + end}.`);
  }
  const text = buf.subarray(0, end).toString('utf8');
  const next = from + end;
  const status = `[bytes ${from}–${next} of ${st.size}; next_byte: ${next}; inode: ${st.ino}${notes.length ? `. ${notes.join(' ')}` : ''}]`;
  if (end === 0) return `(no new content after byte ${from})\n${status}`;
  return `${text}${text.endsWith('\n') ? '' : '\n'}${status}`;
}

const params = () => z.object({
  path: z.string().describe('The file.'),
  line_offset: z
    .number()
    .int()
    .optional()
    .describe(
      'First line (default 1); negative counts from the end (-50 = the last 50 lines).',
    ),
  n_lines: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`At most this many lines (default and maximum ${READ_MAX_LINES}).`),
  since_byte: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Follow a growing file (a log): the text after this byte (the previous next_byte), with next_byte and inode for the next read. Not with line_offset/n_lines.',
    ),
  inode: z.number().int().min(0).optional().describe('With since_byte: the inode the previous read reported (a rotated file is noticed).'),
});

export const readFileTool = defineTool({
  name: 'read_file',
  claudeCodeName: 'Read',
  description:
    `Read a text file as numbered lines (number, tab, text), at most ${READ_MAX_LINES} lines or 100 KB; a notice gives ` +
    'the line_offset to continue from. Ends with the edit snapshot to pass to edit_file. Required before write_file ' +
    'or edit_file change a file.',
  details:
    `Lines longer than ${READ_MAX_LINE_CHARS} characters are cut. Binary files (images, videos, PDFs) are not shown: ` +
    'read_media_file and read_pdf read those. A negative line_offset is cheap even on huge logs. since_byte reads ' +
    'up to 100 KB after that byte; a truncated or rotated file restarts at byte 0 and says so. For folders use ls.',
  params,
  risk: 'read-only',
  disclosure: 'private',
  facts: { reaches: [] },
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
    if (ext === '.pdf') {
      throw new ToolError(`${shown} is a PDF (${formatBytes(st.size)}); read_file reads text only. Use read_pdf with path "${args.path}" for its text (pdf_page_count for its length).`);
    }
    if (MEDIA_EXTS.has(ext)) {
      const kind = AUDIO_EXTS.has(ext) ? 'an audio file' : VIDEO_EXTS.has(ext) ? 'a video' : 'an image';
      throw new ToolError(`${shown} is ${kind} (${formatBytes(st.size)}); read_file reads text only. Use read_media_file with path "${args.path}" to ${kind === 'an audio file' ? 'get its length and codec (analyze_media transcribes speech)' : kind === 'a video' ? 'see sampled frames and its length' : 'see it'}.`);
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
      // The editor's buffer (unsaved changes included) stands in for the disk's bytes when it differs; the path was
      // resolved, contained and verified above exactly as for the disk.
      const buffer = args.since_byte === undefined ? await editorBuffer(ctx, abs, fh, fst.size) : null;
      const src = buffer ? bufferHandle(buffer) : fh;
      const size = buffer ? buffer.length : fst.size;
      const sniff = Buffer.allocUnsafe(Math.min(SNIFF_BYTES, Math.max(size, 1)));
      const sniffed = size > 0 ? await pread(src, sniff, sniff.length, 0) : 0;
      if (args.since_byte !== undefined && (args.since_byte > 0 || (args.line_offset === undefined && args.n_lines === undefined))) {
        if (args.line_offset !== undefined || args.n_lines !== undefined) {
          throw new ToolError('A nonzero since_byte cannot be combined with line_offset or n_lines: read by bytes (since_byte) or by lines, not both.', 'invalid_args');
        }
        if (isBinary(sniff, sniffed)) throw new ToolError(binaryMessage(shown, args.path, sniff.subarray(0, sniffed), size));
        return { output: await readSince(fh, fst, args.since_byte, args.inode, ctx.signal) };
      }
      // Recorded for binary files too: the conversation has seen what is there, so write_file may replace it whole.
      const snap = buffer ? editorSnapshot(abs, buffer) : snapshotOf(abs, fst);
      const whole = buffer ? undefined : await wholeFile(src, size);
      if (whole) snap.sha256 = contentHash(whole);
      ctx.state.recordFileSnapshot(snap);
      const snapshotLine = `${buffer ? `\n[Read from the unsaved buffer in ${ctx.editor!.name}: it differs from the file on disk.]` : ''}\n[snapshot: ${snapshotToken(snap)}]`;
      if (isBinary(sniff, sniffed)) throw new ToolError(binaryMessage(shown, args.path, sniff.subarray(0, sniffed), size));
      if (size === 0) return { output: `(${shown} is empty: 0 lines.)${snapshotLine}` };

      const offset = args.line_offset ?? 1;
      const requested = args.n_lines ?? READ_MAX_LINES;
      const notes: string[] = [];
      if (requested > READ_MAX_LINES) notes.push(`n_lines is capped at ${READ_MAX_LINES} per call.`);

      let result: ForwardResult;
      if (offset >= 0) {
        const startLine = Math.max(1, offset);
        const want = Math.min(requested, READ_MAX_LINES);
        result = await readForward(src, size, 0, 1, startLine - 1, want, ctx.signal, redactOf(ctx));
        if (result.lines.length === 0) {
          const total = result.linesAtEof ?? 0;
          return {
            output:
              `${shown} has ${total} line${total === 1 ? '' : 's'}; line_offset=${offset} is past the end. ` +
              `Use line_offset=-${Math.min(20, Math.max(total, 1))} to read the last lines.${snapshotLine}`,
          };
        }
      } else {
        const k = -offset;
        const want = Math.min(requested, k, READ_MAX_LINES);
        const tail = await locateTail(src, size, k, ctx.signal);
        if (tail.total !== null) {
          // Reached the start: the file has at most k lines.
          if (tail.total < k) notes.push(`The file has only ${tail.total} lines; showing from line 1.`);
          result = await readForward(src, size, 0, 1, 0, Math.min(want, tail.total), ctx.signal, redactOf(ctx));
        } else if (tail.start <= COUNT_FROM_TOP_LIMIT) {
          // Line numbers from the top, as a forward read shows them: count the newlines before the tail.
          const before = await countNewlines(src, tail.start, ctx.signal);
          result = await readForward(src, size, tail.start, before + 1, 0, want, ctx.signal, redactOf(ctx));
        } else {
          // A huge file: numbered from the end (what line_offset takes), without reading what comes before.
          result = await readForward(src, size, tail.start, -k, 0, want, ctx.signal, redactOf(ctx));
          notes.push(
            `Lines are numbered from the end (-1 = the last line; line_offset takes these numbers): ${shown} is ${formatBytes(size)}, and numbering from the top would mean reading all of it.`,
          );
        }
      }

      const shownLines = result.lines;
      const first = shownLines[0]?.no ?? 0;
      const lastNo = shownLines[shownLines.length - 1]?.no ?? 0;
      if (result.cut.length > 0) {
        const list = result.cut.slice(0, 10).join(', ') + (result.cut.length > 10 ? ', …' : '');
        notes.push(`Lines longer than ${READ_MAX_LINE_CHARS} characters were cut (line ${list}); use grep to search inside them.`);
      }
      const nextOffset = lastNo + 1;
      if (result.more) {
        const why =
          result.stoppedBy === 'bytes'
            ? 'the 100 KB per-call limit was reached'
            : shownLines.length >= READ_MAX_LINES
              ? `the ${READ_MAX_LINES}-line per-call limit was reached`
              : 'more lines follow';
        notes.push(`Showing lines ${first} to ${lastNo}; ${why}. Continue with line_offset=${nextOffset}.`);
      }
      const footer = notes.length ? `\n[${notes.join(' ')}]` : '';
      return { output: numbered(shownLines) + footer + snapshotLine };
    } finally {
      await fh.close().catch(() => undefined);
    }
  },
});

/** The card line of a read: the path, and the lines asked for (`src/app.ts (1–200)`, `log.txt (last 50)`). */
function readSummary(args: { path: string; line_offset?: number | undefined; n_lines?: number | undefined; since_byte?: number | undefined }): string {
  const { path, line_offset: from, n_lines: n } = args;
  // The summary is drawn from the arguments as sent, before they are checked: a range that is not whole numbers
  // ("abc", 1.5, null) is named as such, never printed as NaN.
  const whole = (x: unknown) => x === undefined || Number.isSafeInteger(x);
  if (!whole(from) || !whole(n) || !whole(args.since_byte)) return `${path} (a range that is not whole numbers)`;
  if (args.since_byte !== undefined && from === undefined && n === undefined) return `${path} (from byte ${args.since_byte})`;
  if (from === undefined && n === undefined) return path;
  if (from !== undefined && from < 0) return `${path} (last ${-from})`;
  const start = from ?? 1;
  return `${path} (${start}–${n !== undefined ? start + n - 1 : 'end'})`;
}
