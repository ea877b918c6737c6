/**
 * Prints HTML to PDF in a headless Chromium driven by playwright-core. Every request the page makes is refused (the
 * document must be self-contained: inline styles, data: images and fonts), the page gets a moment to run its scripts,
 * and fonts are embedded by Chromium's PDF backend. One browser per print: printing is rare and this keeps nothing
 * running afterwards.
 */
import { DeskhandError } from '../../../shared/errors';
import { findChromium } from '../chromium/index';
import type { PageSetup, PdfPrinter } from './index';

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
    const path = this.browserPath();
    if (!path) {
      throw new DeskhandError('unsupported', 'No Chromium, Chrome or Edge was found to print with. Install one (e.g. `apt install chromium`) or set DESKHAND_CHROMIUM to its path.');
    }
    const browser = await (await import('playwright-core')).chromium.launch({ executablePath: path, args: ['--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
    const onAbort = () => void browser.close().catch(() => undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const context = await browser.newContext({ offline: true, javaScriptEnabled: true });
      await context.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort('blockedbyclient')));
      const page = await context.newPage();
      await page.setContent(html, { waitUntil: 'load', timeout: 30_000 });
      await page.evaluate('document.fonts.ready.then(() => undefined)');
      return await page.pdf(options);
    } catch (err) {
      if (signal?.aborted) throw new DeskhandError('usage', 'Printing was stopped.');
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await browser.close().catch(() => undefined);
    }
  }
}
