/** Bounded in-memory capture of a command's output: the first and last bytes are kept, the middle is counted. */

/** Keeps the first and last `cap / 2` bytes of a stream and counts the rest; never blocks the writer. */
export class HeadTailBuffer {
  private readonly half: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(cap: number) {
    this.half = Math.floor(cap / 2);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.half) {
      const take = Math.min(this.half - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes > this.half) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        // Copy so the kept slice does not pin the whole original chunk.
        this.tail[0] = Buffer.from(first.subarray(excess));
        this.tailBytes -= excess;
      }
    }
  }

  get omitted(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  toString(): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.omitted === 0) return Buffer.concat([head, tail]).toString('utf8');
    const headText = seamHead(head.subarray(0, utf8Boundary(head)).toString('utf8'));
    const tailText = seamTail(tail.subarray(firstCharStart(tail)).toString('utf8'));
    return `${headText}\n[… ${this.omitted} bytes omitted …]\n${tailText}`;
  }

  /** The last `max` bytes seen (or fewer), cut at a character boundary. */
  lastBytes(max: number): string {
    const all = this.omitted === 0 ? Buffer.concat([...this.head, ...this.tail]) : Buffer.concat(this.tail);
    const slice = all.length > max ? all.subarray(all.length - max) : all;
    return slice.subarray(all.length > max ? firstCharStart(slice) : 0).toString('utf8');
  }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
export function utf8Boundary(buf: Buffer): number {
  let i = buf.length;
  let back = 0;
  while (i > 0 && back < 4 && (buf[i - 1]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return buf.length;
  const lead = buf[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? i - 1 : buf.length;
}

/** Index of the first byte that starts a UTF-8 character. */
export function firstCharStart(buf: Buffer): number {
  let i = 0;
  while (i < buf.length && i < 4 && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}

/**
 * The seams of a cut: the part of a line cut in two is dropped (at a line end, else a space, else 1 KB), so a
 * credential at the cut is never shown in part (a part would no longer look like one to redaction).
 */
const SEAM_MIN = 4096;
function seamHead(t: string): string {
  if (t.length < SEAM_MIN || t.endsWith('\n')) return t;
  const nl = t.lastIndexOf('\n');
  if (nl >= 0 && t.length - nl <= 8192) return t.slice(0, nl + 1);
  const ws = Math.max(t.lastIndexOf(' '), t.lastIndexOf('\t'));
  if (ws >= 0 && t.length - ws <= 1024) return t.slice(0, ws + 1);
  return t.slice(0, t.length - 1024);
}
function seamTail(t: string): string {
  if (t.length < SEAM_MIN) return t;
  const nl = t.indexOf('\n');
  if (nl >= 0 && nl < 8192) return t.slice(nl + 1);
  const m = /[ \t]/.exec(t.slice(0, 1024));
  return m ? t.slice(m.index + 1) : t.slice(1024);
}
