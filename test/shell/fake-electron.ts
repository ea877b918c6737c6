/**
 * A faithful fake of the part of Electron that Deskhand's shell uses, so the real `src/main/electron/*` and the real
 * preload bundle run under test in Node (vitest aliases 'electron' to this file; see vitest.config.ts).
 *
 * Faithful means it enforces what Electron enforces and gets wrong what Electron gets "wrong": APIs that need a ready
 * app throw before `ready`; `registerSchemesAsPrivileged` throws after it; IPC payloads are structured-cloned (a
 * function throws); `contextBridge` copies values across worlds and rebuilds errors from their message only (custom
 * properties such as `code` are lost); `contextBridge` refuses to work without context isolation; the sandboxed preload
 * can require only `electron` (and `events`, `timers`, `url`); a menu item with a role ignores its click; quitting
 * runs before-quit → close every window → will-quit → quit, each step able to stop it.
 *
 * Each class implements `Pick<RealType, …>` of the members Deskhand uses, so a signature that drifts from
 * electron.d.ts fails the type check; a member Deskhand starts to use without the fake having it fails the tests.
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { compileFunction } from 'node:vm';
import type * as E from 'electron';

// ── The controller tests drive ──────────────────────────────────────────────────────────────────────────────────────

export interface FakeOptions {
  home?: string;
  userData?: string;
  /** Another Deskhand already holds the single-instance lock. */
  lockHeld?: boolean;
  version?: string;
  packaged?: boolean;
  /** The OS is in dark mode. */
  dark?: boolean;
}

interface FakeState {
  options: FakeOptions;
  ready: boolean;
  readyWaiters: (() => void)[];
  exitCode: number | null;
  exitWaiters: ((code: number) => void)[];
  privilegedSchemes: E.CustomScheme[];
  windows: FakeBrowserWindow[];
  trays: FakeTray[];
  notifications: FakeNotification[];
  errorBoxes: { title: string; content: string }[];
  openedExternal: string[];
  /** What `app.relaunch` was asked (Electron starts that process as this one ends). */
  relaunches: E.RelaunchOptions[];
  openDialogResults: E.OpenDialogReturnValue[];
  openDialogCalls: E.OpenDialogOptions[];
  shortcuts: Map<string, () => void>;
  notificationsSupported: boolean;
}

const state: FakeState = freshState({});

function freshState(options: FakeOptions): FakeState {
  return {
    options,
    ready: false,
    readyWaiters: [],
    exitCode: null,
    exitWaiters: [],
    privilegedSchemes: [],
    windows: [],
    trays: [],
    notifications: [],
    errorBoxes: [],
    openedExternal: [],
    relaunches: [],
    openDialogResults: [],
    openDialogCalls: [],
    shortcuts: new Map(),
    notificationsSupported: true,
  };
}

function requireReady(what: string): void {
  if (!state.ready) throw new Error(`${what} cannot be used before the app is ready`);
}

let nextId = 1;

/** A frame as onBeforeRequest's `details.frame` shows it (WebFrameMain's url and parent). */
export interface FakeFrame {
  url: string;
  parent: FakeFrame | null;
}

export const fake = {
  /** A new process: forget everything (call before each launch of the app under test). */
  reset(options: FakeOptions = {}): void {
    app.removeAllListeners();
    Object.assign(state, freshState(options));
    protocolImpl.handlers.clear();
    ipcMain.removeAllListeners();
    ipcMainHandlers.clear();
    defaultSessionImpl.reset();
    nativeTheme.shouldUseDarkColors = !!options.dark;
  },
  /** The OS finished launching: `ready` fires and `whenReady()` resolves. */
  async ready(): Promise<void> {
    state.ready = true;
    app.emit('ready', makeEvent({}), {});
    for (const w of state.readyWaiters.splice(0)) w();
    await settle();
  },
  /** Another launch of the app: what Electron's single-instance lock delivers to the first instance. */
  secondInstance(argv: string[] = ['deskhand'], cwd = '/'): void {
    app.emit('second-instance', makeEvent({}), argv, cwd, {});
  },
  /** Resolves with the exit code once the app process would have ended. */
  exited(): Promise<number> {
    if (state.exitCode !== null) return Promise.resolve(state.exitCode);
    return new Promise((resolve) => state.exitWaiters.push(resolve));
  },
  get exitCode(): number | null {
    return state.exitCode;
  },
  get privilegedSchemes(): E.CustomScheme[] {
    return state.privilegedSchemes;
  },
  get windows(): FakeBrowserWindow[] {
    return state.windows.filter((w) => !w.isDestroyed());
  },
  get trays(): FakeTray[] {
    return state.trays.filter((t) => !t.isDestroyed());
  },
  get notifications(): FakeNotification[] {
    return state.notifications;
  },
  get errorBoxes(): { title: string; content: string }[] {
    return state.errorBoxes;
  },
  get openedExternal(): string[] {
    return state.openedExternal;
  },
  get relaunches(): E.RelaunchOptions[] {
    return state.relaunches;
  },
  get openDialogCalls(): E.OpenDialogOptions[] {
    return state.openDialogCalls;
  },
  /** The next folder picker answers this. */
  answerOpenDialog(result: E.OpenDialogReturnValue): void {
    state.openDialogResults.push(result);
  },
  set notificationsSupported(v: boolean) {
    state.notificationsSupported = v;
  },
  session(): FakeSession {
    return defaultSessionImpl;
  },
  /** What the page's network stack would get for `url` from a registered protocol handler (null: none). */
  async fetchScheme(url: string): Promise<Response | null> {
    const scheme = url.slice(0, url.indexOf(':'));
    const handler = protocolImpl.handlers.get(scheme);
    if (!handler) return null;
    return handler(new Request(url) as unknown as GlobalRequest);
  },
};

type GlobalRequest = Parameters<Parameters<E.Protocol['handle']>[1]>[0];

/** Lets queued promise callbacks and timers of zero delay run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function makeEvent<P extends object>(params: P): E.Event<P> & { defaultPrevented: boolean } {
  let prevented = false;
  const event = {
    ...params,
    preventDefault() {
      prevented = true;
    },
    get defaultPrevented() {
      return prevented;
    },
  };
  return event as E.Event<P> & { defaultPrevented: boolean };
}

// ── app ─────────────────────────────────────────────────────────────────────────────────────────────────────────────

class FakeApp extends EventEmitter implements Pick<E.App, 'requestSingleInstanceLock' | 'quit' | 'exit' | 'relaunch' | 'whenReady' | 'isReady' | 'getPath' | 'getVersion' | 'isPackaged' | 'getName' | 'getAppPath'> {
  private quitting = false;

  getAppPath(): string {
    return '/opt/fake-deskhand/resources/app';
  }

  get isPackaged(): boolean {
    return !!state.options.packaged;
  }

  requestSingleInstanceLock(): boolean {
    return !state.options.lockHeld;
  }

  whenReady(): Promise<void> {
    if (state.ready) return Promise.resolve();
    return new Promise((resolve) => state.readyWaiters.push(resolve));
  }

  isReady(): boolean {
    return state.ready;
  }

  getName(): string {
    return 'Deskhand';
  }

  getPath(name: Parameters<E.App['getPath']>[0]): string {
    if (name === 'home') return state.options.home ?? '/home/fake';
    if (name === 'userData') return state.options.userData ?? '/home/fake/.config/Deskhand';
    return `/fake/${name}`;
  }

  getVersion(): string {
    return state.options.version ?? '0.0.0-fake';
  }

  /** before-quit → close each window (each may refuse) → will-quit → quit → exit. Asynchronous, as in Electron. */
  quit(): void {
    if (state.exitCode !== null || this.quitting) return;
    this.quitting = true;
    setImmediate(() => {
      this.quitting = false;
      const beforeQuit = makeEvent({});
      this.emit('before-quit', beforeQuit);
      if (beforeQuit.defaultPrevented) return;
      for (const w of [...state.windows]) {
        if (w.isDestroyed()) continue;
        if (!w.close()) return; // a window refused: the quit is cancelled
      }
      const willQuit = makeEvent({});
      this.emit('will-quit', willQuit);
      if (willQuit.defaultPrevented) return;
      this.emit('quit', makeEvent({}), 0);
      this.exit(0);
    });
  }

  relaunch(options?: E.RelaunchOptions): void {
    state.relaunches.push(options ?? {});
  }

  exit(code = 0): void {
    if (state.exitCode !== null) return;
    for (const w of state.windows) if (!w.isDestroyed()) w.destroy();
    state.exitCode = code;
    for (const w of state.exitWaiters.splice(0)) w(code);
  }

  /** All windows closed (not during a quit): Electron quits unless someone listens. */
  windowsAllClosed(): void {
    if (this.listenerCount('window-all-closed') === 0) this.quit();
    else this.emit('window-all-closed');
  }
}

export const app = new FakeApp();

// ── IPC ─────────────────────────────────────────────────────────────────────────────────────────────────────────────

type InvokeHandler = (event: E.IpcMainInvokeEvent, ...args: unknown[]) => unknown;

class FakeIpcMain extends EventEmitter implements Pick<E.IpcMain, 'handle' | 'handleOnce' | 'removeHandler'> {
  constructor(private readonly handlers: Map<string, InvokeHandler>) {
    super();
  }
  handle(channel: string, listener: InvokeHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  handleOnce(channel: string, listener: InvokeHandler): void {
    this.handle(channel, (event, ...args) => {
      this.handlers.delete(channel);
      return listener(event, ...args);
    });
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  handlerFor(channel: string): InvokeHandler | undefined {
    return this.handlers.get(channel);
  }
}

const ipcMainHandlers = new Map<string, InvokeHandler>();
export const ipcMain = new FakeIpcMain(ipcMainHandlers);

/** Structured clone, as IPC does it (functions and other uncloneables throw). */
function ipcClone<T>(value: T): T {
  return structuredClone(value);
}

// ── Frames and webContents ──────────────────────────────────────────────────────────────────────────────────────────

export class FakeWebFrameMain extends EventEmitter implements Pick<E.WebFrameMain, 'url' | 'routingId' | 'processId' | 'isDestroyed'> {
  readonly routingId = nextId++;
  readonly processId = 1;
  readonly frames: FakeWebFrameMain[] = [];
  private destroyed = false;

  constructor(
    public url: string,
    readonly parent: FakeWebFrameMain | null,
  ) {
    super();
  }

  get top(): FakeWebFrameMain {
    return this.parent ? this.parent.top : this;
  }

  get origin(): string {
    try {
      const u = new URL(this.url);
      return `${u.protocol}//${u.host}`;
    } catch {
      return 'null';
    }
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  destroy(): void {
    this.destroyed = true;
  }
}

/** What the page's JavaScript sees in one frame: `window` (the main world) and the preload's isolated world. */
export class RendererWorld {
  /** The page's global object as the page sees it (`window.deskhand` lives here). */
  readonly mainWorld: Record<string, unknown> = {};
  readonly ipcListeners = new Map<string, Set<(event: E.IpcRendererEvent, ...args: unknown[]) => void>>();
  preloadError: unknown = null;

  constructor(
    readonly contents: FakeWebContents,
    readonly frame: FakeWebFrameMain,
    readonly contextIsolation: boolean,
  ) {}

  /** The `electron` module a sandboxed preload gets. */
  electronModule(): { contextBridge: FakeContextBridge; ipcRenderer: FakeIpcRenderer } {
    return { contextBridge: new FakeContextBridge(this), ipcRenderer: new FakeIpcRenderer(this) };
  }

  deliver(channel: string, args: unknown[]): void {
    for (const l of this.ipcListeners.get(channel) ?? []) l({ sender: undefined } as unknown as E.IpcRendererEvent, ...ipcClone(args));
  }
}

export class FakeWebContents extends EventEmitter implements Pick<E.WebContents, 'id' | 'send' | 'isDestroyed' | 'isLoading' | 'getURL' | 'setWindowOpenHandler'> {
  readonly id = nextId++;
  readonly ipc: FakeIpcMain;
  mainFrame: FakeWebFrameMain;
  world: RendererWorld | null = null;
  private readonly ipcHandlers = new Map<string, InvokeHandler>();
  private destroyed = false;
  private loading = false;
  private openHandler: ((details: E.HandlerDetails) => E.WindowOpenHandlerResponse) | null = null;
  /** Windows this page opened (window.open that was allowed). */
  readonly opened: string[] = [];
  /** Main-frame loads that failed, as did-fail-load reports them. */
  readonly failedLoads: { url: string; code: number }[] = [];

  constructor(readonly owner: FakeBrowserWindow) {
    super();
    this.ipc = new FakeIpcMain(this.ipcHandlers);
    this.mainFrame = new FakeWebFrameMain('', null);
  }

  get session(): FakeSession {
    return defaultSessionImpl;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  isLoading(): boolean {
    return this.loading;
  }

  getURL(): string {
    return this.mainFrame.url;
  }

  destroy(): void {
    this.destroyed = true;
    this.mainFrame.destroy();
    this.emit('destroyed');
  }

  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    ipcClone(args); // throws for what IPC cannot carry
    const world = this.world;
    if (world) setImmediate(() => world.deliver(channel, args));
  }

  setWindowOpenHandler(handler: (details: E.HandlerDetails) => E.WindowOpenHandlerResponse): void {
    this.openHandler = handler;
  }

  /** What the page's WebRTC may use (Electron's default lets it gather and send from every interface). */
  webRTCIPHandlingPolicy: Parameters<E.WebContents['setWebRTCIPHandlingPolicy']>[0] = 'default';

  setWebRTCIPHandlingPolicy(policy: Parameters<E.WebContents['setWebRTCIPHandlingPolicy']>[0]): void {
    this.webRTCIPHandlingPolicy = policy;
  }

  /** Loads a URL into the main frame the way the browser process would (browser-initiated: no will-navigate). */
  async load(url: string): Promise<void> {
    this.loading = true;
    const ok = await this.fetchDocument(url);
    if (this.destroyed) return;
    if (!ok.ok) {
      this.loading = false;
      this.failedLoads.push({ url, code: ok.code });
      this.emit('did-fail-load', makeEvent({}), ok.code, 'ERR_FAILED', url, true);
      throw new Error(`ERR_FAILED (${ok.code}) loading '${url}'`);
    }
    this.commit(url);
    this.loading = false;
    this.emit('did-finish-load', makeEvent({}));
  }

  private async fetchDocument(url: string): Promise<{ ok: true } | { ok: false; code: number }> {
    const blocked = await this.session.beforeRequest(url, 'mainFrame');
    if (blocked) return { ok: false, code: -3 };
    const response = await this.session.fetch(url).catch(() => null);
    if (!response || !response.ok) return { ok: false, code: -2 };
    return { ok: true };
  }

  /** A new document in the main frame: a new renderer world, where the preload runs first. */
  private commit(url: string): void {
    this.mainFrame.destroy();
    this.mainFrame = new FakeWebFrameMain(url, null);
    const prefs = this.owner.webPreferences;
    this.world = new RendererWorld(this, this.mainFrame, prefs.contextIsolation !== false);
    if (prefs.preload) runPreload(prefs.preload, this.world, prefs);
  }

  /** The page navigates itself (a link, `location = …`): will-navigate may stop it. Returns whether it happened. */
  async pageNavigates(url: string): Promise<boolean> {
    const event = makeEvent<E.WebContentsWillNavigateEventParams>({ url, isSameDocument: false, isMainFrame: true, frame: this.mainFrame as unknown as E.WebFrameMain, initiator: this.mainFrame as unknown as E.WebFrameMain });
    this.emit('will-navigate', event, url);
    if (event.defaultPrevented) return false;
    await this.load(url).catch(() => undefined);
    return this.mainFrame.url === url;
  }

  /** A server redirect during a navigation: will-redirect may stop it. Returns whether it was followed. */
  pageRedirects(url: string): boolean {
    const event = makeEvent<E.WebContentsWillRedirectEventParams>({ url, isSameDocument: false, isMainFrame: true, frame: this.mainFrame as unknown as E.WebFrameMain, initiator: this.mainFrame as unknown as E.WebFrameMain, httpResponseCode: 302 } as E.WebContentsWillRedirectEventParams);
    this.emit('will-redirect', event, url);
    return !event.defaultPrevented;
  }

  /** The page calls window.open(url). Returns the handler's action (Electron allows when no handler is set). */
  pageOpensWindow(url: string): 'allow' | 'deny' {
    const details = { url, frameName: '', features: '', disposition: 'foreground-tab', referrer: { url: this.mainFrame.url, policy: 'strict-origin-when-cross-origin' }, postBody: undefined } as unknown as E.HandlerDetails;
    const action = this.openHandler ? this.openHandler(details).action : 'allow';
    if (action === 'allow') this.opened.push(url);
    return action;
  }

  /** The page adds a <webview>: will-attach-webview may stop it. Returns whether it was attached. */
  pageAttachesWebview(src: string): boolean {
    const event = makeEvent({});
    const webPreferences: E.WebPreferences = {};
    this.emit('will-attach-webview', event, webPreferences, { src });
    return !event.defaultPrevented;
  }

  /** A child frame (an iframe) in the page, at `url`. */
  addChildFrame(url: string): FakeWebFrameMain {
    const frame = new FakeWebFrameMain(url, this.mainFrame);
    this.mainFrame.frames.push(frame);
    return frame;
  }

  /**
   * An invoke from `frame` of this page, as the browser process sees it: wc.ipc handlers first, then ipcMain. A
   * compromised renderer can send anything from any of its frames, so tests use this directly for hostile frames.
   */
  async invokeFrom(frame: FakeWebFrameMain, channel: string, ...args: unknown[]): Promise<unknown> {
    const payload = ipcClone(args);
    const handler = this.ipcHandlers.get(channel) ?? ipcMainHandlers.get(channel);
    if (!handler) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    const event = {
      ...makeEvent({}),
      type: 'frame',
      sender: this,
      senderFrame: frame.isDestroyed() ? null : frame,
      frameId: frame.routingId,
      processId: frame.processId,
    } as unknown as E.IpcMainInvokeEvent;
    try {
      return ipcClone(await handler(event, ...payload));
    } catch (err) {
      throw new Error(`Error invoking remote method '${channel}': ${String(err)}`);
    }
  }
}

// ── The preload and contextBridge ───────────────────────────────────────────────────────────────────────────────────

const SANDBOX_MODULES = new Set(['events', 'timers', 'url']);

/** Runs a preload script as a sandboxed preload: CommonJS, `require` limited to electron and a few builtins. */
function runPreload(path: string, world: RendererWorld, prefs: E.WebPreferences): void {
  if (prefs.sandbox === false || prefs.nodeIntegration) {
    world.preloadError = new Error('this fake runs sandboxed preloads only; the window asked for Node in the renderer');
    return;
  }
  const source = readFileSync(path, 'utf8');
  const electronModule = world.electronModule();
  const sandboxRequire = (name: string): unknown => {
    if (name === 'electron') return electronModule;
    if (SANDBOX_MODULES.has(name)) return require(`node:${name}`);
    throw new Error(`module not found: ${name}`);
  };
  const module = { exports: {} as unknown };
  try {
    const fn = compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: path });
    fn(module.exports, sandboxRequire, module, path, dirname(path));
  } catch (err) {
    world.preloadError = err;
  }
}

const require = createRequire(import.meta.url);

class FakeIpcRenderer implements Pick<E.IpcRenderer, 'invoke' | 'send'> {
  constructor(private readonly world: RendererWorld) {}

  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    return this.world.contents.invokeFrom(this.world.frame, channel, ...args);
  }

  send(channel: string, ...args: unknown[]): void {
    const payload = ipcClone(args);
    this.world.contents.emit('ipc-message', makeEvent({ senderFrame: this.world.frame }), channel, ...payload);
  }

  on(channel: string, listener: (event: E.IpcRendererEvent, ...args: unknown[]) => void): this {
    let set = this.world.ipcListeners.get(channel);
    if (!set) this.world.ipcListeners.set(channel, (set = new Set()));
    set.add(listener);
    return this;
  }

  removeListener(channel: string, listener: (event: E.IpcRendererEvent, ...args: unknown[]) => void): this {
    this.world.ipcListeners.get(channel)?.delete(listener);
    return this;
  }
}

class FakeContextBridge implements Pick<E.ContextBridge, 'exposeInMainWorld'> {
  constructor(private readonly world: RendererWorld) {}

  exposeInMainWorld(apiKey: string, api: unknown): void {
    if (!this.world.contextIsolation) throw new Error('contextBridge API can only be used when contextIsolation is enabled');
    if (Object.prototype.hasOwnProperty.call(this.world.mainWorld, apiKey)) throw new Error(`Cannot bind an API on top of an existing property on the window object`);
    this.world.mainWorld[apiKey] = bridgeCopy(api);
  }
}

/**
 * A value as it arrives in the other world: primitives as they are, functions as proxies that copy their arguments
 * and results, promises re-created, objects copied without their prototype, and errors rebuilt from their message —
 * which is why custom error properties never cross.
 */
export function bridgeCopy(value: unknown, seen = new Map<object, unknown>()): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function') {
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = fn(...args.map((a) => bridgeCopy(a)));
        } catch (err) {
          throw rebuildError(err);
        }
        return bridgeCopy(result);
      };
    }
    if (typeof value === 'symbol') return undefined;
    return value;
  }
  if (seen.has(value)) return seen.get(value);
  if (value instanceof Promise || typeof (value as { then?: unknown }).then === 'function') {
    return new Promise((resolve, reject) => {
      (value as Promise<unknown>).then(
        (v) => resolve(bridgeCopy(v)),
        (err: unknown) => reject(rebuildError(err)),
      );
    });
  }
  if (value instanceof Error) return rebuildError(value);
  if (value instanceof Date) return new Date(value.getTime());
  if (ArrayBuffer.isView(value)) return structuredClone(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(bridgeCopy(item, seen));
    return out;
  }
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const key of Object.keys(value)) out[key] = bridgeCopy((value as Record<string, unknown>)[key], seen);
  return out;
}

function rebuildError(err: unknown): Error {
  return new Error(err instanceof Error ? err.message : String(err));
}

// ── BrowserWindow ───────────────────────────────────────────────────────────────────────────────────────────────────

type WindowMembers = 'loadURL' | 'show' | 'hide' | 'focus' | 'isDestroyed' | 'isMinimized' | 'restore' | 'minimize' | 'isFocused' | 'isVisible' | 'destroy' | 'id';

export class FakeBrowserWindow extends EventEmitter implements Pick<E.BrowserWindow, WindowMembers> {
  readonly id = nextId++;
  readonly options: E.BrowserWindowConstructorOptions;
  readonly webContents: FakeWebContents;
  private destroyed = false;
  private visible: boolean;
  private focused = false;
  private minimized = false;
  private shownOnce = false;

  constructor(options: E.BrowserWindowConstructorOptions = {}) {
    super();
    requireReady('BrowserWindow');
    this.options = options;
    this.visible = options.show !== false;
    this.webContents = new FakeWebContents(this);
    state.windows.push(this);
  }

  static getAllWindows(): FakeBrowserWindow[] {
    return fake.windows;
  }

  /** Electron's defaults where the window did not say. */
  get webPreferences(): E.WebPreferences {
    return { sandbox: true, contextIsolation: true, nodeIntegration: false, webviewTag: false, webSecurity: true, ...this.options.webPreferences };
  }

  async loadURL(url: string): Promise<void> {
    this.assertAlive();
    await this.webContents.load(url);
    if (!this.shownOnce && !this.destroyed) {
      this.shownOnce = true;
      this.emit('ready-to-show', makeEvent({}));
    }
  }

  show(): void {
    this.assertAlive();
    this.visible = true;
    this.minimized = false;
    this.focused = true;
    this.emit('show', makeEvent({}));
  }

  hide(): void {
    this.assertAlive();
    this.visible = false;
    this.focused = false;
    this.emit('hide', makeEvent({}));
  }

  focus(): void {
    this.assertAlive();
    this.focused = true;
  }

  /** The person switches to another app. */
  blur(): void {
    this.focused = false;
    this.emit('blur', makeEvent({}));
  }

  minimize(): void {
    this.minimized = true;
    this.focused = false;
  }

  restore(): void {
    this.minimized = false;
  }

  isMinimized(): boolean {
    return this.minimized;
  }

  isFocused(): boolean {
    return !this.destroyed && this.focused;
  }

  isVisible(): boolean {
    return !this.destroyed && this.visible && !this.minimized;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  /** Asks to close: 'close' may prevent it. Returns whether the window closed. */
  close(): boolean {
    if (this.destroyed) return true;
    const event = makeEvent({});
    this.emit('close', event);
    if (event.defaultPrevented) return false;
    this.destroy();
    if (state.windows.every((w) => w.isDestroyed())) app.windowsAllClosed();
    return true;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.webContents.destroy();
    this.emit('closed');
  }

  private assertAlive(): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
  }
}

export const BrowserWindow = FakeBrowserWindow;

// ── protocol and session ────────────────────────────────────────────────────────────────────────────────────────────

type ProtocolHandler = Parameters<E.Protocol['handle']>[1];

class FakeProtocol implements Pick<E.Protocol, 'registerSchemesAsPrivileged' | 'handle' | 'unhandle' | 'isProtocolHandled'> {
  readonly handlers = new Map<string, ProtocolHandler>();

  registerSchemesAsPrivileged(customSchemes: E.CustomScheme[]): void {
    if (state.ready) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
    state.privilegedSchemes.push(...customSchemes);
  }

  handle(scheme: string, handler: ProtocolHandler): void {
    requireReady('protocol.handle');
    if (this.handlers.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
    this.handlers.set(scheme, handler);
  }

  unhandle(scheme: string): void {
    this.handlers.delete(scheme);
  }

  isProtocolHandled(scheme: string): boolean {
    return this.handlers.has(scheme);
  }
}

const protocolImpl = new FakeProtocol();
export const protocol = protocolImpl;

type PermissionRequestHandler = Parameters<E.Session['setPermissionRequestHandler']>[0];
type PermissionCheckHandler = Parameters<E.Session['setPermissionCheckHandler']>[0];
type BeforeRequestListener = (details: E.OnBeforeRequestListenerDetails, callback: (response: E.CallbackResponse) => void) => void;
type HeadersReceivedListener = (details: E.OnHeadersReceivedListenerDetails, callback: (response: E.HeadersReceivedResponse) => void) => void;

class FakeWebRequest {
  beforeRequest: BeforeRequestListener | null = null;
  headersReceived: HeadersReceivedListener | null = null;

  onBeforeRequest(...args: [BeforeRequestListener | null] | [E.WebRequestFilter, BeforeRequestListener | null]): void {
    this.beforeRequest = (args.length === 1 ? args[0] : args[1]) ?? null;
  }

  onHeadersReceived(...args: [HeadersReceivedListener | null] | [E.WebRequestFilter, HeadersReceivedListener | null]): void {
    this.headersReceived = (args.length === 1 ? args[0] : args[1]) ?? null;
  }
}

export class FakeSession implements Pick<E.Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'> {
  requestHandler: PermissionRequestHandler = null;
  checkHandler: PermissionCheckHandler = null;
  webRequest = new FakeWebRequest();
  readonly protocol = protocolImpl;

  reset(): void {
    this.requestHandler = null;
    this.checkHandler = null;
    this.webRequest = new FakeWebRequest();
  }

  setPermissionRequestHandler(handler: PermissionRequestHandler): void {
    this.requestHandler = handler;
  }

  setPermissionCheckHandler(handler: PermissionCheckHandler): void {
    this.checkHandler = handler;
  }

  /** A page asks for a permission. Electron grants every request when no handler is set. */
  requestPermission(contents: FakeWebContents, permission: Parameters<NonNullable<PermissionRequestHandler>>[1]): Promise<boolean> {
    const handler = this.requestHandler;
    if (!handler) return Promise.resolve(true);
    return new Promise((resolve) => handler(contents as unknown as E.WebContents, permission, resolve, { requestingUrl: contents.getURL(), isMainFrame: true } as E.PermissionRequest));
  }

  /** A page checks a permission synchronously. Electron allows when no handler is set. */
  checkPermission(contents: FakeWebContents | null, permission: Parameters<NonNullable<PermissionCheckHandler>>[1], origin: string): boolean {
    const handler = this.checkHandler;
    if (!handler) return true;
    return handler(contents as unknown as E.WebContents, permission, origin, { requestingUrl: origin, isMainFrame: true } as E.PermissionCheckHandlerHandlerDetails);
  }

  /**
   * Whether onBeforeRequest cancels a request for `url` (true: blocked). `frame`: the requesting frame, as Electron's
   * WebFrameMain shows it (its URL and its parent, null at the top).
   */
  beforeRequest(url: string, resourceType: E.OnBeforeRequestListenerDetails['resourceType'] = 'xhr', frame: FakeFrame | null = null): Promise<boolean> {
    const listener = this.webRequest.beforeRequest;
    if (!listener) return Promise.resolve(false);
    return new Promise((resolve) => listener({ id: nextId++, url, method: 'GET', resourceType, frame, referrer: '', timestamp: 0, uploadData: [] } as unknown as E.OnBeforeRequestListenerDetails, (r) => resolve(!!r.cancel || !!r.redirectURL)));
  }

  /** The response the page gets for `url`: the protocol handler's, then onHeadersReceived's changes to its headers. */
  async fetch(url: string): Promise<Response> {
    const response = await fake.fetchScheme(url);
    if (!response) throw new Error(`net::ERR_UNKNOWN_URL_SCHEME ${url}`);
    const listener = this.webRequest.headersReceived;
    if (!listener) return response;
    const headers: Record<string, string[]> = {};
    response.headers.forEach((v, k) => (headers[k] = [v]));
    const changed = await new Promise<E.HeadersReceivedResponse>((resolve) =>
      listener({ id: nextId++, url, method: 'GET', resourceType: 'mainFrame', referrer: '', timestamp: 0, statusLine: `HTTP/1.1 ${response.status}`, statusCode: response.status, responseHeaders: headers } as unknown as E.OnHeadersReceivedListenerDetails, resolve),
    );
    if (changed.cancel) throw new Error('net::ERR_BLOCKED_BY_CLIENT');
    const out = new Headers();
    for (const [k, vs] of Object.entries(changed.responseHeaders ?? headers)) for (const v of [vs].flat()) out.append(k, v);
    return new Response(await response.arrayBuffer(), { status: response.status, headers: out });
  }
}

const defaultSessionImpl = new FakeSession();

export const session = {
  get defaultSession(): FakeSession {
    requireReady('session.defaultSession');
    return defaultSessionImpl;
  },
};

// ── Tray, Menu, nativeImage ─────────────────────────────────────────────────────────────────────────────────────────

export class FakeNativeImage implements Pick<E.NativeImage, 'setTemplateImage' | 'isTemplateImage' | 'isEmpty' | 'getSize' | 'toDataURL'> {
  private template = false;
  constructor(private readonly dataUrl: string) {}
  setTemplateImage(option: boolean): void {
    this.template = option;
  }
  isTemplateImage(): boolean {
    return this.template;
  }
  isEmpty(): boolean {
    return this.png() === null;
  }
  getSize(): E.Size {
    const png = this.png();
    return png ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } : { width: 0, height: 0 };
  }
  toDataURL(): string {
    return this.dataUrl;
  }
  private png(): Buffer | null {
    const m = /^data:image\/png;base64,(.*)$/.exec(this.dataUrl);
    if (!m) return null;
    const buf = Buffer.from(m[1]!, 'base64');
    return buf.length > 24 && buf.subarray(1, 4).toString() === 'PNG' ? buf : null;
  }
}

export const nativeImage = {
  createFromDataURL(dataURL: string): FakeNativeImage {
    return new FakeNativeImage(dataURL);
  },
} satisfies { createFromDataURL: (dataURL: Parameters<typeof E.nativeImage.createFromDataURL>[0]) => Pick<E.NativeImage, 'setTemplateImage' | 'getSize'> };

export class FakeMenuItem {
  readonly label: string;
  readonly type: string;
  readonly enabled: boolean;
  readonly role: string | undefined;
  readonly accelerator: string | undefined;
  private readonly clickFn: E.MenuItemConstructorOptions['click'];

  constructor(options: E.MenuItemConstructorOptions) {
    this.label = options.label ?? '';
    this.type = options.type ?? 'normal';
    this.enabled = options.enabled ?? true;
    this.role = options.role;
    this.accelerator = typeof options.accelerator === 'string' ? options.accelerator : undefined;
    this.clickFn = options.click;
  }

  /** The person picks this item. Disabled items do nothing; with a role, Electron runs the role and ignores click. */
  click(): void {
    if (!this.enabled || this.type === 'separator') return;
    if (this.role) {
      if (this.role.toLowerCase() === 'quit') app.quit();
      return;
    }
    this.clickFn?.({} as E.MenuItem, undefined, {} as E.KeyboardEvent);
  }
}

export class FakeMenu {
  constructor(readonly items: FakeMenuItem[]) {}
  static buildFromTemplate(template: (E.MenuItemConstructorOptions | E.MenuItem)[]): FakeMenu {
    return new FakeMenu(template.map((t) => new FakeMenuItem(t as E.MenuItemConstructorOptions)));
  }
  static applicationMenu: FakeMenu | null = null;
  static setApplicationMenu(menu: FakeMenu | null): void {
    FakeMenu.applicationMenu = menu;
  }
}

export const Menu = FakeMenu;

export class FakeTray extends EventEmitter implements Pick<E.Tray, 'setToolTip' | 'destroy' | 'isDestroyed'> {
  menu: FakeMenu | null = null;
  toolTip = '';
  private destroyed = false;

  constructor(readonly image: FakeNativeImage | string) {
    super();
    requireReady('Tray');
    state.trays.push(this);
  }

  setToolTip(toolTip: string): void {
    this.toolTip = toolTip;
  }

  setContextMenu(menu: FakeMenu | null): void {
    this.menu = menu;
  }

  destroy(): void {
    this.destroyed = true;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  /** The menu item with this label (throws when there is none, so a test names what it expects). */
  item(label: string | RegExp): FakeMenuItem {
    const found = this.menu?.items.find((i) => (typeof label === 'string' ? i.label === label : label.test(i.label)));
    if (!found) throw new Error(`no tray menu item ${String(label)}; items: ${this.menu?.items.map((i) => i.label || i.type).join(', ')}`);
    return found;
  }
}

export const Tray = FakeTray;

// ── Notification, dialog, shell, globalShortcut, nativeTheme ────────────────────────────────────────────────────────

export class FakeNotification extends EventEmitter implements Pick<E.Notification, 'show' | 'close' | 'title' | 'body' | 'silent'> {
  title: string;
  body: string;
  silent: boolean;
  /** The buttons asked for (Electron shows them where the OS offers notification actions: macOS). */
  actions: E.NotificationAction[];
  shown = false;

  constructor(options: E.NotificationConstructorOptions = {}) {
    super();
    requireReady('Notification');
    this.title = options.title ?? '';
    this.body = options.body ?? '';
    this.silent = options.silent ?? false;
    this.actions = options.actions ?? [];
    state.notifications.push(this);
  }

  static isSupported(): boolean {
    return state.notificationsSupported;
  }

  show(): void {
    this.shown = true;
    this.emit('show', makeEvent({}));
  }

  close(): void {
    this.emit('close', makeEvent({}));
  }

  /** The person clicks the notification. */
  clickByPerson(): void {
    this.emit('click', makeEvent({}));
  }

  /** The person presses the button with this text (Electron's 'action' event carries its index). */
  pressByPerson(text: string): void {
    const index = this.actions.findIndex((a) => a.text === text);
    if (index < 0) throw new Error(`No button "${text}" on this notification (it has ${this.actions.map((a) => a.text).join(', ') || 'none'}).`);
    this.emit('action', makeEvent({}), index);
  }
}

export const Notification = FakeNotification;

export const dialog = {
  showErrorBox(title: string, content: string): void {
    state.errorBoxes.push({ title, content });
  },
  showOpenDialog(...args: [E.BaseWindow, E.OpenDialogOptions] | [E.OpenDialogOptions]): Promise<E.OpenDialogReturnValue> {
    state.openDialogCalls.push(args.length === 2 ? args[1] : args[0]);
    return Promise.resolve(state.openDialogResults.shift() ?? { canceled: true, filePaths: [] });
  },
} satisfies Pick<E.Dialog, 'showErrorBox' | 'showOpenDialog'>;

export const shell = {
  openExternal(url: string): Promise<void> {
    state.openedExternal.push(url);
    return Promise.resolve();
  },
} satisfies Pick<E.Shell, 'openExternal'>;

export const globalShortcut = {
  register(accelerator: string, callback: () => void): boolean {
    requireReady('globalShortcut');
    if (state.shortcuts.has(accelerator)) return false;
    state.shortcuts.set(accelerator, callback);
    return true;
  },
  isRegistered(accelerator: string): boolean {
    return state.shortcuts.has(accelerator);
  },
  unregister(accelerator: string): void {
    state.shortcuts.delete(accelerator);
  },
  unregisterAll(): void {
    state.shortcuts.clear();
  },
} satisfies Pick<E.GlobalShortcut, 'register' | 'isRegistered' | 'unregister' | 'unregisterAll'>;

class FakeNativeTheme extends EventEmitter implements Pick<E.NativeTheme, 'shouldUseDarkColors' | 'themeSource'> {
  shouldUseDarkColors = false;
  themeSource: E.NativeTheme['themeSource'] = 'system';
}

export const nativeTheme = new FakeNativeTheme();

export default { app, BrowserWindow, ipcMain, protocol, session, nativeImage, Menu, Tray, Notification, dialog, shell, globalShortcut, nativeTheme };
