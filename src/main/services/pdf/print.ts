/**
 * Prints HTML to PDF in a headless Chromium driven by playwright-core. Every request the page makes is refused (the
 * document must be self-contained: inline styles, data: images and fonts), the page gets a moment to run its scripts,
 * and fonts are embedded by Chromium's PDF backend. The same page rendered to a PNG is a static composition's image
 * (`snapshot`). One browser per print: printing is rare and this keeps nothing
 * running afterwards.
 */
import { DeskhandError } from '../../../shared/errors';
import { findChromium } from '../chromium/index';
import type { PageSetup, PdfPrinter, SnapshotSetup } from './index';

const SIZES = new Set(['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);

export function pdfOptions(setup: PageSetup): Parameters<import('playwright-core').Page['pdf']>[0] {
  const size = (setup.size ?? 'A4').trim();
  const opts: Parameters<import('playwright-core').Page['pdf']>[0] = { printBackground: true, landscape: !!setup.landscape, preferCSSPageSize: false };
  if (SIZES.has(size.toLowerCase())) opts.format = size;
  else {
    const m = /^(\d+(?:\.\d+)?(?:mm|cm|in|px))\s*x\s*(\d+(?:\.\d+)?(?:mm|cm|in|px))$/i.exec(size);
    if (!m) throw new DeskhandError('usage', `Page size "${size}" is not known: use A4, Letter, Legal, A3, A5, Tabloid or WIDTHxHEIGHT such as 210mmx297mm.`);
    opts.width = m[1]!;
    opts.height = m[2]!;
  }
  const lengths = /^\d+(?:\.\d+)?(?:mm|cm|in|px)$|^0$/;
  const m = setup.margins;
  const margin = typeof m === 'string' ? { top: m, right: m, bottom: m, left: m } : (m ?? { top: '15mm', right: '15mm', bottom: '15mm', left: '15mm' });
  for (const [side, v] of Object.entries(margin)) {
    if (v !== undefined && !lengths.test(v)) throw new DeskhandError('usage', `Margin ${side} "${v}" is not a length: use e.g. 10mm, 0.5in or 0.`);
  }
  opts.margin = margin;
  return opts;
}

export class ChromiumPdfPrinter implements PdfPrinter {
  constructor(private readonly browserPath: () => string | undefined = () => findChromium()?.path) {}

  async print(html: string, setup: PageSetup, signal?: AbortSignal): Promise<Buffer> {
    const options = pdfOptions(setup);
    return this.withPage(html, signal, 'Printing', undefined, (page) => page.pdf(options));
  }

  async snapshot(html: string, opts: SnapshotSetup = {}, signal?: AbortSignal): Promise<Buffer> {
    const width = opts.width ?? 1280;
    const height = opts.height ?? 800;
    if (!Number.isInteger(width) || width < 100 || width > 4000) throw new DeskhandError('usage', `Width ${width} is out of range: give 100 to 4000 pixels.`);
    if (!Number.isInteger(height) || height < 100 || height > 4000) throw new DeskhandError('usage', `Height ${height} is out of range: give 100 to 4000 pixels.`);
    return this.withPage(html, signal, 'Rendering', { width, height }, (page) => page.screenshot({ type: 'png', fullPage: opts.fullPage ?? true, animations: 'disabled' }));
  }

  /** One browser for one document: every request but data: refused, scripts run, fonts ready, then `use`. */
  private async withPage<T>(html: string, signal: AbortSignal | undefined, what: string, viewport: { width: number; height: number } | undefined, use: (page: import('playwright-core').Page) => Promise<T>): Promise<T> {
    const path = this.browserPath();
    if (!path) {
      throw new DeskhandError('unsupported', `No Chromium, Chrome or Edge was found (${what.toLowerCase()} needs one). Install one (e.g. \`apt install chromium\`) or set DESKHAND_CHROMIUM to its path.`);
    }
    const browser = await (await import('playwright-core')).chromium.launch({ executablePath: path, args: ['--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
    const onAbort = () => void browser.close().catch(() => undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const context = await browser.newContext({ offline: true, javaScriptEnabled: true, ...(viewport ? { viewport } : {}) });
      await context.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort('blockedbyclient')));
      const page = await context.newPage();
      await page.setContent(html, { waitUntil: 'load', timeout: 30_000 });
      await page.evaluate('document.fonts.ready.then(() => undefined)');
      return await use(page);
    } catch (err) {
      if (signal?.aborted) throw new DeskhandError('usage', `${what} was stopped.`);
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await browser.close().catch(() => undefined);
    }
  }
}
