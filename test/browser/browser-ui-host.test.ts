/**
 * The browser session as the UI sees it (AppService over the real runtime and Chromium): `browserChanged` pushes the
 * current page's title and URL with a JPEG screenshot for the strip, `getBrowserSession` answers the same, and Stop
 * (`closeBrowserSession`) closes the session — the process table has no Chromium of the profile afterwards — and
 * pushes `session: null`.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processesUsingProfile } from '../../src/main/services/browser/browser-process';
import { findChromium } from '../../src/main/services/chromium/index';
import { openHarness, type Harness } from '../host/helpers';
import { tempDir } from '../support/tool-context';
import { startSite, type Site } from './site';

let site: Site;
let h: Harness;
let dataDir: string;

beforeEach(async () => {
  site = await startSite();
  dataDir = tempDir('deskhand-data-');
  h = openHarness({ dataDir });
});
afterEach(async () => {
  await h.runtime.shutdownServices();
  h.close();
  await site.close();
});

describe.skipIf(!findChromium())('browser session in the UI', () => {
  it('pushes the page with a screenshot, and Stop closes the session and its process', async () => {
    const conv = h.runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
    const browser = h.runtime.browser!;
    browser.approveDestination(conv.id, `127.0.0.1:${site.port}`);
    await browser.navigate(conv.id, `${site.origin}/a`);
    const pushed = await h.waitFor((e) => e.event === 'browserChanged' && e.payload.session?.title === 'Page A' && e.payload);
    expect(pushed).toMatchObject({ conversationId: conv.id, session: { tab: 'main', url: `${site.origin}/a`, title: 'Page A', tabs: 1 } });
    expect(pushed.session!.shot).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect((await h.service.getBrowserSession({ conversationId: conv.id })).session).toMatchObject({ url: `${site.origin}/a`, title: 'Page A' });

    expect(await h.service.closeBrowserSession({ conversationId: conv.id })).toEqual({ ok: true });
    await h.waitFor((e) => e.event === 'browserChanged' && e.payload.conversationId === conv.id && e.payload.session === null);
    expect((await h.service.getBrowserSession({ conversationId: conv.id })).session).toBeNull();
    expect(processesUsingProfile(join(dataDir, 'browser', 'profiles'))).toEqual([]);
  }, 60_000);
});
