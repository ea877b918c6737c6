/**
 * BrowserService over playwright-core: one Chromium per app (BrowserProcess), one session of named tabs per
 * conversation. Pages are read with Playwright's AI aria snapshot and acted on by its `aria-ref=` selector; refs are
 * accepted only from the tab's latest snapshot. Every request the browser makes to this machine or its network is
 * refused unless a person approved that destination in the conversation's browser session: judged per conversation
 * by the page route, and below every page by the egress proxy (egress-proxy.ts) that is Chromium's only way out, so
 * WebSockets, workers and service workers are judged too; WebRTC may not send UDP. A parked conversation's pages are
 * written to `browser/parked/<conversation>.json` and reopened (with a note for the model) by whichever process
 * resumes it.
 *
 * Beside this file: the session and tab records (browser-session.ts), the page route's judgement and the approved
 * destinations (route-guard.ts), which session each page belongs to, popups and an action's wait for the tab it
 * opened (tab-book.ts), downloads (downloads.ts), the process (browser-process.ts), the proxy, snapshots, actions,
 * settling and parking.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page, Route } from 'playwright-core';
import { isKeptHost, parseKeptSite } from '../../../shared/browser-sites';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../chromium/index';
import { BrowserProcess } from './browser-process';
import { EgressProxy } from './egress-proxy';
import { diffOutlines, formatOutline } from './snapshot';
import type { ActRequest, ActResult, AdoptableTab, BrowserService, BrowserSettings, OwnedGroups, PageInfo, PageNotes, RefInfo, SessionView, SnapshotResult } from './index';
import { DESCRIBE_ELEMENT, fetchAdoptable, findTarget, hash, performAction } from './actions';
import { anyParked, clearParked, parkedPath, readParked, type Parked } from './parked';
import { settle } from './settle';
import type { Session, Tab } from './browser-session';
import { RouteGuard } from './route-guard';
import { TabBook, tabOpening } from './tab-book';

const NAV_TIMEOUT_MS = 30_000;

/**
 * WebRTC sends no UDP that does not go through the proxy (there is none for UDP): no STUN packet, no host candidate
 * gathered by a page reaches anything. Chromium enforces this in its network stack, below every page and frame.
 */
const WEBRTC_ARGS = ['--force-webrtc-ip-handling-policy=disable_non_proxied_udp', '--webrtc-ip-handling-policy=disable_non_proxied_udp'];

const ACT_TIMEOUT_MS = 8_000;

export interface PlaywrightBrowserOptions {
  dataDir: string;
  /** Extra Chromium flags. */
  args?: string[];
  /** How the egress proxy resolves names (tests map names to addresses; default: the system resolver). */
  resolve?: (host: string) => Promise<string[]>;
  settings: () => BrowserSettings;
  owned?: OwnedGroups | null;
  /** The agent whose profile is used (one profile per agent). */
  agent?: string;
}

export class PlaywrightBrowser implements BrowserService {
  private proc: BrowserProcess | null = null;
  /** A headed browser's first blank tab, kept for the first tab a conversation opens. */
  private spare: Page | null = null;
  private starting: Promise<BrowserProcess> | null = null;
  /** The sessions, their tabs and the popups being adopted (tab-book.ts). */
  private readonly book = new TabBook((session) => this.changed(session));
  private proxy: EgressProxy | null = null;
  private readonly listed = new Map<string, AdoptableTab[]>();
  private readonly listeners = new Set<(v: SessionView | { conversationId: string; closed: true }) => void>();
  /** Private destinations people approved, per conversation, and the judging of every page request (route-guard.ts). */
  private readonly destinations: RouteGuard;

  constructor(private readonly opts: PlaywrightBrowserOptions) {
    this.destinations = new RouteGuard(opts.resolve);
  }

  private get root(): string {
    return join(this.opts.dataDir, 'browser');
  }

  available(): { ok: true; path: string } | { ok: false; message: string } {
    const s = this.opts.settings();
    const found = findChromium(s.executable ? { setting: s.executable } : {});
    return found ? { ok: true, path: found.path } : { ok: false, message: NO_CHROMIUM_MESSAGE };
  }

  // ── The process ────────────────────────────────────────────────────────────────────────────────────────────────

  private async browser(): Promise<BrowserProcess> {
    if (this.proc && !this.proc.isClosed) return this.proc;
    if (this.starting) return this.starting;
    const found = this.available();
    if (!found.ok) throw new Error(found.message);
    const agent = (this.opts.agent ?? 'default').replace(/[^\w.-]/g, '_');
    this.starting = this.startProxy()
      .then((proxy) =>
        BrowserProcess.launch({
          executable: found.path,
          profileDir: join(this.root, 'profiles', agent),
          downloadsDir: join(this.root, 'downloads-incoming'),
          headless: this.opts.settings().headless,
          args: [...proxy.chromiumArgs(), ...WEBRTC_ARGS, ...(this.opts.args ?? [])],
          owned: this.opts.owned ?? null,
        }),
      )
      .then(async (proc) => {
        await proc.context.route('**/*', (route) => this.guard(route));
        proc.context.on('page', (page) => this.book.pageOpened(page));
        // The profile opens with a blank tab nobody asked for. Headless, it is closed; headed, it is the window's last
        // tab (closing it would end the browser), so the first tab a conversation opens takes it over.
        for (const p of proc.context.pages()) {
          if (p.url() !== 'about:blank') continue;
          if (proc.headless) await p.close().catch(() => undefined);
          else this.spare ??= p;
        }
        this.proc = proc;
        return proc;
      })
      .finally(() => {
        this.starting = null;
      });
    return this.starting;
  }

  /** The egress proxy under the browser: a private destination passes it when an open conversation approved it. */
  private async startProxy(): Promise<EgressProxy> {
    if (this.proxy) return this.proxy;
    this.proxy = await EgressProxy.start({ allowsPrivate: (dest) => this.destinations.anyApproved(dest.key) }, this.opts.resolve ? { resolve: this.opts.resolve } : {});
    return this.proxy;
  }

  /** Every request of Deskhand's pages: judged for the conversation the page belongs to (route-guard.ts). */
  private async guard(route: Route): Promise<void> {
    return this.destinations.judge(route, await this.book.sessionOfRequest(route));
  }

  // ── Sessions and tabs ──────────────────────────────────────────────────────────────────────────────────────────

  /** The tab a call names (or the current one), reopening a parked session first. */
  private async tab(conversationId: string, name?: string, create = false): Promise<{ session: Session; tab: Tab }> {
    const session = this.book.session(conversationId);
    await this.unpark(session);
    const wanted = name ?? session.current ?? 'main';
    let tab = session.tabs.get(wanted);
    if (tab && tab.page.isClosed()) {
      session.tabs.delete(wanted);
      tab = undefined;
    }
    if (!tab) {
      if (!create) {
        const open = [...session.tabs.keys()];
        throw new Error(
          open.length
            ? `There is no tab "${wanted}". Open tabs: ${open.join(', ')}.`
            : 'No page is open in this conversation. Open one with browser_navigate.',
        );
      }
      const proc = await this.browser();
      const spare = this.spare && !this.spare.isClosed() ? this.spare : null;
      this.spare = null;
      tab = this.book.watchTab(session, wanted, spare ?? (await proc.context.newPage()));
    }
    if (name) session.current = name;
    return { session, tab };
  }

  private info(tab: Tab, title: string): PageInfo {
    return { tab: tab.name, url: tab.page.url(), title };
  }

  private async notes(session: Session, tab: Tab, known?: Promise<string>): Promise<PageNotes> {
    const title = await (known ?? tab.page.title()).catch(() => '');
    const notes = session.notes.splice(0);
    this.changed(session);
    return { ...this.info(tab, title), notes };
  }

  // ── Tools ──────────────────────────────────────────────────────────────────────────────────────────────────────

  async navigate(conversationId: string, url: string, tabName?: string): Promise<PageNotes> {
    const { session, tab } = await this.tab(conversationId, tabName, true);
    tab.refs.clear();
    for (let attempt = 0; ; attempt++) {
      try {
        await tab.page.goto(url, { waitUntil: 'load', timeout: NAV_TIMEOUT_MS });
        break;
      } catch (err) {
        const msg = err instanceof Error ? err.message.split('\n')[0]! : String(err);
        // The tab was still settling on an earlier (blocked) page, whose error page is a navigation too: again, after it has.
        if (/interrupted by another navigation/.test(msg) && attempt < 2) {
          await tab.page.waitForLoadState('load', { timeout: 5_000 }).catch(() => undefined);
          continue;
        }
        if (!/ERR_BLOCKED_BY_CLIENT|ERR_ABORTED/.test(msg)) throw new Error(msg.replace(/^page\.goto: /, ''));
        await tab.page.waitForLoadState('load', { timeout: 5_000 }).catch(() => undefined);
        break;
      }
    }
    return this.notes(session, tab);
  }

  async back(conversationId: string, tabName?: string): Promise<PageNotes> {
    const { session, tab } = await this.tab(conversationId, tabName);
    tab.refs.clear();
    const res = await tab.page.goBack({ waitUntil: 'load', timeout: NAV_TIMEOUT_MS }).catch((err: unknown) => {
      throw new Error(`Could not go back: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    });
    const out = await this.notes(session, tab);
    if (res === null && !out.notes.length) out.notes.push('There was no earlier page in this tab; nothing changed.');
    return out;
  }

  private async outline(tab: Tab): Promise<ReturnType<typeof formatOutline>> {
    const raw = await tab.page.ariaSnapshot({ mode: 'ai', timeout: 15_000 });
    const o = formatOutline(raw);
    tab.refs = o.refs;
    tab.outline = o.text;
    return o;
  }

  async snapshot(conversationId: string, tabName?: string): Promise<SnapshotResult> {
    const { session, tab } = await this.tab(conversationId, tabName);
    // The title is asked for while the outline is made.
    const [o, info] = await Promise.all([this.outline(tab), this.notes(session, tab)]);
    return { ...info, outline: o.text, refs: o.refs.size, cut: o.cut };
  }

  async screenshot(conversationId: string, opts: { tab?: string; ref?: string; fullPage?: boolean; path: string }): Promise<PageInfo & { path: string; bytes: number }> {
    const { tab } = await this.tab(conversationId, opts.tab);
    mkdirSync(dirname(opts.path), { recursive: true });
    const mask = [...tab.secretRefs].map((r) => tab.page.locator(`aria-ref=${r}`));
    if (opts.ref) {
      this.checkRef(tab, opts.ref);
      await tab.page.locator(`aria-ref=${opts.ref}`).screenshot({ path: opts.path, mask, timeout: ACT_TIMEOUT_MS });
    } else {
      await tab.page.screenshot({ path: opts.path, fullPage: !!opts.fullPage, mask, timeout: 15_000 });
    }
    return { ...this.info(tab, await tab.page.title().catch(() => '')), path: opts.path, bytes: statSync(opts.path).size };
  }

  async tabs(conversationId: string, action: 'list' | 'new' | 'select' | 'close', name?: string): Promise<{ current: string | null; tabs: PageInfo[]; notes: string[] }> {
    const session = this.book.session(conversationId);
    await this.unpark(session);
    if (action === 'new') {
      const wanted = name ?? `tab${++session.counter + 1}`;
      if (session.tabs.has(wanted)) throw new Error(`A tab named "${wanted}" is already open; pick another name.`);
      await this.tab(conversationId, wanted, true);
    } else if (action === 'select') {
      if (!name) throw new Error('Give the name of the tab to select (see browser_tabs list).');
      await this.tab(conversationId, name);
    } else if (action === 'close') {
      const target = name ?? session.current;
      const tab = target ? session.tabs.get(target) : undefined;
      if (!tab) throw new Error(`There is no tab "${target ?? ''}". Open tabs: ${[...session.tabs.keys()].join(', ') || 'none'}.`);
      session.tabs.delete(tab.name);
      await this.release(tab);
      if (session.current === tab.name) session.current = session.tabs.keys().next().value ?? null;
    }
    const tabs = await Promise.all([...session.tabs.values()].map(async (t) => this.info(t, await t.page.title().catch(() => ''))));
    this.changed(session);
    return { current: session.current, tabs, notes: session.notes.splice(0) };
  }

  private checkRef(tab: Tab, ref: string): void {
    if (!tab.refs.has(ref)) {
      throw new Error(
        tab.refs.size
          ? `${ref} is not a ref of the latest snapshot of tab "${tab.name}" (refs are valid until the next snapshot or navigation). Call browser_snapshot and use a ref from it.`
          : `Tab "${tab.name}" has no current snapshot. Call browser_snapshot first and use a ref from it.`,
      );
    }
  }

  async refInfo(conversationId: string, ref: string, tabName?: string): Promise<RefInfo | null> {
    const session = this.book.sessions.get(conversationId);
    const tab = session?.tabs.get(tabName ?? session.current ?? '');
    if (!tab || !tab.refs.has(ref)) return null;
    return tab.page
      .locator(`aria-ref=${ref}`)
      .evaluate(DESCRIBE_ELEMENT, undefined, { timeout: 2_000 })
      .then((info) => {
        // As the model saw it: role and accessible name from the outline line.
        const line = tab.outline.split('\n').find((l) => l.trimStart().startsWith(`[${ref}] `));
        const m = line && /^\s*\[[^\]]+\] ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line);
        return m ? { ...info, role: m[1]!, name: m[2] ?? '' } : info;
      })
      .catch(() => null);
  }

  currentUrl(conversationId: string, tabName?: string): string | null {
    const session = this.book.sessions.get(conversationId);
    if (session) {
      const tab = session.tabs.get(tabName ?? session.current ?? '');
      return tab ? tab.page.url() : null;
    }
    const parked = readParked(this.root, conversationId);
    return parked?.tabs.find((t) => t.name === (tabName ?? parked.current))?.url ?? null;
  }

  async act(conversationId: string, req: ActRequest, tabName?: string): Promise<ActResult> {
    const { session, tab } = await this.tab(conversationId, tabName);
    try {
      this.checkRef(tab, req.ref);
    } catch (err) {
      // A reopened page's note says why the ref is gone.
      throw new Error([...session.notes.splice(0), (err as Error).message].join(' '));
    }
    const page = tab.page;
    if (req.secret) {
      const host = new URL(page.url()).hostname;
      const loopback = host === 'localhost' || host === '[::1]' || /^127\./.test(host);
      if (!page.url().startsWith('https:') && !loopback) {
        throw new Error(`A secret is typed only into https pages (or this machine's own); ${page.url()} is neither. Nothing was typed.`);
      }
    }
    const before = tab.outline;
    const loc = page.locator(`aria-ref=${req.ref}`);
    const startUrl = page.url();
    const navigations = tab.watch.navigations;
    const mark = tab.watch.mark();
    session.acting = { dialog: req.dialog ?? 'dismiss', ...(req.downloadDir ? { downloadDir: req.downloadDir } : {}) };
    // A click on a link that targets another window opens a tab: its note is this action's answer (tab-book.ts).
    const opening = await tabOpening(page, loc, req.action);
    try {
      await performAction(loc, req, ACT_TIMEOUT_MS);
      if (req.secret && (req.action === 'fill' || req.action === 'type')) tab.secretRefs.add(req.ref);
      else if (req.action === 'fill' || req.action === 'type' || req.action === 'select' || req.action === 'check') {
        tab.typed.push({ ref: req.ref, action: req.action, value: req.value ?? '', at: navigations });
      }
      await settle(page, tab.watch, mark);
      await opening?.arrived();
      await this.book.adoptionsOf(session);
    } catch (err) {
      throw new Error(`${req.action} on ${req.ref} failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    } finally {
      opening?.drop();
      session.acting = null;
    }
    if (page.isClosed()) {
      return { tab: tab.name, url: startUrl, title: '', navigated: true, diff: null, notes: [...session.notes.splice(0), `Tab "${tab.name}" closed itself.`] };
    }
    const navigated = tab.watch.navigations !== navigations;
    const current = session.tabs.get(session.current ?? '') ?? tab;
    // The title is asked for while the outline is made (one round trip less to wait for).
    const title = current.page.title();
    title.catch(() => undefined);
    const after = await this.outline(tab).catch(() => null);
    const out = await this.notes(session, current, title);
    const diff = after ? diffOutlines(before, after.text) : null;
    return { ...out, tab: tab.name, url: page.url(), navigated, diff: diff?.text ?? null };
  }

  async close(conversationId: string): Promise<{ closed: boolean; tabs: number; discarded: { sites: string[]; kept: string[] } }> {
    clearParked(this.root, conversationId);
    this.destinations.forget(conversationId);
    const session = this.book.sessions.get(conversationId);
    if (!session) return { closed: false, tabs: 0, discarded: { sites: [], kept: [] } };
    this.book.sessions.delete(conversationId);
    const n = session.tabs.size;
    // The last session clears every cookie of a site not kept, unless a parked conversation still needs its sign-ins.
    const discarded = await this.discard(session, this.book.sessions.size === 0 && !anyParked(this.root));
    await Promise.all([...session.tabs.values()].map((t) => this.release(t)));
    for (const l of this.listeners) l({ conversationId, closed: true });
    if (this.book.sessions.size === 0) await this.stopProcess();
    return { closed: true, tabs: n, discarded };
  }

  /**
   * The end of a session (Spec I: browser_close discards its cookies and session): the cookies and storage (local and
   * session storage, IndexedDB, caches, service workers) of every origin its pages reached are cleared in Deskhand's
   * own profile, except origins of a site kept in Settings. `everything`: the last session, so every cookie of a site
   * not kept goes too (whichever conversation's page set it). Never touches the person's own browser (adopted tabs).
   */
  private async discard(session: Session, everything: boolean): Promise<{ sites: string[]; kept: string[] }> {
    const proc = this.proc;
    if (!proc || proc.isClosed) return { sites: [], kept: [] };
    const keep = (this.opts.settings().keepSignedIn ?? []).map((k) => parseKeptSite(k)).flatMap((p) => (p.ok ? [p.site] : []));
    const sites = new Set<string>();
    const kept = new Set<string>();
    const origins = [...session.origins].filter((o) => {
      const host = new URL(o).hostname;
      if (isKeptHost(host, keep)) {
        kept.add(host);
        return false;
      }
      sites.add(host);
      return true;
    });
    const reached = (domain: string) => [...sites].some((h) => { const d = domain.replace(/^\./, ''); return h === d || h.endsWith(`.${d}`); });
    const cookies = await proc.context.cookies().catch(() => []);
    for (const c of cookies) {
      if (isKeptHost(c.domain, keep)) continue;
      if (!everything && !reached(c.domain)) continue;
      await proc.context.clearCookies({ name: c.name, domain: c.domain, path: c.path }).catch(() => undefined);
      sites.add(c.domain.replace(/^\./, ''));
    }
    if (origins.length) {
      // Storage is cleared through the DevTools protocol, on a page of Deskhand's own profile.
      const own = [...session.tabs.values()].find((t) => !t.adopted)?.page;
      const page = own && !own.isClosed() ? own : await proc.context.newPage().catch(() => null);
      if (page) {
        const cdp = await proc.context.newCDPSession(page).catch(() => null);
        for (const origin of origins) {
          await cdp?.send('Storage.clearDataForOrigin', { origin, storageTypes: 'local_storage,session_storage,indexeddb,websql,cache_storage,service_workers,file_systems,shader_cache' }).catch(() => undefined);
        }
        await cdp?.detach().catch(() => undefined);
        if (page !== own) await page.close().catch(() => undefined);
      }
    }
    return { sites: [...sites].sort(), kept: [...kept].sort() };
  }

  private async release(tab: Tab): Promise<void> {
    tab.watch.dispose();
    if (tab.adopted) {
      // The person's tab stays open in their browser; only our connection goes.
      await tab.page.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => undefined);
      await tab.adopted.browser.close().catch(() => undefined);
      return;
    }
    await tab.page.close().catch(() => undefined);
  }

  private stopping: Promise<void> = Promise.resolve();

  private async stopProcess(): Promise<void> {
    const proc = this.proc;
    const proxy = this.proxy;
    this.proc = null;
    this.proxy = null;
    this.destinations.clear();
    if (proc) this.stopping = Promise.all([this.stopping, proc.close()]).then(() => undefined);
    await this.stopping;
    await proxy?.close();
  }

  /** @internal The Playwright page of a tab (benches compare against Playwright on the very same page). */
  pageOf(conversationId: string, tab?: string): Page | null {
    const session = this.book.sessions.get(conversationId);
    return session?.tabs.get(tab ?? session.current ?? '')?.page ?? null;
  }

  approveDestination(conversationId: string, key: string): void {
    this.destinations.approve(conversationId, key);
  }

  destinationApproved(conversationId: string, key: string): boolean {
    return this.destinations.approved(conversationId, key);
  }

  // ── The person's browser ───────────────────────────────────────────────────────────────────────────────────────

  async listAdoptable(endpoint: string): Promise<AdoptableTab[]> {
    const base = endpoint.replace(/\/+$/, '');
    const tabs = await fetchAdoptable(base);
    this.listed.set(base, tabs);
    return tabs;
  }

  lastListed(endpoint: string): AdoptableTab[] | null {
    return this.listed.get(endpoint.replace(/\/+$/, '')) ?? null;
  }

  async adopt(conversationId: string, endpoint: string, target: AdoptableTab): Promise<PageNotes> {
    const session = this.book.session(conversationId);
    const browser = await (await import('playwright-core')).chromium.connectOverCDP(endpoint.replace(/\/+$/, ''), { timeout: 10_000 });
    const found = await findTarget(browser, target.id);
    if (!found) {
      await browser.close().catch(() => undefined);
      throw new Error(`The tab "${target.title}" (${target.url}) is no longer open in that browser.`);
    }
    const name = session.tabs.has('adopted') ? `adopted${++session.counter + 1}` : 'adopted';
    this.book.watchTab(session, name, found, { browser });
    await found.route('**/*', (route) => this.guard(route));
    return this.notes(session, session.tabs.get(name)!);
  }

  // ── Parking ────────────────────────────────────────────────────────────────────────────────────────────────────

  async park(conversationId: string): Promise<void> {
    const session = this.book.sessions.get(conversationId);
    if (!session || session.tabs.size === 0) return;
    const own = [...session.tabs.values()].filter((t) => !t.adopted);
    const parked: Parked = {
      tabs: own.map((t) => ({
        name: t.name,
        url: t.page.url(),
        ...(t.watch.documentMethod !== 'GET' ? { posted: true } : {}),
        ...(t.refs.size ? { outline: hash(t.outline) } : {}),
        typed: t.typed.filter((e) => e.at === t.watch.navigations).map(({ ref, action, value }) => ({ ref, action, value })),
        ...(t.secretRefs.size ? { secrets: [...t.secretRefs] } : {}),
      })),
      current: session.current, approved: this.destinations.list(conversationId) };
    mkdirSync(dirname(parkedPath(this.root, conversationId)), { recursive: true, mode: 0o700 });
    writeFileSync(parkedPath(this.root, conversationId), JSON.stringify(parked), { mode: 0o600 });
    this.book.sessions.delete(conversationId);
    this.destinations.forget(conversationId);
    await Promise.all([...session.tabs.values()].map((t) => this.release(t)));
    for (const l of this.listeners) l({ conversationId, closed: true });
    if (this.book.sessions.size === 0) await this.stopProcess();
  }

  private async unpark(session: Session): Promise<void> {
    if (session.tabs.size > 0) return;
    const parked = readParked(this.root, session.conversationId);
    if (!parked) return;
    clearParked(this.root, session.conversationId);
    for (const key of parked.approved) this.approveDestination(session.conversationId, key);
    const proc = await this.browser();
    const same: string[] = [];
    for (const t of parked.tabs) {
      const tab = this.book.watchTab(session, t.name, await proc.context.newPage());
      // The answer to a form post is not asked for again: that would send the form a second time.
      if (t.posted) {
        session.notes.push(`Tab "${t.name}" showed the answer to a form post (${t.url}); it was not loaded again, so as not to send the form twice.`);
        continue;
      }
      if (t.url && t.url !== 'about:blank') await tab.page.goto(t.url, { waitUntil: 'load', timeout: NAV_TIMEOUT_MS }).catch(() => undefined);
      // What was typed there is typed again (refs of a page reloaded unchanged are the same), secrets excepted.
      if (t.typed?.length && (await this.outline(tab).catch(() => null))) {
        for (const e of t.typed) {
          if (!tab.refs.has(e.ref)) break;
          const ok = await this.act(session.conversationId, { ref: e.ref, action: e.action, value: e.value }, t.name).then(
            () => true,
            () => false,
          );
          if (!ok) break;
        }
      }
      // The same page again (same outline): its refs are the same, and stay valid.
      if (t.outline && (await this.outline(tab).catch(() => null)) && hash(tab.outline) === t.outline) same.push(t.name);
      else tab.refs.clear();
    }
    session.current = parked.current && session.tabs.has(parked.current) ? parked.current : (session.tabs.keys().next().value ?? null);
    const list = parked.tabs.map((t) => `"${t.name}" ${t.url}`).join(', ');
    const others = parked.tabs.filter((t) => !same.includes(t.name));
    session.notes.push(
      `The browser was closed while this run waited, and the pages were reloaded (${list}): what you had typed there (secrets excepted) was typed again. ` +
        (same.length ? `The page${same.length > 1 ? 's' : ''} ${same.map((n) => `"${n}"`).join(', ')} look${same.length > 1 ? '' : 's'} as before, so ${same.length > 1 ? 'their' : 'its'} refs still hold. ` : '') +
        (others.length ? `Take a new browser_snapshot of ${others.map((t) => `"${t.name}"`).join(', ')} before acting there.` : '') +
        (parked.tabs.some((t) => t.secrets?.length) ? ' Secrets typed before were not kept: type them again.' : ''),
    );
  }

  // ── UI and lifetime ────────────────────────────────────────────────────────────────────────────────────────────

  sessions(): SessionView[] {
    return [...this.book.sessions.values()].flatMap((s) => {
      const tab = s.tabs.get(s.current ?? '');
      return tab ? [{ conversationId: s.conversationId, tab: tab.name, url: tab.page.url(), title: this.shots.get(s.conversationId)?.title ?? '', tabs: s.tabs.size, shot: this.shots.get(s.conversationId)?.shot ?? null }] : [];
    });
  }

  onChange(listener: (view: SessionView | { conversationId: string; closed: true }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readonly shots = new Map<string, { title: string; shot: string | null }>();

  /** Tells listeners (the UI) where the session is, with a small screenshot; skipped when nobody listens. */
  private changed(session: Session): void {
    if (!this.listeners.size) return;
    const tab = session.tabs.get(session.current ?? '');
    if (!tab) return;
    void (async () => {
      const title = await tab.page.title().catch(() => '');
      const mask = [...tab.secretRefs].map((r) => tab.page.locator(`aria-ref=${r}`));
      const jpeg = await tab.page.screenshot({ type: 'jpeg', quality: 40, scale: 'css', mask, timeout: 5_000 }).catch(() => null);
      const shot = jpeg ? `data:image/jpeg;base64,${jpeg.toString('base64')}` : null;
      this.shots.set(session.conversationId, { title, shot });
      if (this.book.sessions.get(session.conversationId) !== session) return;
      for (const l of this.listeners) l({ conversationId: session.conversationId, tab: tab.name, url: tab.page.url(), title, tabs: session.tabs.size, shot });
    })();
  }

  async shutdown(): Promise<void> {
    for (const s of [...this.book.sessions.values()]) for (const t of s.tabs.values()) if (t.adopted) await t.adopted.browser.close().catch(() => undefined);
    if (this.starting) await this.starting.catch(() => undefined);
    // Quitting ends the open sessions as browser_close would (a parked one was closed already, its sign-ins kept for the resume).
    for (const s of [...this.book.sessions.values()]) await this.discard(s, false).catch(() => undefined);
    this.book.sessions.clear();
    await this.stopProcess();
  }
}
