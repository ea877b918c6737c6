/** The main window: sandboxed, isolated, no Node, no navigation away from the app, no new windows. */
import { BrowserWindow, nativeTheme, session, shell, type WebFrameMain } from 'electron';
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

/**
 * Whether an MCP App view declared an origin: `ticket` is the view's (its `/cv/<ticket>` frame, or a frame inside
 * it), `kind` what the request is for. The desktop app's AppService answers (mcp-apps.ts `reaches`).
 */
export type ViewReach = (ticket: string, url: string, kind: 'connect' | 'resource' | 'frame') => boolean;

/** A request's resource type as a view's grants name it; null for a type no view may load from outside the app. */
function reachKind(type: string): 'connect' | 'resource' | 'frame' | null {
  if (type === 'xhr' || type === 'webSocket' || type === 'ping' || type === 'other') return 'connect';
  if (type === 'script' || type === 'stylesheet' || type === 'image' || type === 'font' || type === 'media') return 'resource';
  if (type === 'subFrame') return 'frame';
  return null;
}

const VIEW_FRAME = /^app:\/\/deskhand\/cv\/([A-Za-z0-9_-]{16,64})(?:[?#]|$)/;

/** The ticket of the view frame a request comes from: its own frame or the nearest ancestor that is a view. */
function viewTicketOf(frame: WebFrameMain | null | undefined): string | null {
  try {
    for (let f = frame, depth = 0; f && depth < 8; f = f.parent, depth++) {
      const m = VIEW_FRAME.exec(f.url);
      if (m) return m[1]!;
    }
  } catch {
    // A frame disposed while its request was on the way throws when read: nothing to let through.
  }
  return null;
}

/**
 * No permission (camera, notifications from the page, geolocation…) is ever granted to web content, and every request
 * that leaves the app is cancelled, except one an MCP App view makes to an origin it declared for that kind of
 * request (`viewReach`; its page's own CSP, built from the same declaration, is checked by Chromium as well).
 */
export function lockDownSession(viewReach?: ViewReach): void {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
    const url = details.url;
    const local = url.startsWith(`${APP_ORIGIN}/`) || url.startsWith('devtools://') || url.startsWith('data:');
    if (local || !viewReach) return callback({ cancel: !local });
    const kind = reachKind(details.resourceType);
    const ticket = kind ? viewTicketOf(details.frame) : null;
    callback({ cancel: !(ticket && kind && viewReach(ticket, url, kind)) });
  });
}
