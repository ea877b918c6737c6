/**
 * The browser's tab bookkeeping (playwright-browser.ts acts on the pages): which conversation's session each page
 * belongs to, a tab's records and listeners (its dialogs, downloads and closing), the popups a page opens (adopted
 * into their opener's session in the background, with a note for the model), and the wait an action makes for the tab
 * it opened: a click on a link that targets another window waits for the tab (bounded), and every action waits for
 * its own session's adoptions under way, never for another conversation's.
 */
import type { Browser, Dialog, Locator, Page, Route } from 'playwright-core';
import type { Session, Tab } from './browser-session';
import { saveDownload } from './downloads';
import { TabWatch } from './settle';

/**
 * How long an action waits for a tab it opened to be created and adopted, and how long an adoption waits for the new
 * tab's first document. Exported so tests can make them long enough to tell a wait from none.
 */
export const actTuning = { adoptWaitMs: 11_000, popupLoadMs: 10_000 };

/**
 * Whether clicking the element follows a link into another window or tab (`target` other than this frame's own). When
 * it does, the link's click event is kept on its window, so after the click the action can tell whether the page
 * cancelled it (no tab will open, nothing to wait for).
 */
const OPENS_TAB = new Function(
  'el',
  `const link = el.closest('a[href], area[href]');
  if (!link) return false;
  const base = el.ownerDocument.querySelector('base[target]');
  const target = link.getAttribute('target') || (base && base.getAttribute('target')) || '';
  const opens = target !== '' && !/^_(self|parent|top)$/i.test(target);
  if (opens) {
    const win = el.ownerDocument.defaultView;
    win.__deskhandTabClick = null;
    link.addEventListener('click', (e) => { win.__deskhandTabClick = e; }, { once: true, capture: true });
  }
  return opens;`,
) as (el: unknown) => boolean;
/** After the click: true when no tab can come of it (the click never reached the link, or the page cancelled it). */
const TAB_CLICK_CANCELLED = new Function(
  'el',
  `const e = el.ownerDocument.defaultView.__deskhandTabClick;
  return !e || e.defaultPrevented;`,
) as (el: unknown) => boolean;

/** The tab an action's click is about to open: `arrived` waits for it, unless the page cancelled the click. */
export interface TabOpening {
  arrived(): Promise<void>;
  /** Stops waiting (the action failed). */
  drop(): void;
}

/**
 * Before an action: when it is a click on a link that targets another window, a bounded wait for the tab it opens,
 * which a headed browser creates a moment after the click returns (so the new tab's note is this action's answer, not
 * a later call's). Null for any other action.
 */
export async function tabOpening(page: Page, loc: Locator, action: string): Promise<TabOpening | null> {
  const opensTab = action === 'click' && (await loc.evaluate(OPENS_TAB, undefined, { timeout: 2_000 }).catch(() => false));
  if (!opensTab) return null;
  let timer: NodeJS.Timeout | undefined;
  const popup = Promise.race([page.waitForEvent('popup', { timeout: actTuning.adoptWaitMs }).catch(() => null), new Promise<null>((r) => (timer = setTimeout(() => r(null), actTuning.adoptWaitMs)))]);
  return {
    async arrived() {
      // The tab comes a moment after the click, unless the page cancelled the click (then none will).
      const cancelled = Promise.race([popup.then(() => false), loc.evaluate(TAB_CLICK_CANCELLED, undefined, { timeout: 2_000 }).catch(() => false)]);
      if (!(await cancelled)) await popup;
      clearTimeout(timer);
    },
    drop: () => clearTimeout(timer),
  };
}

export class TabBook {
  /** The open sessions, by conversation. */
  readonly sessions = new Map<string, Session>();
  /** Which conversation a page belongs to (popups join their opener's). */
  private readonly pageSessions = new WeakMap<Page, Session>();
  /**
   * Popups being adopted (adoptPopup), each with the session it joins once its opener is known: an action waits for
   * its own session's before it answers, never for another conversation's.
   */
  private readonly adopting = new Map<Promise<void>, Promise<Session | null>>();

  /** `changed`: a session's tabs or current tab changed (the UI is told). */
  constructor(private readonly changed: (session: Session) => void) {}

  /** The conversation's session, opened empty when it has none. */
  session(conversationId: string): Session {
    let s = this.sessions.get(conversationId);
    if (!s) {
      s = { conversationId, tabs: new Map(), current: null, notes: [], counter: 0, acting: null, origins: new Set() };
      this.sessions.set(conversationId, s);
    }
    return s;
  }

  /** The open session a page belongs to (none once that session closed or parked). */
  sessionOfPage(page: Page | null): Session | undefined {
    if (!page) return undefined;
    const s = this.pageSessions.get(page);
    return s && this.sessions.get(s.conversationId) === s ? s : undefined;
  }

  /**
   * The conversation whose page made a request: its tab's, or (a popup not yet joined) its opener's. A request with no
   * frame yet (a popup's first load, a service worker's fetch) can only be a conversation's when just one has a
   * session open; with several, no approval covers it.
   */
  async sessionOfRequest(route: Route): Promise<Session | undefined> {
    let page: Page | null;
    try {
      page = route.request().frame().page();
    } catch {
      return this.sessions.size === 1 ? this.sessions.values().next().value : undefined;
    }
    const own = this.sessionOfPage(page);
    if (own) return own;
    return this.sessionOfPage(await page.opener().catch(() => null));
  }

  /** Makes `page` the session's tab `name` (and its current one): its dialogs, downloads and closing are kept here. */
  watchTab(session: Session, name: string, page: Page, adopted?: { browser: Browser }): Tab {
    const tab: Tab = { name, page, refs: new Set(), outline: '', secretRefs: new Set(), watch: new TabWatch(page), typed: [], ...(adopted ? { adopted } : {}) };
    this.pageSessions.set(page, session);
    page.on('dialog', (d) => void answerDialog(session, d));
    page.on('download', (d) => void saveDownload(session, d));
    page.on('close', () => {
      if (session.tabs.get(name)?.page !== page) return;
      session.tabs.delete(name);
      if (session.current === name) session.current = session.tabs.keys().next().value ?? null;
      this.changed(session);
    });
    session.tabs.set(name, tab);
    session.current = name;
    return tab;
  }

  /** A page the browser opened: adopted into its opener's session in the background (none: left alone). */
  pageOpened(page: Page): void {
    let owner!: (s: Session | null) => void;
    const known = new Promise<Session | null>((r) => (owner = r));
    const adoption: Promise<void> = this.adoptPopup(page, owner).finally(() => {
      owner(null);
      this.adopting.delete(adoption);
    });
    this.adopting.set(adoption, known);
  }

  /**
   * A tab the action opened is adopted in the background (its opener, then its first document): its note belongs to
   * this action's answer, so wait for this session's adoptions under way (bounded by their own load wait). Another
   * conversation's are not waited for; one whose opener is not known yet is waited for until it is.
   */
  async adoptionsOf(session: Session): Promise<void> {
    await new Promise((r) => setImmediate(r));
    const mine = [...this.adopting].map(async ([adoption, known]) => ((await known) === session ? adoption : undefined));
    if (!mine.length) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(mine.map(async (m) => await (await m))), new Promise((r) => (timer = setTimeout(r, actTuning.adoptWaitMs)))]);
    clearTimeout(timer);
  }

  private async adoptPopup(page: Page, owner: (s: Session | null) => void): Promise<void> {
    const opener = await page.opener().catch(() => null);
    const session = this.sessionOfPage(opener);
    owner(session ?? null);
    if (!session) return;
    const name = `tab${++session.counter + 1}`;
    this.watchTab(session, name, page);
    await page.waitForLoadState('domcontentloaded', { timeout: actTuning.popupLoadMs }).catch(() => undefined);
    session.notes.push(`The page opened a new tab "${name}" (${page.url()}); it is now the current tab.`);
    this.changed(session);
  }
}

/** An alert or beforeunload is accepted; any other dialog as the running act asked (dismissed by default). */
async function answerDialog(session: Session, dialog: Dialog): Promise<void> {
  const how = dialog.type() === 'alert' || dialog.type() === 'beforeunload' ? 'accept' : (session.acting?.dialog ?? 'dismiss');
  session.notes.push(`A ${dialog.type()} dialog said ${JSON.stringify(dialog.message().slice(0, 500))}; it was ${how === 'accept' ? 'accepted' : 'dismissed'}.`);
  await (how === 'accept' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
}
