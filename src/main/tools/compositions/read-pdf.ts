/**
 * read_pdf and pdf_page_count: a PDF's text (page markers, rows kept, tabs between a table's cells) from a file or a
 * URL, with caps on bytes, pages and characters. A URL goes through the pinned HTTP service and its text is untrusted;
 * a file outside the workspace is untrusted too. Encrypted and broken files are reported as what they are.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { openCheckedFile } from '../../runtime/decision/path-guard';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { DestinationRefused, type HttpService } from '../../services/http/index';
import { PDF_LIMITS, looksLikePdf, parsePageRanges, type PdfReader } from '../../services/pdf/index';

export interface PdfFetch {
  http: HttpService;
  urlGrants: () => readonly string[];
  /** The web family's URL effects (addresses judged by the url-guard inspector). */
  urlEffects(urls: readonly string[]): Promise<import('../../runtime/tool').Effects>;
  allowPrivate(ctx: ToolContext, url: string): ReadonlyMap<string, ReadonlySet<string> | null>;
  /** Each redirect hop of a call a URL grant cleared must be covered by a grant too (the web family's rule). */
  hopCheck(ctx: ToolContext, url: string): ((hop: string) => string | null) | undefined;
}

/** A password is only ever a secret placeholder: the value is put in just before the call runs (secret-args.ts). */
const PASSWORD_PLACEHOLDER = /^\[redacted:[A-Za-z][A-Za-z0-9_.-]{0,63}\]$/;

const source = {
  path: z.string().optional().describe('The PDF file (relative to the working directory, absolute, or ~).'),
  url: z.string().url().optional().describe('An http(s) URL of a PDF (downloaded through the same guards as web_fetch).'),
  password: z
    .string()
    .regex(PASSWORD_PLACEHOLDER, 'password must be a secret placeholder such as "[redacted:PDF_PASSWORD]": ask the person with ask_user_secret (or load a saved one with use_saved_secret) and pass the placeholder it returns, never the password itself')
    .optional()
    .describe('For an encrypted PDF: the "[redacted:NAME]" placeholder ask_user_secret or use_saved_secret returned (never the password itself). Every call with a password asks the person.'),
};

/** Both tools: what they read, and the one argument the runtime may put a secret's value into. */
async function pdfEffects(args: { path?: string | undefined; url?: string | undefined }, net: PdfFetch | null): Promise<import('../../runtime/tool').Effects> {
  const base = args.url ? { ...(net ? await net.urlEffects([args.url]) : {}), egress: true } : { paths: { read: [args.path] } };
  return { ...base, secretArgs: ['password'] };
}

async function load(args: { path?: string | undefined; url?: string | undefined }, ctx: ToolContext, net: PdfFetch | null): Promise<{ bytes: Buffer; untrusted: string | null; shown: string }> {
  if ((args.path === undefined) === (args.url === undefined)) throw new ToolError('Give exactly one of path or url.');
  if (args.path !== undefined) {
    const abs = resolvePath(args.path, ctx.state.cwd);
    const check = ctx.checkedPaths?.get(abs);
    const { fh, stat: st } = await openCheckedFile(abs, check?.resolved, args.path);
    try {
      if (st.size > PDF_LIMITS.maxBytes) throw new ToolError(`${args.path} is ${st.size} bytes; read_pdf opens PDFs up to ${PDF_LIMITS.maxBytes} bytes.`);
      const bytes = await readFile(fh);
      return { bytes, untrusted: check?.untrusted ? args.path : null, shown: args.path };
    } finally {
      await fh.close();
    }
  }
  if (!net) throw new ToolError('Reading PDFs from URLs is not available here; download it first and give path.');
  try {
    const hopCheck = net.hopCheck(ctx, args.url!);
    const res = await net.http.request({ method: 'GET', url: args.url!, headers: { accept: 'application/pdf' }, maxBytes: PDF_LIMITS.maxBytes, timeoutMs: 60_000, signal: ctx.signal, allowPrivate: net.allowPrivate(ctx, args.url!), ...(hopCheck ? { hopCheck } : {}) });
    if (res.stoppedRedirect) {
      throw new ToolError(`No PDF was read: ${args.url} redirects to ${res.stoppedRedirect.to}, which was not followed: ${res.stoppedRedirect.reason}. To read it, call read_pdf with that URL (a person will be asked when it needs approval).`);
    }
    if (res.status >= 400) throw new ToolError(`${args.url} answered ${res.status}; no PDF was read.`);
    if (res.cut) throw new ToolError(`${args.url} is larger than ${PDF_LIMITS.maxBytes} bytes (or took too long); read_pdf did not read it.`);
    return { bytes: res.body, untrusted: res.url, shown: res.url };
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (DestinationRefused.isInstance(err)) throw new ToolError(`Not fetched: ${err.message}`);
    throw new ToolError(`Could not fetch ${args.url}: ${(err as Error).message}`);
  }
}

function notPdf(bytes: Buffer, shown: string): void {
  if (!looksLikePdf(bytes)) throw new ToolError(`${shown} is not a PDF (it has no %PDF- header). Use read_file for text files.`);
}

const toolError = (err: unknown): never => {
  if (DeskhandError.isInstance(err)) throw new ToolError(err.message);
  throw err;
};

export const createReadPdf = (reader: PdfReader, net: PdfFetch | null) =>
  defineTool({
    name: 'read_pdf',
    description:
      `Read the text of a PDF (a file or an http(s) URL), page by page with "--- page N ---" markers; each visual line is a row ` +
      `and a table's cells are separated by tabs. pages: "3", "2-5" or "1-3,8" (default: the first ${PDF_LIMITS.maxPages} pages). ` +
      `At most ${PDF_LIMITS.maxChars} characters per call: read long PDFs in page ranges (pdf_page_count gives the length). ` +
      'Scanned pages without a text layer come back empty. An encrypted PDF needs password: the placeholder from ask_user_secret.',
    params: () => z.object({ ...source, pages: z.string().max(200).optional().describe('Page ranges, e.g. "1-5" or "2,4,7-9".') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { loadsWith: 'pdf', sendsOut: true, reaches: [] },
    effects: (args) => pdfEffects(args, net),
    presentation: { title: 'Read a PDF', icon: 'file', summary: (args) => `${args.path ?? args.url}${args.pages ? ` (pages ${args.pages})` : ''}` },
    async execute(args, ctx) {
      const { bytes, untrusted, shown } = await load(args, ctx, net);
      notPdf(bytes, shown);
      try {
        const password = args.password !== undefined ? { password: args.password } : {};
        const count = await reader.pageCount(bytes, password);
        let pages: number[] | undefined;
        if (args.pages) {
          const parsed = parsePageRanges(args.pages, count);
          if (typeof parsed === 'string') throw new ToolError(parsed);
          if (parsed.length > PDF_LIMITS.maxPages) throw new ToolError(`That is ${parsed.length} pages; read at most ${PDF_LIMITS.maxPages} per call.`);
          pages = parsed;
        }
        const text = await reader.read(bytes, { ...(pages ? { pages } : {}), signal: ctx.signal, ...password });
        const read = text.pages.map((p) => p.page);
        const head = [`${shown}: ${text.pageCount} page${text.pageCount === 1 ? '' : 's'}${text.info.title ? `, "${text.info.title}"` : ''}; showing ${read.length ? `${read[0]}–${read.at(-1)}` : 'none'}.`];
        const body = text.pages.map((p) => `--- page ${p.page} ---\n${p.text || '(no text on this page: it may be a scan or an image)'}`).join('\n\n');
        const tail: string[] = [];
        if (text.truncated) tail.push(`[cut at ${PDF_LIMITS.maxChars} characters; continue with pages "${text.pages.at(-1)!.page}-"]`);
        else if (!pages && read.length < text.pageCount) tail.push(`[${text.pageCount - read.length} more pages; continue with pages "${read.length + 1}-"]`);
        const output = [head.join(''), body, ...tail].join('\n\n');
        return untrusted ? { output, untrustedSource: untrusted } : { output };
      } catch (err) {
        return toolError(err);
      }
    },
  });

export const createPdfPageCount = (reader: PdfReader, net: PdfFetch | null) =>
  defineTool({
    name: 'pdf_page_count',
    facts: { loadsWith: 'pdf' },
    description: 'Count the pages of a PDF (a file or an http(s) URL) without reading its text. Use it before read_pdf on long PDFs.',
    params: () => z.object(source).strict(),
    risk: 'read-only',
    disclosure: 'internal',
    effects: (args) => pdfEffects(args, net),
    presentation: { title: 'Count PDF pages', icon: 'file', summary: (args) => args.path ?? args.url ?? '' },
    async execute(args, ctx) {
      const { bytes, shown } = await load(args, ctx, net);
      notPdf(bytes, shown);
      try {
        const n = await reader.pageCount(bytes, args.password !== undefined ? { password: args.password } : {});
        return { output: `${shown}: ${n} page${n === 1 ? '' : 's'}.` };
      } catch (err) {
        return toolError(err);
      }
    },
  });
