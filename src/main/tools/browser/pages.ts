/**
 * browser_navigate, browser_back, browser_snapshot, browser_screenshot, browser_tabs and browser_close. Everything a
 * page says comes back in the untrusted envelope. Navigation is egress: its URL is judged by the url-guard inspector
 * (a private destination asks), and a destination a person approved is covered for the rest of that conversation's
 * browser session (only that conversation's: another conversation asks again).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { clearedDestinations, grantFor, parseWebUrl } from '../../../shared/url-guard';
import { defineTool, type Effects, type ToolContext } from '../../runtime/tool';
import type { BrowserService, PageInfo, PageNotes } from '../../services/browser/index';

export interface PagesDeps {
  browser: BrowserService;
  dataDir: string;
  urlGrants: () => readonly string[];
  resolve(host: string): Promise<string[]>;
}

const tabParam = z.string().min(1).max(40).regex(/^[\w.-]+$/, 'letters, digits, _ . -').optional();

/** Runs a browser step, turning its failures into messages the model can act on. */
export async function step<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw new ToolError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function pageLines(p: PageInfo & { notes?: string[] }): string[] {
  return [`Tab: ${p.tab}`, `URL: ${p.url}`, `Title: ${p.title || '(none)'}`, ...(p.notes ?? []).map((n) => `Note: ${n}`)];
}

/** The effects of contacting a URL from the browser: judged by url-guard unless this session already cleared it. */
export async function navigationEffects(deps: PagesDeps, url: string, conversationId: string | undefined): Promise<Effects> {
  const parsed = parseWebUrl(url);
  const base: Effects = { egress: true, network: true, processes: true };
  if (parsed.ok && conversationId && deps.browser.destinationApproved(conversationId, parsed.dest.key)) return base;
  const addresses: Record<string, string[]> = {};
  if (parsed.ok) {
    const found = await deps.resolve(parsed.dest.host).catch(() => []);
    if (found.length) addresses[parsed.dest.host] = found;
  }
  return { ...base, urls: [url], addresses };
}

/**
 * After a person approved a private destination (or a URL grant names it), this conversation's browser session may
 * reach it; other conversations are not covered.
 */
export function clearApproved(deps: PagesDeps, ctx: ToolContext, url: string): void {
  if (ctx.approvedByPerson) for (const key of clearedDestinations(ctx.decisionReasons ?? []).keys()) deps.browser.approveDestination(ctx.conversationId, key);
  const parsed = parseWebUrl(url);
  if (parsed.ok && grantFor(deps.urlGrants(), parsed.dest, true)) deps.browser.approveDestination(ctx.conversationId, parsed.dest.key);
}

const untrusted = (p: PageInfo) => `browser ${p.url}`;

export function createNavigate(deps: PagesDeps) {
  return defineTool({
    name: 'browser_navigate',
    description:
      'Open an http(s) URL in your browser tab and return its URL and title (then read it with browser_snapshot). `tab` names the tab ' +
      '(default: the current one; a new name opens a new tab). A page on this machine or its network asks a person first; once approved, ' +
      'that host:port is covered for the rest of the browser session.',
    params: () => z.object({ url: z.string().min(1).max(8192).describe('The http(s) URL to open.'), tab: tabParam.describe('Tab name (a new name opens a new tab).') }).strict(),
    risk: 'low-risk',
    disclosure: 'private',
    facts: { sendsOut: true },
    effects: (args, ectx) => navigationEffects(deps, args.url, ectx.conversationId),
    presentation: { title: 'Open a web page', icon: 'browser', summary: (a) => a.url },
    timeoutMs: 90_000,
    async execute(args, ctx) {
      const parsed = parseWebUrl(args.url);
      if (!parsed.ok) throw new ToolError(`Not opened: ${parsed.reason}. Give an http(s) URL.`);
      clearApproved(deps, ctx, args.url);
      const p = await step(`Could not open ${args.url}`, () => deps.browser.navigate(ctx.conversationId, args.url, args.tab));
      return { output: [...pageLines(p), '', 'Read the page with browser_snapshot.'].join('\n'), untrustedSource: untrusted(p) };
    },
  });
}

export function createBack(deps: PagesDeps) {
  return defineTool({
    name: 'browser_back',
    description: "Go back one page in a tab's history (default: the current tab). Refs of the earlier snapshot are no longer valid.",
    params: () => z.object({ tab: tabParam.describe('Tab name (default: the current tab).') }).strict(),
    risk: 'low-risk',
    disclosure: 'private',
    effects: () => ({ egress: true, network: true }),
    presentation: { title: 'Go back', icon: 'browser', summary: (a) => a.tab ?? '' },
    timeoutMs: 60_000,
    async execute(args, ctx) {
      const p = await step('Could not go back', () => deps.browser.back(ctx.conversationId, args.tab));
      return { output: pageLines(p).join('\n'), untrustedSource: untrusted(p) };
    },
  });
}

export function createSnapshot(deps: PagesDeps) {
  return defineTool({
    name: 'browser_snapshot',
    description:
      'Read the page of a tab as a text outline (its accessibility tree, iframes included). Every element you can act on carries a ref in ' +
      'brackets, as `[e12] button "Sign in"`; pass it to browser_act. Refs are valid until the next snapshot or navigation. Long text is cut.',
    params: () => z.object({ tab: tabParam.describe('Tab name (default: the current tab).') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Read the page', icon: 'browser', summary: (a) => a.tab ?? '' },
    timeoutMs: 60_000,
    async execute(args, ctx) {
      const s = await step('Could not read the page', () => deps.browser.snapshot(ctx.conversationId, args.tab));
      const head = [...pageLines(s), `Refs: ${s.refs}${s.cut ? ` · ${s.cut} characters cut` : ''}`];
      // The runtime redacts every result (secrets typed into fields included) before anyone sees it.
      return { output: `${head.join('\n')}\n\n${s.outline}`, untrustedSource: untrusted(s) };
    },
  });
}

export function createScreenshot(deps: PagesDeps) {
  return defineTool({
    name: 'browser_screenshot',
    description:
      'Save a PNG of a tab (the visible part, the full page with full_page, or one element by ref) and return its path. Fields filled with ' +
      'a secret are masked.',
    params: () => z
      .object({
        tab: tabParam.describe('Tab name (default: the current tab).'),
        ref: z.string().regex(/^(f\d+)?e\d+$/).optional().describe('Only this element (a ref of the latest snapshot).'),
        full_page: z.boolean().optional().describe('The whole scrollable page instead of the visible part.'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'private',
    presentation: { title: 'Screenshot the page', icon: 'browser', summary: (a) => a.ref ?? (a.full_page ? 'full page' : '') },
    timeoutMs: 60_000,
    async execute(args, ctx) {
      const path = join(deps.dataDir, 'browser', 'screenshots', ctx.conversationId.replace(/[^\w.-]/g, '_'), `${Date.now()}-${ctx.callId.replace(/[^\w.-]/g, '_').slice(0, 40)}.png`);
      const shot = await step('Could not take the screenshot', () =>
        deps.browser.screenshot(ctx.conversationId, { path, ...(args.tab ? { tab: args.tab } : {}), ...(args.ref ? { ref: args.ref } : {}), fullPage: !!args.full_page }),
      );
      return { output: [...pageLines(shot), `Screenshot: ${shot.path} (${shot.bytes} bytes, PNG)`].join('\n'), untrustedSource: untrusted(shot) };
    },
  });
}

export function createTabs(deps: PagesDeps) {
  return defineTool({
    name: 'browser_tabs',
    description:
      "List, open, switch between, or close your browser tabs. `new` opens a blank tab (optionally named); `select` makes a tab current; `close` closes one (default: the current). `list` only reads.",
    params: () => z.object({ action: z.enum(['list', 'new', 'select', 'close']), name: tabParam.describe('The tab to open, select or close.') }).strict(),
    risk: 'low-risk',
    disclosure: 'private',
    effects: (args) => (args.action === 'list' ? { assessment: { risk: 'read-only', reasons: ['listing tabs only reads'] } } : {}),
    presentation: { title: 'Browser tabs', icon: 'browser', summary: (a) => `${a.action}${a.name ? ` ${a.name}` : ''}` },
    async execute(args, ctx) {
      const r = await step(`Could not ${args.action} the tab`, () => deps.browser.tabs(ctx.conversationId, args.action, args.name));
      const lines = r.tabs.map((t) => `${t.tab === r.current ? '*' : ' '} ${t.tab}: ${t.title || '(no title)'} — ${t.url}`);
      const out = [lines.length ? `Tabs (* current):\n${lines.join('\n')}` : 'No tabs are open.', ...r.notes.map((n) => `Note: ${n}`)].join('\n');
      return { output: out, untrustedSource: 'browser tabs' };
    },
  });
}

export function createClose(deps: PagesDeps) {
  return defineTool({
    name: 'browser_close',
    description:
      'Close your browser session and discard its cookies and storage: its tabs close (an adopted tab is handed back to the person, not closed), ' +
      'every site it visited is signed out (except sites the person keeps signed in, in Settings → Browser), and the browser stops when no ' +
      'conversation uses it. Call it when the web task is done.',
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Close the browser', icon: 'browser' },
    async execute(_args, ctx) {
      const r = await deps.browser.close(ctx.conversationId);
      if (!r.closed) return { output: 'No browser session was open.' };
      const gone = r.discarded.sites.length ? ` Discarded the cookies and storage of ${r.discarded.sites.join(', ')}.` : ' No site had set cookies or storage.';
      const kept = r.discarded.kept.length ? ` Kept signed in (Settings → Browser): ${r.discarded.kept.join(', ')}.` : '';
      return { output: `Closed the browser session (${r.tabs} tab${r.tabs === 1 ? '' : 's'}).${gone}${kept}` };
    },
  });
}

export type { PageNotes };
