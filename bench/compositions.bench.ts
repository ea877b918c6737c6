/**
 * composition_open_ms: a 2 MB HTML composition (a long table and an inline script) opened from the compositions panel
 * of `deskhand web` in headless Chromium, from the click until the sandboxed viewer reports its first paint (the
 * injected reporter posts after two animation frames). Paired, round by round, with a tiny composition opened the same
 * way (the viewer's own overhead) as the baseline. composition_direct_paint_ms is the floor: the same viewer document
 * (policy and reporter injected, the policy also as a header) served by a plain local server into a sandboxed iframe of
 * an otherwise empty page of the same Chromium, from setting the frame's src to the same 'painted' report — what
 * Chromium alone needs to fetch, parse and paint those 2 MB in such a frame.
 *
 * read_pdf_pages_per_s: the text of a 200-page PDF (printed once by create_pdf's Chromium printer) read by the
 * read_pdf reader from the file on disk (page count, then every page's text), as the tool does in a running Deskhand:
 * the poppler reader (pdfinfo + pdftotext through the launcher, PDF on stdin; services/pdf/poppler.ts);
 * read_pdf_pdfjs_pages_per_s is the pdfjs fallback (DESKHAND_PDF_READER=pdfjs) in the same rounds;
 * pdftotext_pages_per_s: poppler's `pdftotext -layout FILE -` on the same file, its text read from its stdout, so both
 * arms start from the same file and end with the text in this process. pdftotext also pays its process start, which
 * read_pdf (in-process) does not: that part is measured on its own in the same rounds (pdftotext_process_start_ms,
 * `pdftotext -v`) and pdftotext_extract_pages_per_s is pdftotext with it taken off, round by round. The four arms
 * are interleaved, in an order that rotates each round.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompositionFiles } from '../src/main/services/compositions/composition-files';
import { VIEWER_CSP, viewerDocument } from '../src/main/services/compositions/index';
import { ChromiumPdfPrinter } from '../src/main/services/pdf/print';
import { PopplerReader } from '../src/main/services/pdf/poppler';
import { PdfJsReader } from '../src/main/services/pdf/read';
import type { Store } from '../src/main/services/store/store';
import { figure, interleaved, ratio, roundsOf, type BenchResult } from './lib';
import { openUiHost } from './ui-support';

const ROUNDS = 9;
/** Rounds of the PDF comparison (a headline figure: at least 20). */
const PDF_ROUNDS = 20;

function bigPage(): string {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < 2 * 1024 * 1024; i++) {
    const row = `<tr><td>${i}</td><td>Region ${i % 17}</td><td>${(i * 37) % 1000}</td><td>Product line ${i % 113} with a longer description</td></tr>\n`;
    rows.push(row);
    size += row.length;
  }
  return `<!doctype html><html><head><title>Big</title><style>td{padding:2px 6px}</style></head><body><h1 id="h">Big table</h1><table>${rows.join('')}</table><script>document.getElementById('h').textContent += ' (' + document.querySelectorAll('tr').length + ' rows)';</script></body></html>`;
}

async function compositionOpen(result: BenchResult): Promise<void> {
  const titles = { big: 'Big composition', small: 'Small composition' };
  const html = bigPage();
  // Made before the page opens: a new tab opens the last conversation (this one), so its panel lists them at once.
  const seed = (store: Store, work: string, dataDir: string): void => {
    const convId = store.createConversation({ id: `conv_${randomUUID()}`, title: 'Compositions', folder: work, policy: 'read-only' }).id;
    const comps = new CompositionFiles(store, dataDir);
    comps.create({ conversationId: convId, title: titles.big, kind: 'html', bytes: Buffer.from(html) });
    comps.create({ conversationId: convId, title: titles.small, kind: 'html', bytes: Buffer.from('<!doctype html><p>small</p>') });
  };
  const ui = await openUiHost({ seed, provider: { provider: 'openai-compatible', model: 'bench', baseURL: 'http://127.0.0.1:9/v1', apiKey: null } });
  try {
    const page = ui.page;
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Compositions', exact: true }).click();
    const open = async (title: string): Promise<number> => {
      await page.getByRole('button', { name: `Open composition ${title}` }).click();
      const viewer = page.getByRole('region', { name: `Composition ${title}` });
      await viewer.and(page.locator('[data-paint-ms]')).waitFor({ timeout: 60_000 });
      const ms = Number(await viewer.getAttribute('data-paint-ms'));
      await viewer.getByRole('button', { name: 'Close the viewer' }).click();
      await viewer.waitFor({ state: 'detached' });
      return ms;
    };
    // The floor: the same document in the same kind of frame (sandboxed, the policy as a header), no app around it.
    const doc = viewerDocument('html', Buffer.from(html), 'text/html', titles.big);
    const host =
      '<!doctype html><body style="margin:0"><script>' +
      "addEventListener('message', function (e) { if (e.data && e.data.kind === 'painted' && window.__painted === undefined) window.__painted = performance.now() - window.__t0; });" +
      "window.__go = function (n) { window.__painted = undefined; var old = document.querySelector('iframe'); if (old) old.remove(); var f = document.createElement('iframe');" +
      " f.setAttribute('sandbox', 'allow-scripts'); f.style.cssText = 'width:900px;height:760px;border:0'; window.__t0 = performance.now(); f.src = '/doc?' + n; document.body.append(f); };" +
      '</script></body>';
    const plain = createServer((req, res) => {
      if (req.url?.startsWith('/doc')) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': `${VIEWER_CSP}; sandbox allow-scripts` }).end(doc);
      } else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(host);
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const direct = await ui.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await direct.goto(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
    let n = 0;
    // (Strings: this file is typed for Node, without the DOM.)
    const openDirect = async (): Promise<number> => {
      await direct.evaluate(`window.__go(${++n})`);
      await direct.waitForFunction('window.__painted !== undefined', undefined, { timeout: 60_000, polling: 20 });
      return Number(await direct.evaluate('window.__painted'));
    };
    const big: number[] = [];
    const small: number[] = [];
    const floor: number[] = [];
    try {
      for (let i = 0; i < roundsOf(ROUNDS) + 1; i++) {
        const order = i % 2 ? (['small', 'direct', 'big'] as const) : (['big', 'small', 'direct'] as const);
        for (const which of order) {
          const ms = which === 'direct' ? await openDirect() : await open(titles[which]);
          if (i > 0) (which === 'big' ? big : which === 'small' ? small : floor).push(ms);
        }
      }
    } finally {
      await direct.close();
      await new Promise((r) => plain.close(r));
    }
    result.composition_bytes = html.length;
    result.composition_open_ms = figure(big, { unit: 'ms', baseline: 'composition_open_small_ms (same viewer, a 30-byte page)' });
    result.composition_open_small_ms = figure(small, { unit: 'ms' });
    result.composition_direct_paint_ms = figure(floor, { unit: 'ms' });
    result.composition_open_vs_direct_ratio = ratio(big, floor, { baseline: 'composition_direct_paint_ms (the same document in a sandboxed iframe of an empty page, same Chromium, same rounds)' });
  } finally {
    await ui.close();
  }
}

export async function readPdf(result: BenchResult): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'deskhand-pdf-bench-'));
  try {
    const pages: string[] = [];
    for (let p = 1; p <= 200; p++) {
      const rows = Array.from({ length: 12 }, (_, r) => `<tr><td>Item ${p}.${r}</td><td>${(p * r * 7) % 997}</td><td>Note for row ${r} of page ${p}</td></tr>`).join('');
      pages.push(`<section style="page-break-after:always"><h2>Page ${p}</h2><p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8)}</p><table>${rows}</table></section>`);
    }
    const pdf = await new ChromiumPdfPrinter().print(`<!doctype html><html><body>${pages.join('')}</body></html>`, { size: 'A4' });
    const file = join(dir, 'bench.pdf');
    writeFileSync(file, pdf);
    const reader = new PopplerReader(new PdfJsReader(), undefined, {});
    const pdfjs = new PdfJsReader();
    const count = await pdfjs.pageCount(pdf);
    if (count !== 200) throw new Error(`the bench PDF has ${count} pages, not 200`);
    const all = Array.from({ length: 200 }, (_, i) => i + 1);
    const run = (args: string[]) =>
      new Promise<string>((done, fail) => execFile('pdftotext', args, { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout) => (err ? fail(err) : done(stdout))));
    let poppler = '';
    const t = await interleaved(PDF_ROUNDS, 1, {
      readPdf: async () => {
        const bytes = await readFile(file);
        if ((await reader.pageCount(bytes)) !== 200) throw new Error('the poppler reader counted the pages wrong');
        const text = await reader.read(bytes, { pages: all, maxChars: 10_000_000 });
        if (text.pages.length !== 200 || !text.pages[199]!.text.includes('Page 200')) throw new Error('not every page was read');
      },
      pdfjs: async () => {
        const bytes = await readFile(file);
        await pdfjs.pageCount(bytes);
        const text = await pdfjs.read(bytes, { pages: all, maxChars: 10_000_000 });
        if (text.pages.length !== 200) throw new Error('not every page was read');
      },
      pdftotext: async () => {
        poppler = await run(['-layout', file, '-']);
      },
      start: () => run(['-v']).catch(() => ''),
    });
    if (!poppler.includes('Page 200')) throw new Error('pdftotext did not print the last page');
    const perS = (ms: number[]) => ms.map((m) => 200 / (m / 1000));
    result.pdf_bytes = pdf.length;
    result.read_pdf_pages_per_s = figure(perS(t.readPdf), { unit: 'pages/s', baseline: 'pdftotext_pages_per_s (poppler, same file on disk, text to memory, same rounds)', headline: true });
    result.read_pdf_pdfjs_pages_per_s = figure(perS(t.pdfjs), { unit: 'pages/s', baseline: 'the pdfjs fallback (page count, then the text), same rounds' });
    result.pdftotext_pages_per_s = figure(perS(t.pdftotext), { unit: 'pages/s', baseline: 'pdftotext, its process start included' });
    result.pdftotext_process_start_ms = figure(t.start, { unit: 'ms', baseline: '`pdftotext -v`, same rounds' });
    result.pdftotext_extract_pages_per_s = figure(perS(t.pdftotext.map((m, i) => Math.max(0.001, m - t.start[i]!))), { unit: 'pages/s', baseline: 'pdftotext minus its process start, per round' });
    result.read_pdf_vs_pdftotext_ratio = ratio(t.readPdf, t.pdftotext, { baseline: 'time per 200 pages, read_pdf / pdftotext (with its start), per round' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function compositionsBench(): Promise<BenchResult> {
  const result: BenchResult = {};
  await readPdf(result);
  await compositionOpen(result);
  return result;
}
