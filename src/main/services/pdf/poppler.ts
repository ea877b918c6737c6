/**
 * Reads a PDF's text with poppler's `pdftotext -layout` where poppler is installed (several times faster than pdfjs
 * in this process, process start included), falling back to pdfjs (read.ts) when it is not, when a password is given
 * (a password is never put on a command line), and whenever poppler fails on a file (pdfjs then reports encrypted and
 * broken files as it does). Both programs run through the process launcher as host programs and get the PDF on stdin
 * (`fd://0`), so nothing is written to disk.
 *
 * Same output shape as pdfjs: one row per visual line, no indentation or empty rows, and the cells of a table row
 * separated by tabs — `-layout` lays columns out with runs of spaces, and a run of two or more spaces becomes a tab.
 * Page count, title and author come from `pdfinfo`. `DESKHAND_PDF_READER=pdfjs` forces the fallback.
 */
import { runHostProgram, launchHostProgram } from '../processes/launcher';
import { DeskhandError } from '../../../shared/errors';
import { PDF_LIMITS, type PdfReader, type PdfText } from './index';
import { PdfJsReader } from './read';

interface Info {
  pages: number;
  title: string | null;
  author: string | null;
}

/** Runs a poppler program with the PDF on stdin; its stdout, or null when it failed or is not installed. */
export type PopplerRun = (program: 'pdfinfo' | 'pdftotext', args: string[], input: Uint8Array, signal?: AbortSignal) => Promise<string | null>;

const MAX_OUTPUT = 64 * 1024 * 1024;

/** The launcher's host-program door, with the PDF's bytes written to stdin. */
export const launchPoppler: PopplerRun = (program, args, input, signal) =>
  new Promise((resolve) => {
    const launched = launchHostProgram({ program, args, inherit: ['PATH', 'LANG', 'LC_ALL'], stdio: ['pipe', 'pipe', 'ignore'], timeoutMs: 60_000, graceMs: 500, signal });
    const { child } = launched;
    const out: Buffer[] = [];
    let size = 0;
    let failed = false;
    child.once('error', () => {
      failed = true;
      if (child.pid === undefined) resolve(null);
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
    child.stdout?.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_OUTPUT) {
        failed = true;
        void launched.stop(0);
      } else out.push(c);
    });
    child.once('close', (code) => resolve(failed || code !== 0 || launched.stoppedBy ? null : Buffer.concat(out).toString('utf8')));
  });

/** One page of `pdftotext -layout` in the pdfjs reader's shape: rows trimmed, empty rows dropped, column gaps as tabs. */
export function layoutRows(page: string): string {
  return page
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/ {2,}/g, '\t'))
    .filter((line) => line !== '')
    .join('\n');
}

export class PopplerReader implements PdfReader {
  /** pdfinfo's answer per PDF's bytes (read_pdf asks for the page count, then the text, of the same buffer). */
  private readonly infos = new WeakMap<Uint8Array, Info>();
  private available: Promise<boolean> | null = null;

  constructor(
    private readonly fallback: PdfReader = new PdfJsReader(),
    private readonly run: PopplerRun = launchPoppler,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Whether poppler is used at all: installed, and not turned off with DESKHAND_PDF_READER=pdfjs. */
  private usable(): Promise<boolean> {
    if (this.env.DESKHAND_PDF_READER === 'pdfjs') return Promise.resolve(false);
    return (this.available ??= runHostProgram({ program: 'pdftotext', args: ['-v'], inherit: ['PATH'], timeoutMs: 10_000 }).then((r) => r.error === null && r.code === 0));
  }

  private async info(bytes: Uint8Array, signal?: AbortSignal): Promise<Info | null> {
    const known = this.infos.get(bytes);
    if (known) return known;
    const out = await this.run('pdfinfo', ['-enc', 'UTF-8', 'fd://0'], bytes, signal);
    if (out === null) return null;
    const field = (name: string): string | null => new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(out)?.[1]?.trim() || null;
    const pages = Number(field('Pages'));
    // An encrypted file goes to pdfjs, which says what it needs.
    if (!Number.isInteger(pages) || pages < 1 || field('Encrypted')?.startsWith('yes')) return null;
    const info = { pages, title: field('Title'), author: field('Author') };
    this.infos.set(bytes, info);
    return info;
  }

  async pageCount(bytes: Uint8Array, opts: { password?: string } = {}): Promise<number> {
    if (opts.password === undefined && bytes.length <= PDF_LIMITS.maxBytes && (await this.usable())) {
      const info = await this.info(bytes);
      if (info) return info.pages;
    }
    return this.fallback.pageCount(bytes, opts);
  }

  async read(bytes: Uint8Array, opts: { pages?: number[]; maxChars?: number; signal?: AbortSignal; password?: string } = {}): Promise<PdfText> {
    if (opts.password === undefined && bytes.length <= PDF_LIMITS.maxBytes && (await this.usable())) {
      const text = await this.readWithPoppler(bytes, opts);
      if (text) return text;
    }
    if (opts.signal?.aborted) throw new DeskhandError('usage', 'Reading the PDF was stopped.');
    return this.fallback.read(bytes, opts);
  }

  private async readWithPoppler(bytes: Uint8Array, opts: { pages?: number[]; maxChars?: number; signal?: AbortSignal }): Promise<PdfText | null> {
    const info = await this.info(bytes, opts.signal);
    if (!info) return null;
    const wanted = (opts.pages ?? Array.from({ length: Math.min(info.pages, PDF_LIMITS.maxPages) }, (_, i) => i + 1)).filter((n) => n >= 1 && n <= info.pages);
    if (wanted.length === 0) return { pageCount: info.pages, pages: [], truncated: false, info: { title: info.title, author: info.author } };
    const first = wanted[0]!;
    const lastPage = wanted.at(-1)!;
    const out = await this.run('pdftotext', ['-layout', '-enc', 'UTF-8', '-f', String(first), '-l', String(lastPage), 'fd://0', '-'], bytes, opts.signal);
    if (out === null) {
      if (opts.signal?.aborted) throw new DeskhandError('usage', 'Reading the PDF was stopped.');
      return null;
    }
    // pdftotext ends every page with a form feed.
    const texts = out.split('\f');
    const maxChars = opts.maxChars ?? PDF_LIMITS.maxChars;
    const pages: PdfText['pages'] = [];
    let chars = 0;
    let truncated = false;
    for (const n of wanted) {
      const text = layoutRows(texts[n - first] ?? '');
      if (chars + text.length > maxChars) {
        pages.push({ page: n, text: text.slice(0, Math.max(0, maxChars - chars)) });
        truncated = true;
        break;
      }
      chars += text.length;
      pages.push({ page: n, text });
    }
    return { pageCount: info.pages, pages, truncated, info: { title: info.title, author: info.author } };
  }
}
