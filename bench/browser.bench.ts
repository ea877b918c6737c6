/**
 * browser_snapshot_ratio: browser_snapshot of a 2,000-element page (the tool: Playwright's AI aria snapshot with refs,
 * turned into the outline, capped, redacted) against Playwright's own `page.ariaSnapshot()` of the same page in a
 * same tab of the same browser, in the same run; calls alternate and the ratio is taken per pair. Target ≤ 1.1.
 * browser_act_ms: browser_act click on a counter button until the page has settled and the outline diff is made
 * (median), against a bare Playwright `click()` on the same kind of page in the same run; browser_act_vs_click_ratio is
 * the same pair as a ratio per round (target ≤ 2: nothing navigates here, so the settle is one frame).
 */
import { chromium as playwright } from 'playwright-core';
import { PlaywrightBrowser } from '../src/main/services/browser/playwright-browser';
import { findChromium } from '../src/main/services/chromium/index';
import { createBrowserFamily } from '../src/main/tools/browser';
import { startSite } from '../test/browser/site';
import { makeContext, tempDir } from '../test/support/tool-context';
import { figure, paired, ratio, type BenchResult } from './lib';

const ROUNDS = 20;
const WARMUP = 3;

export default async function browserBench(): Promise<BenchResult> {
  const found = findChromium();
  if (!found) return { skipped: 'no Chromium found (install chromium or set DESKHAND_CHROMIUM)' };
  const site = await startSite();
  const dataDir = tempDir('deskhand-bench-');
  const browser = new PlaywrightBrowser({ dataDir, settings: () => ({ headless: true }) });
  const baseline = await playwright.launch({ executablePath: found.path, headless: true });
  try {
    const tools = new Map(createBrowserFamily({ browser, dataDir, urlGrants: () => [], endpoint: () => undefined, resolve: async () => [] }).tools.map((t) => [t.name, t]));
    const ctx = makeContext(dataDir, { dataDir });
    browser.approveDestination(ctx.conversationId, `127.0.0.1:${site.port}`);
    const run = (name: string, args: Record<string, unknown>) => tools.get(name)!.execute(tools.get(name)!.params.parse(args), ctx);

    // 2,000 elements: 500 rows of a link, a button, a text field and a price.
    const big = `${site.origin}/big?n=2000`;
    await run('browser_navigate', { url: big });
    // The same page in the same browser: only what browser_snapshot adds is measured.
    const page = browser.pageOf(ctx.conversationId)!;
    const elements = await page.evaluate('document.querySelectorAll("li > *").length');
    // Like for like: Playwright's snapshot for AI (refs, iframes) is what browser_snapshot is built on.
    const snap = await paired(ROUNDS, WARMUP, () => run('browser_snapshot', {}), () => page.ariaSnapshot({ mode: 'ai' }));
    // And against the plain snapshot (no refs, no iframes), which costs less to make.
    const plain = await paired(ROUNDS, WARMUP, () => run('browser_snapshot', {}), () => page.ariaSnapshot());

    // Act: click "Add one" and wait for the settled diff; baseline: Playwright's click on the same page.
    await run('browser_navigate', { url: `${site.origin}/counter`, tab: 'counter' });
    const outline = (await run('browser_snapshot', {})).output;
    const ref = /\[(e\d+)\] button "Add one"/.exec(outline)![1]!;
    const counter = await baseline.newPage();
    await counter.goto(`${site.origin}/counter`);
    const act = await paired(
      ROUNDS,
      WARMUP,
      () => run('browser_act', { ref, action: 'click' }),
      () => counter.getByRole('button', { name: 'Add one' }).click(),
    );
    return {
      browser_snapshot_ratio: ratio(snap.a, snap.b, { baseline: `Playwright page.ariaSnapshot({mode: 'ai'}) of the same ${String(elements)}-element page`, target: '≤ 1.1' }),
      browser_snapshot_vs_plain_ratio: ratio(plain.a, plain.b, { baseline: 'Playwright page.ariaSnapshot() (default mode: no refs, no iframes) of the same page' }),
      browser_snapshot_ms: figure([...snap.a, ...plain.a], { unit: 'ms' }),
      playwright_aria_snapshot_ai_ms: figure(snap.b, { unit: 'ms' }),
      playwright_aria_snapshot_ms: figure(plain.b, { unit: 'ms' }),
      browser_act_vs_click_ratio: ratio(act.a, act.b, { baseline: 'Playwright click() on the same page (no settle, no outline), paired per round', target: '≤ 2' }),
      browser_act_ms: figure(act.a, { unit: 'ms', baseline: 'playwright_click_ms (click without settling or diff)' }),
      playwright_click_ms: figure(act.b, { unit: 'ms' }),
    };
  } finally {
    await baseline.close();
    await browser.shutdown();
    await site.close();
  }
}
