/**
 * When a page has settled after an action, by the page's own events rather than fixed pauses: the page is asked,
 * after its next animation frame, whether the action started a navigation of the tab (the Navigation API's `navigate`
 * event, counted in the page as it fires); a navigation is waited for until the new document commits and loads (or
 * the navigation ends without one: blocked, aborted, a download, a 204), however slow the server, up to the bound of
 * browser_navigate; requests the action started are waited for until none is in flight (bounded), then one more
 * frame lets their handlers change the page. Nothing started: the call returns after that one frame.
 */
import type { Page, Request } from 'playwright-core';

/** Requests an action started (a fetch, a new page's resources): a page that never stops is read as it is. */
const MAX_SETTLE_MS = 5_000;
/** A navigation an action started: as long as browser_navigate waits for a page. */
const NAVIGATION_MS = 30_000;
/** Rounds of "wait, then look again" (a request's handler may start another request or a navigation). */
const MAX_ROUNDS = 6;

/**
 * Page code (main has no DOM types, so it is text): keeps the tab's navigations to another document as they start.
 * Same-document ones (a hash, history.pushState) and downloads are not kept; one the page cancels (preventDefault) is
 * not counted when looked at.
 */
const NAV_COUNTER = `(() => {
  if (window.__deskhandNavigations || !window.navigation) return;
  const started = { events: [] };
  Object.defineProperty(window, '__deskhandNavigations', { value: started });
  window.navigation.addEventListener('navigate', (e) => {
    if (!e.destination.sameDocument && e.downloadRequest === null) started.events.push(e);
  });
})()`;

/**
 * Page code: resolves after the next animation frame and one task (what a click queued runs first), with the number
 * of navigations started since the last look (and resets it). A hidden page gets no frames: a short timer stands in.
 */
const FRAME_PROBE = new Function(
  `return new Promise((resolve) => {
    let done = false;
    const go = () => { if (done) return; done = true; setTimeout(() => {
      const s = window.__deskhandNavigations;
      const n = s ? s.events.filter((e) => !e.defaultPrevented).length : 0;
      if (s) s.events = [];
      resolve(n);
    }, 0); };
    requestAnimationFrame(go);
    setTimeout(go, 100);
  });`,
) as () => Promise<number>;

/** Requests in flight and main-frame navigations of one page, with a way to wait for them. */
export class TabWatch {
  inflight = 0;
  /** Main-frame documents committed (Playwright's framenavigated). */
  navigations = 0;
  /** Main-frame navigation requests that ended without a document: failed (blocked, aborted, a download) or 204/205. */
  navigationsEnded = 0;
  /** The method of the request that loaded the current document (a POST answer is not loaded again on resume). */
  documentMethod = 'GET';
  private readonly off: (() => void)[] = [];
  private waiters: (() => void)[] = [];

  constructor(private readonly page: Page) {
    const poke = () => {
      for (const w of this.waiters.splice(0)) w();
    };
    const counts = (r: Request) => r.resourceType() !== 'eventsource' && r.resourceType() !== 'websocket';
    const mainNavigation = (r: Request) => r.isNavigationRequest() && r.frame() === page.mainFrame();
    const started = (r: Request) => {
      if (mainNavigation(r)) this.documentMethod = r.method();
      // Long-lived streams (event sources, websockets) would never finish: they do not count.
      if (counts(r)) this.inflight++;
      poke();
    };
    const finished = (r: Request) => {
      if (counts(r)) this.inflight = Math.max(0, this.inflight - 1);
      if (mainNavigation(r)) {
        void r
          .response()
          .then((res) => {
            if (res && (res.status() === 204 || res.status() === 205)) this.navigationsEnded++;
            poke();
          })
          .catch(() => undefined);
      }
      poke();
    };
    const failed = (r: Request) => {
      if (counts(r)) this.inflight = Math.max(0, this.inflight - 1);
      if (mainNavigation(r)) this.navigationsEnded++;
      poke();
    };
    const nav = (frame: { parentFrame(): unknown }) => {
      if (!frame.parentFrame()) this.navigations++;
      poke();
    };
    // A navigation answered with an attachment becomes a download: no document comes.
    const download = () => {
      this.navigationsEnded++;
      poke();
    };
    page.on('request', started);
    page.on('requestfinished', finished);
    page.on('requestfailed', failed);
    page.on('framenavigated', nav);
    page.on('download', download);
    page.on('close', poke);
    // Every document of the tab counts its navigations: the ones to come, and the one already there.
    void page.addInitScript(NAV_COUNTER).catch(() => undefined);
    void page.evaluate(NAV_COUNTER).catch(() => undefined);
    this.off.push(() => {
      page.off('request', started);
      page.off('requestfinished', finished);
      page.off('requestfailed', failed);
      page.off('framenavigated', nav);
      page.off('download', download);
      page.off('close', poke);
      poke();
    });
  }

  /** What has happened so far, taken before an action: settle() waits for what the action starts after it. */
  mark(): SettleMark {
    return { navigations: this.navigations, ended: this.navigationsEnded };
  }

  /** Resolves true once `holds()` is true (looked at on every request and navigation event), false at the deadline. */
  async until(holds: () => boolean, deadline: number): Promise<boolean> {
    while (!holds()) {
      const left = deadline - Date.now();
      if (left <= 0 || this.page.isClosed()) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  dispose(): void {
    for (const f of this.off.splice(0)) f();
  }

  get isClosed(): boolean {
    return this.page.isClosed();
  }
}

export interface SettleMark {
  navigations: number;
  ended: number;
}

export async function settle(page: Page, watch: TabWatch, before: SettleMark, opts: { maxMs?: number; navigationMs?: number } = {}): Promise<void> {
  const start = Date.now();
  const requestsDeadline = start + (opts.maxMs ?? MAX_SETTLE_MS);
  const navigationDeadline = start + (opts.navigationMs ?? NAVIGATION_MS);
  let committed = before.navigations;
  let endedBefore = before.ended;
  for (let round = 0; round < MAX_ROUNDS && !page.isClosed(); round++) {
    // After the page's next frame: did the action (or what it queued) start a navigation? A probe that dies with its
    // document means the navigation already committed.
    const started = await page.evaluate(FRAME_PROBE).catch(() => 1);
    if (page.isClosed()) return;
    const navigating = started > 0 || watch.navigations !== committed;
    if (navigating) {
      // Until the new document commits (or the navigation ends without one), then until it has loaded.
      await watch.until(() => watch.navigations !== committed || watch.navigationsEnded !== endedBefore, navigationDeadline);
      committed = watch.navigations;
      endedBefore = watch.navigationsEnded;
      await page.waitForLoadState('load', { timeout: Math.max(1, navigationDeadline - Date.now()) }).catch(() => undefined);
    } else if (watch.inflight === 0) {
      return;
    }
    // Requests in flight (a fetch the action made, the new page's late resources); then look again after a frame.
    const deadline = navigating ? Math.max(requestsDeadline, Date.now() + (opts.maxMs ?? MAX_SETTLE_MS)) : requestsDeadline;
    if (!(await watch.until(() => watch.inflight === 0, deadline)) && !navigating) return;
  }
}
