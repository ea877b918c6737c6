/**
 * Reads a PDF's text with pdfjs-dist (the legacy build, which runs in Node without a DOM). Text items are grouped
 * into rows by their baseline and ordered left to right; a wide gap between items becomes a tab, so a table's cells
 * stay on their row. Encrypted and broken files come back as errors that say what they are.
 */
import { DeskhandError } from '../../../shared/errors';
import { PDF_LIMITS, PdfPasswordError, type PdfReader, type PdfText } from './index';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | null = null;
const load = (): Promise<PdfJs> => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

interface Item {
  str: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

async function open(bytes: Uint8Array, password?: string) {
  if (bytes.length > PDF_LIMITS.maxBytes) throw new DeskhandError('usage', `The PDF is ${bytes.length} bytes; the limit is ${PDF_LIMITS.maxBytes}.`);
  const lib = await load();
  // pdfjs takes ownership of (and detaches) the buffer it is given: hand it a copy.
  const task = lib.getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, ...(password !== undefined ? { password } : {}) });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const name = (err as { name?: string }).name ?? '';
    if (name === 'PasswordException') {
      // pdfjs: code 1 = a password is needed, 2 = the one given is wrong. Neither message carries the password.
      if (password !== undefined && (err as { code?: number }).code === 2) throw new PdfPasswordError('wrong');
      throw new PdfPasswordError('needed');
    }
    if (name === 'InvalidPDFException' || name === 'FormatError' || name === 'UnknownErrorException' || name === 'MissingPDFException') {
      throw new DeskhandError('usage', `The file is not a readable PDF (${(err as Error).message}); it may be truncated or damaged.`);
    }
    throw new DeskhandError('usage', `The PDF could not be opened: ${(err as Error).message}`);
  }
}

/** One page's text: rows by baseline (top to bottom), items left to right, tabs at wide gaps. */
export function rowsOf(items: Item[]): string {
  const sorted = items.filter((i) => i.str.trim() !== '').sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Item[][] = [];
  for (const it of sorted) {
    const row = rows.at(-1);
    const tol = Math.max(2, (row?.[0]?.h ?? it.h) * 0.4);
    if (row && Math.abs(row[0]!.y - it.y) <= tol) row.push(it);
    else rows.push([it]);
  }
  return rows
    .map((row) => {
      row.sort((a, b) => a.x - b.x);
      let line = '';
      let end: number | null = null;
      for (const it of row) {
        if (end !== null) {
          const gap = it.x - end;
          line += gap > Math.max(it.h, 4) * 1.2 ? '\t' : gap > it.h * 0.15 && !line.endsWith(' ') && !it.str.startsWith(' ') ? ' ' : '';
        }
        line += it.str;
        end = it.x + it.w;
      }
      return line.trimEnd();
    })
    .join('\n');
}

export class PdfJsReader implements PdfReader {
  async pageCount(bytes: Uint8Array, opts: { password?: string } = {}): Promise<number> {
    const doc = await open(bytes, opts.password);
    try {
      return doc.numPages;
    } finally {
      await doc.destroy();
    }
  }

  async read(bytes: Uint8Array, opts: { pages?: number[]; maxChars?: number; signal?: AbortSignal; password?: string } = {}): Promise<PdfText> {
    const doc = await open(bytes, opts.password);
    const maxChars = opts.maxChars ?? PDF_LIMITS.maxChars;
    try {
      const wanted = opts.pages ?? Array.from({ length: Math.min(doc.numPages, PDF_LIMITS.maxPages) }, (_, i) => i + 1);
      const pages: PdfText['pages'] = [];
      let chars = 0;
      let truncated = false;
      for (const n of wanted) {
        if (opts.signal?.aborted) throw new DeskhandError('usage', 'Reading the PDF was stopped.');
        let text: string;
        try {
          const page = await doc.getPage(n);
          const content = await page.getTextContent();
          const items: Item[] = [];
          for (const raw of content.items) {
            if (!('str' in raw)) continue;
            items.push({ str: raw.str, x: raw.transform[4] as number, y: raw.transform[5] as number, w: raw.width, h: Math.abs((raw.transform[3] as number) || raw.height || 10) });
          }
          text = rowsOf(items);
          page.cleanup();
        } catch (err) {
          if (err instanceof DeskhandError) throw err;
          text = `[page ${n} could not be read: ${(err as Error).message}]`;
        }
        if (chars + text.length > maxChars) {
          pages.push({ page: n, text: text.slice(0, Math.max(0, maxChars - chars)) });
          truncated = true;
          break;
        }
        chars += text.length;
        pages.push({ page: n, text });
      }
      let info: PdfText['info'] = { title: null, author: null };
      try {
        const meta = (await doc.getMetadata()).info as { Title?: unknown; Author?: unknown };
        info = { title: typeof meta.Title === 'string' && meta.Title ? meta.Title : null, author: typeof meta.Author === 'string' && meta.Author ? meta.Author : null };
      } catch {
        // metadata is optional
      }
      return { pageCount: doc.numPages, pages, truncated, info };
    } finally {
      await doc.destroy();
    }
  }
}
