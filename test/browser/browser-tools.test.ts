/**
 * The browser family against a local site in a real Chromium (Debian's /usr/bin/chromium, headless): forms filled by
 * refs (the server receives exactly the values), navigation and back, tabs (a page's new tab joins the session), a
 * confirm dialog, an iframe, an upload, a change that arrives after a delayed request, a private destination the
 * session did not approve (blocked, the server never sees it), secrets only on https or loopback, and closing ends
 * the Chromium process group.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { PlaywrightBrowser } from '../../src/main/services/browser/playwright-browser';
import { processesUsingProfile } from '../../src/main/services/browser/browser-process';
import { findChromium } from '../../src/main/services/chromium/index';
import { createBrowserFamily } from '../../src/main/tools/browser';
import { makeContext, tempDir, type TestContext } from '../support/tool-context';
import { startServer, type TestServer } from '../web/servers';
import { SLOW_PAGE_MS, startSite, type Site } from './site';

const chromium = findChromium();
let site: Site;
let other: TestServer;
let dataDir: string;
let work: string;
let browser: PlaywrightBrowser;
let tools: Map<string, ToolDefinition>;
let ctx: TestContext;

beforeAll(async () => {
  site = await startSite();
  other = await startServer((_req, res) => res.end('<title>Other</title>secret admin'));
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
  // site.test is this machine too, by a name only the browser's egress proxy resolves: an http page that is neither https nor loopback.
  browser = new PlaywrightBrowser({ dataDir, settings: () => ({ headless: true }), resolve: async (h) => (h === 'site.test' ? ['127.0.0.1'] : []) });
  const family = createBrowserFamily({ browser, dataDir, urlGrants: () => [], endpoint: () => undefined, resolve: async () => [] });
  tools = new Map(family.tools.map((t) => [t.name, t]));
  ctx = makeContext(work, { dataDir });
  // The person approved this site's host:port for the session (the url-guard flow is tested through the runtime).
  browser.approveDestination(ctx.conversationId, `127.0.0.1:${site.port}`);
  browser.approveDestination(ctx.conversationId, `site.test:${site.port}`);
}, 60_000);
afterAll(async () => {
  await browser?.shutdown();
  await Promise.all([site?.close(), other?.close()]);
});

async function call(name: string, args: Record<string, unknown>): Promise<string> {
  const tool = tools.get(name)!;
  const parsed = tool.params.parse(args);
  return (await tool.execute(parsed, ctx)).output;
}

/** The ref of the first outline line matching `re`. */
function ref(outline: string, re: RegExp): string {
  const line = outline.split('\n').find((l) => re.test(l));
  const m = line && /\[((?:f\d+)?e\d+)\]/.exec(line);
  if (!m) throw new Error(`no ref for ${re} in:\n${outline}`);
  return m[1]!;
}

describe.skipIf(!chromium)('browser tools in Chromium', () => {
  it('fills a form by refs and the server receives exactly the values', async () => {
    const nav = await call('browser_navigate', { url: `${site.origin}/form` });
    expect(nav).toContain('Title: Sign up');
    const snap = await call('browser_snapshot', {});
    expect(snap).toMatch(/\[e\d+\] textbox "Full name"/);
    expect(snap).toMatch(/\[e\d+\] button "Send"/);
    await call('browser_act', { ref: ref(snap, /textbox "Full name"/), action: 'fill', value: 'Ada Lovelace' });
    await call('browser_act', { ref: ref(snap, /combobox/), action: 'select', value: 'Green' });
    const checked = await call('browser_act', { ref: ref(snap, /checkbox "I agree"/), action: 'check' });
    expect(checked).toMatch(/\+ .*checkbox "I agree" \[checked\]/);
    const sent = await call('browser_act', { ref: ref(snap, /button "Send"/), action: 'click' });
    expect(sent).toContain('The page navigated');
    expect(sent).toContain('Thanks, Ada Lovelace');
    expect(site.submissions).toHaveLength(1);
    expect(Object.fromEntries(site.submissions[0]!)).toEqual({ name: 'Ada Lovelace', password: '', colour: 'Green', terms: 'yes' });
  });

  it('refuses refs that are not in the latest snapshot, with a way forward', async () => {
    await call('browser_navigate', { url: `${site.origin}/a` });
    await expect(call('browser_act', { ref: 'e999', action: 'click' })).rejects.toThrow(/Call browser_snapshot/);
  });

  it('navigates by a link and goes back', async () => {
    await call('browser_navigate', { url: `${site.origin}/a` });
    const snap = await call('browser_snapshot', {});
    const went = await call('browser_act', { ref: ref(snap, /link "Go to B"/), action: 'click' });
    expect(went).toContain(`URL: ${site.origin}/b`);
    expect(went).toContain('+ heading "Page B"');
    const back = await call('browser_back', {});
    expect(back).toContain(`URL: ${site.origin}/a`);
    expect(back).toContain('Title: Page A');
  });

  it('keeps tabs: a link opening a new tab joins the session, tabs can be listed, selected and closed', async () => {
    await call('browser_navigate', { url: `${site.origin}/a` });
    const snap = await call('browser_snapshot', {});
    const opened = await call('browser_act', { ref: ref(snap, /link "B in a new tab"/), action: 'click' });
    expect(opened).toMatch(/opened a new tab "tab\d+"/);
    let list = await call('browser_tabs', { action: 'list' });
    expect(list).toMatch(/\* tab\d+: Page B/);
    expect(list).toMatch(/ {2}main: Page A/);
    await call('browser_tabs', { action: 'select', name: 'main' });
    await call('browser_navigate', { url: `${site.origin}/frame`, tab: 'second' });
    list = await call('browser_tabs', { action: 'list' });
    expect(list).toMatch(/\* second: Frame/);
    const closed = await call('browser_tabs', { action: 'close', name: 'second' });
    expect(closed).not.toContain('second');
    await expect(call('browser_snapshot', { tab: 'second' })).rejects.toThrow(/no tab "second"/);
  });

  it('answers a confirm dialog as asked and reports it', async () => {
    await call('browser_navigate', { url: `${site.origin}/dialog`, tab: 'main' });
    let snap = await call('browser_snapshot', {});
    const dismissed = await call('browser_act', { ref: ref(snap, /button "Delete"/), action: 'click' });
    expect(dismissed).toContain('A confirm dialog said "Delete everything?"; it was dismissed.');
    expect(dismissed).toContain('cancelled');
    snap = await call('browser_snapshot', {});
    const accepted = await call('browser_act', { ref: ref(snap, /button "Delete"/), action: 'click', dialog: 'accept' });
    expect(accepted).toContain('it was accepted');
    expect(accepted).toContain('+ paragraph: confirmed');
  });

  it('acts inside an iframe by its refs', async () => {
    await call('browser_navigate', { url: `${site.origin}/frame` });
    const snap = await call('browser_snapshot', {});
    const inner = ref(snap, /button "Press inside"/);
    expect(inner).toMatch(/^f\d+e\d+$/);
    const out = await call('browser_act', { ref: inner, action: 'click' });
    expect(out).toMatch(/\+ \[f\d+e\d+\] button "Pressed inside"/);
  });

  it('uploads a file and the server receives its bytes', async () => {
    writeFileSync(join(work, 'report.txt'), 'quarterly numbers 1234');
    await call('browser_navigate', { url: `${site.origin}/upload` });
    const snap = await call('browser_snapshot', {});
    await call('browser_act', { ref: ref(snap, /button "File"/), action: 'upload', value: 'report.txt' });
    await call('browser_act', { ref: ref(snap, /button "Upload"/), action: 'click' });
    expect(site.uploads).toHaveLength(1);
    expect(site.uploads[0]).toContain('filename="report.txt"');
    expect(site.uploads[0]).toContain('quarterly numbers 1234');
  });

  it('declares the reads of an upload and the workspace downloads folder of a click, for the path guard and the approval', async () => {
    const act = tools.get('browser_act')!;
    const effects = (args: Record<string, unknown>) => act.effects!(act.params.parse(args), { cwd: work, conversationId: ctx.conversationId } as never);
    expect((await effects({ ref: 'e1', action: 'upload', value: 'report.txt\n/etc/shadow' })).paths).toEqual({ read: [join(work, 'report.txt'), '/etc/shadow'] });
    expect((await effects({ ref: 'e1', action: 'click' })).paths).toEqual({ write: [join(work, 'downloads')] });
    expect((await effects({ ref: 'e1', action: 'hover' })).paths).toBeUndefined();
  });

  it('saves a download a click starts into the workspace, and cancels one nobody asked for', async () => {
    await call('browser_navigate', { url: `${site.origin}/files` });
    const snap = await call('browser_snapshot', {});
    const first = await call('browser_act', { ref: ref(snap, /link "Get the report"/), action: 'click' });
    const saved = join(work, 'downloads', 'report.csv');
    await expect.poll(() => existsSync(saved) && readFileSync(saved, 'utf8'), { timeout: 20_000 }).toBe('region,total\nnorth,42\n');
    // The note comes with this act or, when the download finished after the page settled, with the next call.
    const later = await call('browser_tabs', { action: 'list' });
    expect(`${first}\n${later}`).toContain(`Downloaded report.csv to ${saved}`);
    // A download the page starts on its own (here: a navigation straight to the file) is not saved; the note comes with
    // the navigation or with a later call, depending on when Chromium reports the download.
    let notes = await call('browser_navigate', { url: `${site.origin}/files/report.csv` }).catch((e: unknown) => String(e));
    for (let i = 0; i < 20 && !/offered a download/.test(notes); i++) {
      await new Promise((r) => setTimeout(r, 250));
      notes += await call('browser_tabs', { action: 'list' });
    }
    expect(notes).toMatch(/offered a download \(report\.csv\); it was not saved/);
    expect(existsSync(join(work, 'downloads', 'report (2).csv'))).toBe(false);
  });

  it('waits for a change that arrives after a delayed request', async () => {
    await call('browser_navigate', { url: `${site.origin}/delayed` });
    const snap = await call('browser_snapshot', {});
    const out = await call('browser_act', { ref: ref(snap, /button "Load"/), action: 'click' });
    expect(out).toContain('+ paragraph: "Loaded: 42"'.replace(/"/g, '')); // the settled diff has the late content
  });

  it.each([
    ['a link', /link "Slow page"/],
    ['a click that navigates from a timer it set', /button "Go later"/],
  ])('waits for a slow navigation started by %s, and returns the new page', async (_what, target) => {
    await call('browser_navigate', { url: `${site.origin}/to-slow` });
    const snap = await call('browser_snapshot', {});
    const out = await call('browser_act', { ref: ref(snap, target), action: 'click' });
    expect(out).toContain(`${site.origin}/slow-page`);
    expect(out).toContain('Title: Arrived');
    expect(out).toContain('+ heading "Slow page arrived"');
  }, SLOW_PAGE_MS * 2 + 30_000);

  it('a click that changes nothing returns the page as it is', async () => {
    await call('browser_navigate', { url: `${site.origin}/counter` });
    const snap = await call('browser_snapshot', {});
    const out = await call('browser_act', { ref: ref(snap, /button "Add one"/), action: 'click' });
    expect(out).toContain(`${site.origin}/counter`);
    expect(out).toMatch(/\+ paragraph: 1/);
  });

  it('blocks a navigation to a private destination this session did not approve', async () => {
    const before = other.log.length;
    const out = await call('browser_navigate', { url: `${other.origin}/admin` });
    expect(out).toContain('was blocked');
    expect(other.log.length).toBe(before);
  });

  it('types a secret only on https or loopback pages, and screenshots mask it', async () => {
    await call('browser_navigate', { url: `${site.origin}/form` });
    const snap = await call('browser_snapshot', {});
    const secretCtx = { ...ctx, redact: (t: string) => t.replace(/hunter2/g, '[redacted:PW]') };
    const tool = tools.get('browser_act')!;
    const out = await tool.execute(tool.params.parse({ ref: ref(snap, /textbox "Full name"/), action: 'fill', value: 'hunter2' }), secretCtx);
    expect(out.output).not.toContain('hunter2');
    const shot = await call('browser_screenshot', {});
    expect(shot).toMatch(/Screenshot: .*\.png \(\d+ bytes, PNG\)/);
    expect(readFileSync(/Screenshot: (\S+)/.exec(shot)![1]!).subarray(1, 4).toString()).toBe('PNG');

    // On a plain-http page of another host the secret is not typed.
    await call('browser_navigate', { url: `http://site.test:${site.port}/form` });
    const plain = await call('browser_snapshot', {});
    const field = ref(plain, /textbox "Full name"/);
    await expect(tool.execute(tool.params.parse({ ref: field, action: 'fill', value: 'hunter2' }), secretCtx)).rejects.toThrow(/only into https pages/);
    expect(await call('browser_snapshot', {})).toMatch(/textbox "Full name"\n/);
  });

  it("adopts a tab of the person's own Chromium only after they pick it, and hands it back on close", async () => {
    const profile = tempDir('deskhand-person-');
    const person = spawn(chromium!.path, ['--headless=new', '--no-sandbox', '--remote-debugging-port=0', `--user-data-dir=${profile}`, `${site.origin}/b`], { stdio: 'ignore' });
    try {
      const portFile = join(profile, 'DevToolsActivePort');
      // The file can exist before its port is written into it: wait for a number (a loaded machine is slow).
      const port = () => (existsSync(portFile) ? /^\d+$/.exec(readFileSync(portFile, 'utf8').split('\n')[0] ?? '')?.[0] : undefined);
      for (let i = 0; i < 300 && !port(); i++) await new Promise((r) => setTimeout(r, 100));
      const endpoint = `http://127.0.0.1:${port()}`;
      // The person's page has loaded (its title is listed).
      for (let i = 0; i < 100; i++) {
        const listed = (await (await fetch(`${endpoint}/json/list`)).json()) as { title: string }[];
        if (listed.some((t) => t.title === 'Page B')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const adopt = tools.get('browser_adopt_tab')!;
      const args = adopt.params.parse({ endpoint, reason: 'to read page B' });
      // The effects list the person's tabs for the request; the model never sees them.
      await adopt.effects!(args, { cwd: work, workspaceRoots: [work], dataDir, conversationId: ctx.conversationId });
      const request = adopt.input!(args)!;
      expect(request.kind).toBe('browser_tab');
      expect(request.prompt).toMatch(/1\. Page B — http:\/\/127\.0\.0\.1:\d+\/b/);
      const family = createBrowserFamily({ browser, dataDir, urlGrants: () => [], endpoint: () => undefined, resolve: async () => [] });
      const kind = family.inputKinds.find((k) => k.kind === 'browser_tab')!;
      expect(() => kind.accept({ tab: 7 }, request.data)).toThrow(/pick a number from 1 to 1/);
      const answer = await kind.accept({ tab: 1 }, request.data);
      const out = (await adopt.execute(args, { ...ctx, answer })).output;
      expect(out).toContain('Title: Page B');
      expect(out).toContain('as "adopted"');
      expect(await call('browser_snapshot', { tab: 'adopted' })).toContain('heading "Page B"');
      await call('browser_close', {});
      // The person's browser and its tab are still there.
      expect(person.exitCode).toBeNull();
      const tabs = (await (await fetch(`${endpoint}/json/list`)).json()) as { url: string }[];
      expect(tabs.map((t) => t.url)).toContain(`${site.origin}/b`);
    } finally {
      person.kill('SIGKILL');
    }
  });

  it('closing the session ends the Chromium process', async () => {
    await call('browser_navigate', { url: `${site.origin}/a` });
    expect(processesUsingProfile(join(dataDir, 'browser', 'profiles')).length).toBeGreaterThan(0);
    expect(await call('browser_close', {})).toMatch(/Closed the browser session/);
    expect(processesUsingProfile(join(dataDir, 'browser', 'profiles'))).toEqual([]);
  });
});
