/**
 * The browser as Settings shape it: headless by default and headed when `browser.headless` is false (the process
 * table shows which Chromium ran), and the agent's profile persists in the data dir between sessions (a cookie set in
 * one browser process is there in the next).
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
  it('runs headless by default, and keeps the profile (cookies) between browser processes', async () => {
    const b = open(true);
    await b.navigate('conv_a', `${site.origin}/a`);
    const main = cmdlines().find((argv) => argv.some((a) => a.startsWith('--user-data-dir=')));
    expect(main, 'the browser process of this profile').toBeTruthy();
    expect(main!.some((a) => a.startsWith('--headless'))).toBe(true);
    await b.pageOf('conv_a')!.evaluate("document.cookie = 'seen=yes; max-age=3600; path=/'");
    await b.close('conv_a');
    await expect.poll(() => processesUsingProfile(profile()).length, { timeout: 20_000 }).toBe(0);

    // A new browser process is a new browser session: the loopback approval is asked for again (and given here).
    b.approveDestination('conv_b', `127.0.0.1:${site.port}`);
    await b.navigate('conv_b', `${site.origin}/b`);
    const again = b.pageOf('conv_b')!;
    expect(again.url()).toBe(`${site.origin}/b`);
    expect(await again.evaluate('document.cookie')).toContain('seen=yes');
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
