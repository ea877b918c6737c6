/** The main window: sandboxed, isolated, no Node, no navigation away from the app, no new windows. */
import { BrowserWindow, nativeTheme, session, shell } from 'electron';
import { APP_ORIGIN, APP_URL, isAppUrl } from './app-protocol';

export function createMainWindow(preloadPath: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 760,
    minHeight: 480,
    title: 'Deskhand',
    show: false,
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#1b1d21' : '#fbfbfa',
    webPreferences: {
      preload: preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
    },
  });
  const wc = win.webContents;
  // WebRTC sends nothing that does not go through a proxy, and the app has none: no STUN packet, no candidate leaves
  // the window or a composition framed in it (the viewer's prologue removes the constructors too).
  wc.setWebRTCIPHandlingPolicy('disable_non_proxied_udp');
  // The app is one page: the renderer never navigates its window anywhere but the app itself.
  wc.on('will-navigate', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  wc.on('will-redirect', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  wc.on('will-attach-webview', (event) => event.preventDefault());
  wc.setWindowOpenHandler(({ url }) => {
    // Links in messages open in the person's browser, never inside the app.
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(APP_URL);
  return win;
}

/** No permission (camera, notifications from the page, geolocation…) is ever granted to web content. */
export function lockDownSession(): void {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
    const url = details.url;
    const local = url.startsWith(`${APP_ORIGIN}/`) || url.startsWith('devtools://') || url.startsWith('data:');
    callback({ cancel: !local });
  });
}
