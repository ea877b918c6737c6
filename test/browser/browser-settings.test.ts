/**
 * The browser as Settings shape it: headless by default and headed when `browser.headless` is false (the process
 * table shows which Chromium ran); closing a session discards its cookies and storage (Spec I: the next session's
 * requests carry no cookie, the server's log shows), except for the sites kept signed in (`browser.keepSignedIn`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlaywrightBrowser } from '../../src/main/services/browser/playwright-browser';
import { processesUsingProfile } from '../../src/main/services/browser/browser-process';
import { findChromium } from '../../src/main/services/chromium/index';
import { tempDir } from '../support/tool-context';
import { startSite, type Site } from './site';

let site: Site;
let dataDir: string;
let browser: PlaywrightBrowser | null = null;
const profile = () => join(dataDir, 'browser', 'profiles', 'default');
const cmdlines = () => processesUsingProfile(profile()).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));

beforeEach(async () => {
  site = await startSite();
  dataDir = tempDir('deskhand-browser-settings-');
});
afterEach(async () => {
  await browser?.shutdown();
  browser = null;
  await site.close();
});

function open(headless: boolean): PlaywrightBrowser {
  browser = new PlaywrightBrowser({ dataDir, settings: () => ({ headless }) });
  browser.approveDestination('conv_a', `127.0.0.1:${site.port}`);
  return browser;
}

describe.skipIf(!findChromium() || process.platform !== 'linux')('browser settings', () => {
  it('runs headless by default, and browser_close discards the session: the next one is signed out (no cookie reaches the server, storage is empty)', async () => {
    const b = open(true);
    await b.navigate('conv_a', `${site.origin}/login`);
    const main = cmdlines().find((argv) => argv.some((a) => a.startsWith('--user-data-dir=')));
    expect(main, 'the browser process of this profile').toBeTruthy();
    expect(main!.some((a) => a.startsWith('--headless'))).toBe(true);
    await b.pageOf('conv_a')!.evaluate("document.cookie = 'seen=yes; max-age=3600; path=/'");
    // Positive control: while the session lasts the cookies are sent.
    await b.navigate('conv_a', `${site.origin}/whoami`);
    expect(site.cookiesSeen.at(-1)?.cookie).toContain('sid=signed-in');
    expect(await b.pageOf('conv_a')!.evaluate("localStorage.getItem('draft')")).toBe('kept locally');
    const closed = await b.close('conv_a');
    expect(closed.discarded).toEqual({ sites: ['127.0.0.1'], kept: [] });
    await expect.poll(() => processesUsingProfile(profile()).length, { timeout: 20_000 }).toBe(0);

    // A new browser process is a new browser session: the loopback approval is asked for again (and given here).
    b.approveDestination('conv_b', `127.0.0.1:${site.port}`);
    await b.navigate('conv_b', `${site.origin}/whoami`);
    expect(site.cookiesSeen.at(-1)).toEqual({ host: `127.0.0.1:${site.port}`, cookie: undefined });
    const again = b.pageOf('conv_b')!;
    expect(await again.evaluate('document.cookie')).toBe('');
    expect(await again.evaluate("localStorage.getItem('draft')")).toBeNull();
  });

  it('keeps the sign-in of a site kept in Settings (subdomains too) and discards the others', async () => {
    const keepSignedIn = ['kept.test'];
    const names: Record<string, string[]> = { 'kept.test': ['127.0.0.1'], 'mail.kept.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] };
    const b = (browser = new PlaywrightBrowser({ dataDir, settings: () => ({ headless: true, keepSignedIn }), resolve: async (h) => names[h] ?? [] }));
    const urls = Object.keys(names).map((h) => `http://${h}:${site.port}`);
    for (const h of Object.keys(names)) b.approveDestination('conv_a', `${h}:${site.port}`);
    for (const u of urls) await b.navigate('conv_a', `${u}/login`);
    const closed = await b.close('conv_a');
    expect(closed.discarded).toEqual({ sites: ['other.test'], kept: ['kept.test', 'mail.kept.test'] });
    await expect.poll(() => processesUsingProfile(profile()).length, { timeout: 20_000 }).toBe(0);

    for (const h of Object.keys(names)) b.approveDestination('conv_b', `${h}:${site.port}`); // a new browser session asks again
    for (const u of urls) await b.navigate('conv_b', `${u}/whoami`);
    const seen = Object.fromEntries(site.cookiesSeen.map((c) => [c.host.replace(/:\d+$/, ''), c.cookie]));
    expect(seen).toEqual({ 'kept.test': 'sid=signed-in', 'mail.kept.test': 'sid=signed-in', 'other.test': undefined });
    await b.navigate('conv_b', `${urls[0]}/a`);
    expect(await b.pageOf('conv_b')!.evaluate("localStorage.getItem('draft')")).toBe('kept locally');
    await b.navigate('conv_b', `${urls[2]}/a`);
    expect(await b.pageOf('conv_b')!.evaluate("localStorage.getItem('draft')")).toBeNull();
  });

  it.skipIf(!process.env.DISPLAY)('runs headed when Settings say so (needs an X display)', async () => {
    const b = open(false);
    await b.navigate('conv_a', `${site.origin}/a`);
    const main = cmdlines().find((argv) => argv.some((a) => a.startsWith('--user-data-dir=')));
    expect(main, 'the browser process of this profile').toBeTruthy();
    expect(main!.some((a) => a.startsWith('--headless'))).toBe(false);
    expect(await b.pageOf('conv_a')!.title()).toBe('Page A');
  });
});
