/**
 * A command's full output on disk (stdout and stderr interleaved as they arrive), for paging with `task_output`.
 * Writes never block the command: when the disk falls behind, chunks are skipped and the gap is marked in the file,
 * and past the cap nothing more is written (the count goes on), so a runaway command cannot fill the disk.
 */
import { closeSync, createWriteStream, mkdirSync, openSync, readSync, statSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { firstCharStart, utf8Boundary } from './output-buffer';

/** Per task. Large enough for any build log; small enough that `cat /dev/urandom` cannot fill a disk. */
export const LOG_CAP_BYTES = 64 * 1024 * 1024;
/** Queued but unwritten bytes above which chunks are skipped instead of buffered in memory. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * The runtime's redactor (runtime/context/redaction.ts), seen structurally: a log given one keeps secrets a command prints off
 * the disk, redacted whole even when split across chunks.
 */
export interface OutputRedactor {
  redact(text: string): string;
  stream(emit: (key: string, text: string) => void): { push(key: string, text: string): void; flush(): void };
}

export class TaskLog {
  /** Opened at the first byte to keep: a command that prints nothing costs no file (readLogPage reads it as empty). */
  private file: WriteStream | null = null;
  private readonly redacting: { push(key: string, text: string): void; flush(): void } | null = null;
  private readonly decoder = new StringDecoder('utf8');
  /** Bytes handed to the file (written or queued). */
  written = 0;
  /** Bytes the command produced. */
  seen = 0;
  skipped = 0;
  private capped = false;
  private closed: Promise<void> | null = null;

  constructor(
    readonly path: string,
    private readonly cap: number = LOG_CAP_BYTES,
    redactor?: OutputRedactor | null,
  ) {
    if (redactor) this.redacting = redactor.stream((_key, text) => this.keep(Buffer.from(text)));
  }

  private get stream(): WriteStream {
    if (!this.file) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.file = createWriteStream(this.path, { flags: 'a', mode: 0o600 });
      this.file.on('error', () => undefined);
    }
    return this.file;
  }

  write(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.seen += buf.length;
    if (this.closed) return;
    if (this.redacting) this.redacting.push('output', this.decoder.write(buf));
    else this.keep(buf);
  }

  private keep(buf: Buffer): void {
    if (this.closed || this.capped) return;
    if (this.written + buf.length > this.cap) {
      const room = Math.max(0, this.cap - this.written);
      if (room > 0) this.put(buf.subarray(0, room));
      this.capped = true;
      this.put(Buffer.from(`\n[… output beyond ${this.cap} bytes was not kept …]\n`));
      return;
    }
    if (this.stream.writableLength > MAX_QUEUED_BYTES) {
      this.skipped += buf.length;
      return;
    }
    if (this.skipped > 0) {
      this.put(Buffer.from(`\n[… ${this.skipped} bytes skipped: the output came faster than the disk could take it …]\n`));
      this.skipped = 0;
    }
    this.put(buf);
  }

  private put(buf: Buffer): void {
    this.written += buf.length;
    this.stream.write(buf);
  }

  /** Flushes and closes; resolves when the bytes are on disk (or the file could not be written). */
  close(): Promise<void> {
    if (!this.closed) {
      if (this.redacting) {
        this.redacting.push('output', this.decoder.end());
        this.redacting.flush();
      }
      this.closed = new Promise((resolve) => {
        if (this.skipped > 0) this.put(Buffer.from(`\n[… ${this.skipped} bytes skipped: the output came faster than the disk could take it …]\n`));
        if (!this.file) return resolve();
        this.stream.end(() => resolve());
        this.stream.once('error', () => resolve());
      });
    }
    return this.closed;
  }
}

export interface LogPage {
  text: string;
  /** Byte offset of the first byte returned. */
  offset: number;
  /** Byte offset just after the last byte returned (pass it as the next offset). */
  end: number;
  /** Bytes in the file now. */
  total: number;
}

/**
 * Reads up to `limit` bytes of a log from `offset` (or, when `offset` is undefined, its last `limit` bytes), cut at
 * UTF-8 character boundaries. Non-blocking in spirit: it reads what is on disk now.
 */
export function readLogPage(path: string | null, offset: number | undefined, limit: number): LogPage {
  let total = 0;
  try {
    total = path ? statSync(path).size : 0;
  } catch {
    total = 0;
  }
  const start = offset === undefined ? Math.max(0, total - limit) : Math.min(Math.max(0, offset), total);
  const length = Math.min(limit, total - start);
  if (!path || length <= 0) return { text: '', offset: start, end: start, total };
  const buf = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  let read = 0;
  try {
    read = readSync(fd, buf, 0, length, start);
  } finally {
    closeSync(fd);
  }
  let slice = buf.subarray(0, read);
  const skip = start > 0 ? firstCharStart(slice) : 0;
  const keep = start + read < total ? utf8Boundary(slice) : slice.length;
  slice = slice.subarray(skip, Math.max(skip, keep));
  return { text: slice.toString('utf8'), offset: start + skip, end: start + skip + slice.length, total };
}
