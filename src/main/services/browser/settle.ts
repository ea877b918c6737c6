/**
 * When a page has settled after an action, by the page's own events rather than fixed pauses: the page is asked,
 * after its next animation frame, whether the action started a navigation of the tab (the Navigation API's `navigate`
 * event, counted in the page as it fires); a navigation is waited for until the new document commits and loads (or
 * the navigation ends without one: blocked, aborted, a download, a 204), however slow the server, up to the bound of
 * browser_navigate; requests the action started are waited for until none is in flight (bounded), then one more
 * frame lets their handlers change the page. Nothing started: the call returns after that one frame.
 *
 * The same look tells whether the action clicked a link into another window or tab (the page keeps such clicks as
 * they are dispatched, and the look leaves out those it cancelled): the action then waits for that tab (tab-book.ts),
 * with no round trip to the page before the click.
 */
import type { Page, Request } from 'playwright-core';

/** Requests an action started (a fetch, a new page's resources): a page that never stops is read as it is. */
const MAX_SETTLE_MS = 5_000;
/** A navigation an action started: as long as browser_navigate waits for a page. */
const NAVIGATION_MS = 30_000;
/** Rounds of "wait, then look again" (a request's handler may start another request or a navigation). */
const MAX_ROUNDS = 6;

/**
 * Page code (main has no DOM types, so it is text): keeps the tab's navigations to another document as they start, and
 * the clicks (by an input device, as Playwright's are; not a script's) on links that target another window or tab
 * (`target`, or the document's `<base target>`, other than `_self`, `_parent` or `_top`) as they are dispatched. Same-document navigations (a hash, history.pushState) and
 * downloads are not kept; a navigation or click the page cancels (preventDefault) is not counted when looked at.
 */
const NAV_COUNTER = `(() => {
  if (window.__deskhandNavigations) return;
  const started = { events: [], tabClicks: [] };
  Object.defineProperty(window, '__deskhandNavigations', { value: started });
  if (window.navigation) window.navigation.addEventListener('navigate', (e) => {
    if (!e.destination.sameDocument && e.downloadRequest === null) started.events.push(e);
  });
  window.addEventListener('click', (e) => {
    if (!e.isTrusted) return;
    const node = e.composedPath()[0];
    const el = node && node.nodeType === 1 ? node : node && node.parentElement;
    const link = el && el.closest ? el.closest('a[href], area[href]') : null;
    if (!link) return;
    const base = link.ownerDocument.querySelector('base[target]');
    const target = link.getAttribute('target') || (base && base.getAttribute('target')) || '';
    if (target !== '' && !/^_(self|parent|top)$/i.test(target)) started.tabClicks.push(e);
  }, true);
})()`;

/**
 * Page code: resolves after the next animation frame and one task (what a click queued runs first), with the number
 * of navigations and of new-tab link clicks started since the last look (or, for the clicks, since the action's
 * mark), those the page cancelled left out (and resets both). A hidden page gets no frames: a short timer stands in.
 */
const FRAME_PROBE = new Function(
  `return new Promise((resolve) => {
    let done = false;
    const go = () => { if (done) return; done = true; setTimeout(() => {
      const s = window.__deskhandNavigations;
      const live = (list) => list.filter((e) => !e.defaultPrevented).length;
      const seen = s ? { navigations: live(s.events), tabClicks: live(s.tabClicks) } : { navigations: 0, tabClicks: 0 };
      if (s) { s.events = []; s.tabClicks = []; }
      resolve(seen);
    }, 0); };
    requestAnimationFrame(go);
    setTimeout(go, 100);
  });`,
) as () => Promise<{ navigations: number; tabClicks: number }>;

/** Page code: forgets the new-tab clicks kept so far (a person's, between two actions in a headed browser). */
const FORGET_TAB_CLICKS = `(() => { const s = window.__deskhandNavigations; if (s) s.tabClicks = []; })()`;

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

  /**
   * What has happened so far, taken before an action: settle() waits for what the action starts after it. The page is
   * told to forget the new-tab clicks it kept until now, without waiting for its answer: the message goes out before
   * any of the action's, and the page handles one connection's messages in order, so it forgets before the action's
   * click is dispatched.
   */
  mark(): SettleMark {
    void this.page.evaluate(FORGET_TAB_CLICKS).catch(() => undefined);
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

/** What the settle saw the action start in its page: new-tab link clicks the page did not cancel (main frame). */
export interface Settled {
  tabClicks: number;
}

export async function settle(page: Page, watch: TabWatch, before: SettleMark, opts: { maxMs?: number; navigationMs?: number } = {}): Promise<Settled> {
  const start = Date.now();
  const requestsDeadline = start + (opts.maxMs ?? MAX_SETTLE_MS);
  const navigationDeadline = start + (opts.navigationMs ?? NAVIGATION_MS);
  let committed = before.navigations;
  let endedBefore = before.ended;
  const seen: Settled = { tabClicks: 0 };
  for (let round = 0; round < MAX_ROUNDS && !page.isClosed(); round++) {
    // After the page's next frame: did the action (or what it queued) start a navigation, or click a link into
    // another tab? A probe that dies with its document means the navigation already committed.
    const probe = await page.evaluate(FRAME_PROBE).catch(() => ({ navigations: 1, tabClicks: 0 }));
    seen.tabClicks += probe.tabClicks;
    if (page.isClosed()) return seen;
    const navigating = probe.navigations > 0 || watch.navigations !== committed;
    if (navigating) {
      // Until the new document commits (or the navigation ends without one), then until it has loaded.
      await watch.until(() => watch.navigations !== committed || watch.navigationsEnded !== endedBefore, navigationDeadline);
      committed = watch.navigations;
      endedBefore = watch.navigationsEnded;
      await page.waitForLoadState('load', { timeout: Math.max(1, navigationDeadline - Date.now()) }).catch(() => undefined);
    } else if (watch.inflight === 0) {
      return seen;
    }
    // Requests in flight (a fetch the action made, the new page's late resources); then look again after a frame.
    const deadline = navigating ? Math.max(requestsDeadline, Date.now() + (opts.maxMs ?? MAX_SETTLE_MS)) : requestsDeadline;
    if (!(await watch.until(() => watch.inflight === 0, deadline)) && !navigating) return seen;
  }
  return seen;
}
