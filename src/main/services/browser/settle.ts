/**
 * When a page has settled after an action: a navigation it started has loaded, no request it made is still in
 * flight, and the document has stopped changing for a moment (bounded: a page that never stops is read as it is).
 */
import type { Page, Request } from 'playwright-core';

const QUIET_MS = 150;
const MAX_SETTLE_MS = 5_000;

/** Requests in flight and main-frame navigations of one page. */
export class TabWatch {
  inflight = 0;
  navigations = 0;
  /** The method of the request that loaded the current document (a POST answer is not loaded again on resume). */
  documentMethod = 'GET';
  private readonly off: (() => void)[] = [];

  constructor(private readonly page: Page) {
    const started = (r: Request) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) this.documentMethod = r.method();
      // Long-lived streams (event sources, websockets) would never finish: they do not count.
      if (r.resourceType() !== 'eventsource' && r.resourceType() !== 'websocket') this.inflight++;
    };
    const ended = (r: Request) => {
      if (r.resourceType() !== 'eventsource' && r.resourceType() !== 'websocket') this.inflight = Math.max(0, this.inflight - 1);
    };
    const nav = (frame: { parentFrame(): unknown }) => {
      if (!frame.parentFrame()) this.navigations++;
    };
    page.on('request', started);
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    page.on('framenavigated', nav);
    this.off.push(() => {
      page.off('request', started);
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
      page.off('framenavigated', nav);
    });
  }

  dispose(): void {
    for (const f of this.off.splice(0)) f();
  }

  get isClosed(): boolean {
    return this.page.isClosed();
  }
}

/** Runs in the page: resolves true once the document has not changed for `quietMs`, false at `maxWait`. */
// Page code, written as text because main has no DOM types.
const QUIET_DOM = new Function(
  'opts',
  `return new Promise((resolve) => {
    let timer = setTimeout(() => done(true), opts.quietMs);
    const cap = setTimeout(() => done(false), opts.maxWait);
    const obs = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(() => done(true), opts.quietMs); });
    function done(v) { obs.disconnect(); clearTimeout(timer); clearTimeout(cap); resolve(v); }
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });`,
) as (opts: { quietMs: number; maxWait: number }) => Promise<boolean>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function settle(page: Page, watch: TabWatch, navigationsBefore: number, maxMs = MAX_SETTLE_MS): Promise<void> {
  const deadline = Date.now() + maxMs;
  // A click's effects start a tick later (a submit, a fetch): give them that tick.
  await sleep(30);
  if (watch.navigations !== navigationsBefore) await page.waitForLoadState('load', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
  while (Date.now() < deadline && !page.isClosed()) {
    if (watch.inflight > 0) {
      await sleep(25);
      continue;
    }
    const quiet = await page
      .evaluate(QUIET_DOM, { quietMs: QUIET_MS, maxWait: Math.max(QUIET_MS, deadline - Date.now()) })
      .catch(() => null);
    // null: the document was replaced while we watched (a navigation); wait for it and look again.
    if (quiet === null) {
      await page.waitForLoadState('load', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
      continue;
    }
    if (watch.inflight === 0) return;
  }
}
