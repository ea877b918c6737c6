/**
 * The main window and its session, as the real shell sets them up on the fake Electron: web preferences, the app://
 * protocol (CSP, traversal), permissions, navigation, window.open and <webview>.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_URL, CSP } from '../../src/main/electron/app-protocol';
import { tempDir } from '../support/tool-context';
import { build, launch, quitApp, type Launched } from './harness';
import { fake, protocol, settle } from './fake-electron';

let app: Launched;

beforeEach(async () => {
  app = await launch();
});

afterEach(async () => {
  await quitApp();
});

describe('the main window', () => {
  it('is sandboxed, isolated, without Node or <webview>, loads app://deskhand/ and runs the preload', async () => {
    const win = await app.window();
    expect(fake.windows).toHaveLength(1);
    expect(win.options.webPreferences).toMatchObject({
      preload: build().preload,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
    });
    expect(win.webContents.getURL()).toBe(APP_URL);
    expect(win.isVisible()).toBe(true);
    const world = await app.world();
    expect(world.preloadError).toBeNull();
    // The page sees named methods and on(); no generic invoke, no ipcRenderer, no require.
    expect(Object.keys(world.mainWorld)).toEqual(['deskhand']);
    const bridge = world.mainWorld.deskhand as Record<string, unknown>;
    expect(Object.keys(bridge)).toContain('sendMessage');
    expect(Object.keys(bridge)).not.toContain('invoke');
  });

  it('opens in the OS colour scheme, so no white flash in dark mode', async () => {
    expect((await app.window()).options.backgroundColor).toBe('#fbfbfa');
    await quitApp();
    app = await launch({ dark: true });
    expect((await app.window()).options.backgroundColor).toBe('#1b1d21');
  });

  it('registers app:// as a standard, secure scheme before ready', () => {
    expect(fake.privilegedSchemes).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
  });
});

describe('app:// serving', () => {
  const get = async (url: string) => {
    const r = (await fake.fetchScheme(url))!;
    return { status: r.status, body: await r.text(), csp: r.headers.get('content-security-policy'), type: r.headers.get('content-type') };
  };

  it('serves the renderer with the CSP on every response', async () => {
    const index = await get('app://deskhand/index.html');
    expect(index.status).toBe(200);
    expect(index.body).toBe(readFileSync(join(build().renderer, 'index.html'), 'utf8'));
    expect(index.type).toMatch(/^text\/html/);
    expect(index.csp).toBe(CSP);
    expect(index.csp).toContain("script-src 'self'");
    expect(index.csp).toContain("object-src 'none'");
    expect((await get('app://deskhand/')).body).toBe(index.body);
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(index.body)![1]!;
    const js = await get(`app://deskhand/${asset}`);
    expect([js.status, js.type, js.csp]).toEqual([200, 'text/javascript; charset=utf-8', CSP]);
    expect((await get('app://deskhand/missing.js')).csp).toBe(CSP);
  });

  it('refuses traversal in every encoding, other hosts and malformed escapes with a 404 (never a thrown handler)', async () => {
    // A secret next to the renderer folder: what a traversal would reach.
    const attempts = [
      'app://deskhand/..%2f..%2fpackage.json',
      'app://deskhand/assets/..%2f..%2f..%2fpackage.json',
      'app://deskhand/%2e%2e/%2e%2e/package.json',
      'app://deskhand/%2e%2e%2f%2e%2e%2fpackage.json',
      'app://deskhand/..%252f..%252fpackage.json',
      'app://deskhand/%252e%252e%252fpackage.json',
      'app://deskhand/..%5c..%5cpackage.json',
      'app://deskhand/%2fetc%2fpasswd',
      'app://deskhand//etc/passwd',
      'app://deskhand/index.html%00.png',
      'app://deskhand/%E0%A4%A',
      'app://deskhand/%',
      'app://evil/index.html',
    ];
    for (const url of attempts) {
      const handler = (protocol as unknown as { handlers: Map<string, (r: Request) => Promise<Response>> }).handlers.get('app')!;
      const response = await handler(new Request(url)).catch((err: unknown) => `threw ${String(err)}`);
      expect(typeof response === 'string' ? response : response.status, url).toBe(404);
    }
  });

  it('does not follow a symlink out of the renderer folder', async () => {
    // The real renderer build is shared; a copy with a planted link shows the realpath check.
    const dir = tempDir('deskhand-renderer-');
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    const outside = tempDir('deskhand-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(join(dir, 'assets'));
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'assets', 'link.txt'));
    const { serveRenderer } = await import('../../src/main/electron/app-protocol');
    protocol.unhandle('app');
    serveRenderer(dir);
    expect((await fake.fetchScheme('app://deskhand/assets/link.txt'))!.status).toBe(404);
    expect((await fake.fetchScheme('app://deskhand/index.html'))!.status).toBe(200);
  });
});

describe('the session', () => {
  it('denies every permission request and check', async () => {
    const win = await app.window();
    const session = fake.session();
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'display-capture', 'openExternal', 'fileSystem'] as const) {
      expect(await session.requestPermission(win.webContents, permission), permission).toBe(false);
    }
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'hid', 'usb', 'serial'] as const) {
      expect(session.checkPermission(win.webContents, permission, 'app://deskhand'), permission).toBe(false);
    }
  });

  it("turns the window's WebRTC to proxied-only (there is no proxy: no UDP leaves), compositions framed in it included", async () => {
    const win = await app.window();
    expect(win.webContents.webRTCIPHandlingPolicy).toBe('disable_non_proxied_udp');
  });

  it('cancels every request that leaves the app', async () => {
    const session = fake.session();
    expect(await session.beforeRequest('app://deskhand/assets/x.js')).toBe(false);
    expect(await session.beforeRequest('data:image/png;base64,AAAA')).toBe(false);
    for (const url of ['https://example.com/', 'http://127.0.0.1:8080/', 'file:///etc/passwd', 'ws://127.0.0.1:1/', 'app://evil/x', 'app://deskhand.evil.com/x']) {
      expect(await session.beforeRequest(url), url).toBe(true);
    }
  });
});

describe('navigation', () => {
  it('keeps the window on the app: navigation and redirects away are stopped, in-app ones go through', async () => {
    const wc = (await app.window()).webContents;
    for (const url of ['https://example.com/', 'file:///etc/passwd', 'app://evil/index.html', 'javascript:alert(1)', 'data:text/html,hi']) {
      expect(await wc.pageNavigates(url), url).toBe(false);
      expect(wc.getURL()).toBe(APP_URL);
    }
    expect(wc.pageRedirects('https://example.com/')).toBe(false);
    expect(wc.pageRedirects('app://deskhand/index.html')).toBe(true);
    expect(await wc.pageNavigates('app://deskhand/index.html')).toBe(true);
  });

  it('opens web links in the browser, never in a new app window; other schemes go nowhere', async () => {
    const wc = (await app.window()).webContents;
    expect(wc.pageOpensWindow('https://example.com/docs')).toBe('deny');
    expect(wc.pageOpensWindow('file:///etc/passwd')).toBe('deny');
    expect(wc.pageOpensWindow('app://deskhand/index.html')).toBe('deny');
    expect(wc.pageOpensWindow('javascript:alert(1)')).toBe('deny');
    await settle();
    expect(fake.openedExternal).toEqual(['https://example.com/docs']);
    expect(wc.opened).toEqual([]);
    expect(fake.windows).toHaveLength(1);
  });

  it('refuses to attach a <webview>', async () => {
    const wc = (await app.window()).webContents;
    expect(wc.pageAttachesWebview('https://example.com/')).toBe(false);
  });
});
