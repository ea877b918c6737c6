/**
 * PDFs out and in: printing HTML through Chromium (playwright-core `page.pdf`, the browser found by the shared
 * Chromium discovery) and reading a PDF's text with pdfjs-dist. Tools import this interface; the implementations
 * (print.ts, read.ts) are constructed by the host.
 */

import { DeskhandError } from '../../../shared/errors';

export interface PageSetup {
  /** A paper size Chromium knows (A4, Letter, Legal, A3, A5, Tabloid) or `WIDTHxHEIGHT` with CSS units (`210mmx297mm`). */
  size?: string;
  /** CSS lengths: one for all sides or top/right/bottom/left. */
  margins?: { top?: string; right?: string; bottom?: string; left?: string } | string;
  landscape?: boolean;
}

export interface SnapshotSetup {
  /** The viewport in CSS pixels (default 1280 × 800; 100 to 4000 each). */
  width?: number;
  height?: number;
  /** The whole scrollable page (default) or only the viewport. */
  fullPage?: boolean;
}

export interface PdfPrinter {
  /** Prints a whole HTML document; nothing outside it is loaded (every network request is refused). */
  print(html: string, setup: PageSetup, signal?: AbortSignal): Promise<Buffer>;
  /** Renders a whole HTML document to a PNG in the same closed page (a static composition's image). */
  snapshot(html: string, setup?: SnapshotSetup, signal?: AbortSignal): Promise<Buffer>;
}

export interface PdfText {
  pageCount: number;
  /** The pages that were read (1-based), in order. */
  pages: { page: number; text: string }[];
  /** Text was cut at the character cap. */
  truncated: boolean;
  info: { title: string | null; author: string | null };
}

export interface PdfReader {
  /** `password` opens an encrypted PDF (its user or owner password); without it an encrypted PDF is a PdfPasswordError. */
  pageCount(bytes: Uint8Array, opts?: { password?: string }): Promise<number>;
  /** Text of the asked pages (all by default), one row per visual line; cells of a row are separated by tabs. */
  read(bytes: Uint8Array, opts?: { pages?: number[]; maxChars?: number; signal?: AbortSignal; password?: string }): Promise<PdfText>;
}

/** An encrypted PDF opened without its password (`needed`) or with a wrong one (`wrong`). Never carries the password. */
export class PdfPasswordError extends DeskhandError {
  constructor(readonly reason: 'needed' | 'wrong') {
    super(
      'usage',
      reason === 'wrong'
        ? 'The password given for this encrypted PDF is not right; nothing was read. Ask the person for the right one (ask_user_secret) and call again with it as password.'
        : 'The PDF is encrypted with a password. Ask the person for it with ask_user_secret (the value stays hidden from you) and call again with password: "[redacted:NAME]", the placeholder it returns.',
    );
    this.name = 'PdfPasswordError';
  }
}

export const PDF_LIMITS = {
  /** A PDF larger than this is not opened. */
  maxBytes: 100 * 1024 * 1024,
  /** Pages read in one call. */
  maxPages: 100,
  /** Characters returned in one call. */
  maxChars: 200_000,
} as const;

/** `1-3,7` → [1,2,3,7], checked against the page count; a clear message for anything else. */
export function parsePageRanges(spec: string, pageCount: number): number[] | string {
  const out = new Set<number>();
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\s*-\s*(\d+)?)?$/.exec(part);
    if (!m) return `"${part}" is not a page or range; use e.g. "3", "2-5" or "1-3,8".`;
    const from = Number(m[1]);
    const to = m[2] !== undefined ? Number(m[2]) : part.includes('-') ? pageCount : from;
    if (from < 1 || to < from) return `"${part}" is not a valid range (pages start at 1).`;
    if (from > pageCount) return `Page ${from} does not exist: the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'}.`;
    for (let p = from; p <= Math.min(to, pageCount); p++) out.add(p);
  }
  if (out.size === 0) return 'No pages given.';
  return [...out].sort((a, b) => a - b);
}

/** Whether bytes look like a PDF (the header may follow up to 1 KB of junk, as readers allow). */
export const looksLikePdf = (bytes: Uint8Array): boolean => Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');
