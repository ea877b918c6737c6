/**
 * The Linux X11 operator: the accessibility tree and its actions through AT-SPI over D-Bus, windows and focus through
 * EWMH, synthesized input and capture through nut-js (XTest). Apps are named by their AT-SPI application name; an
 * app's X windows are the ones whose `_NET_WM_PID` is the process behind its accessibility bus name.
 */
import { AtspiClient, STATE, hasState, type InterfaceCache, type RawNode } from './atspi';
import { Ewmh, type XWindow } from './ewmh';
import type { AppWindow, ComputerOperator, ElementHandle, ElementInfo, OutlineNode, Rect, RunningApp, WindowTree } from './index';
import { NutInput } from './nut-input';

const ROOT = '/org/a11y/atspi/accessible/root';
/** Roles a tool can act on even without an Action interface. */
const ACTIONABLE_ROLES = new Set(['push button', 'toggle button', 'check box', 'radio button', 'menu item', 'check menu item', 'radio menu item', 'link', 'combo box', 'text', 'entry', 'password text', 'slider', 'spin button', 'list item', 'page tab', 'tree item', 'table cell', 'menu', 'scroll bar']);
const TEXT_VALUE_ROLES = new Set(['text', 'entry', 'spin button', 'combo box', 'terminal', 'paragraph']);
const MAX_NODES = 3000;

interface AppEntry {
  handle: ElementHandle;
  name: string;
  pid: number;
}

export class LinuxX11Operator extends NutInput implements ComputerOperator {
  readonly platform = 'linux-x11';
  private client: Promise<AtspiClient> | null = null;
  private closed = false;
  private readonly ewmh: Ewmh;
  /** bus name → app (a bus name is never reused for another connection). */
  private readonly byBus = new Map<string, AppEntry>();
  /** The X windows EWMH calls last saw (ids for windows read through AT-SPI). */
  private xCache: XWindow[] = [];
  /**
   * Interfaces per object, kept across observations (they never change for an object): a repeated observation reads
   * four properties per element instead of five. Acting reads the element afresh. Bounded; forgotten when full.
   */
  private readonly ifaces: InterfaceCache = new Map();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {
    super();
    this.ewmh = new Ewmh(env);
  }

  private atspi(): Promise<AtspiClient> {
    // Closed by the host on exit: a late call (a status poll, a run being stopped) opens no new connection.
    if (this.closed) return Promise.reject(new Error('computer use is shut down (Deskhand is quitting)'));
    this.client ??= AtspiClient.connect(this.env.DBUS_SESSION_BUS_ADDRESS).catch((err: unknown) => {
      this.client = null;
      throw err;
    });
    return this.client;
  }

  async missing(): Promise<string | null> {
    if (!this.env.DISPLAY) return 'No X display: DISPLAY is not set, so there is no desktop to observe (start Deskhand inside an X11 session).';
    if (!this.env.DBUS_SESSION_BUS_ADDRESS) return 'No D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): the accessibility tree is reached through it.';
    try {
      await this.atspi();
    } catch (err) {
      return `The AT-SPI accessibility bus is not running (${err instanceof Error ? err.message : String(err)}): install at-spi2-core and start /usr/libexec/at-spi-bus-launcher, or turn on accessibility in the desktop settings.`;
    }
    try {
      await this.ewmh.activeId();
    } catch (err) {
      return `The window manager's EWMH properties cannot be read (${err instanceof Error ? err.message : String(err)}): install x11-utils and xdotool and run an EWMH window manager.`;
    }
    return null;
  }

  private async appEntries(): Promise<AppEntry[]> {
    const client = await this.atspi();
    const handles = await client.applications();
    const entries = await Promise.all(
      handles.map(async (h) => {
        const known = this.byBus.get(h.bus);
        if (known) return known;
        try {
          const [name, pid] = await Promise.all([client.name(h), client.pidOf(h.bus)]);
          const entry = { handle: h, name, pid };
          this.byBus.set(h.bus, entry);
          return entry;
        } catch {
          return null; // the app quit while being listed
        }
      }),
    );
    return entries.filter((e): e is AppEntry => !!e && e.name !== '');
  }

  private async toWindows(xs: XWindow[], entries: AppEntry[], activeId: string | null): Promise<AppWindow[]> {
    const byPid = new Map(entries.map((e) => [e.pid, e.name]));
    return xs.map((w) => ({ id: w.id, title: w.title, pid: w.pid, app: byPid.get(w.pid) ?? w.wmClass, bounds: w.bounds, active: w.id === activeId }));
  }

  private async xWindows(): Promise<XWindow[]> {
    this.xCache = await this.ewmh.windows();
    return this.xCache;
  }

  async apps(): Promise<RunningApp[]> {
    const [entries, xs, activeId] = await Promise.all([this.appEntries(), this.xWindows(), this.ewmh.activeId()]);
    const windows = await this.toWindows(xs, entries, activeId);
    const apps = new Map<string, RunningApp>();
    for (const e of entries) {
      const key = `${e.name}\0${e.pid}`;
      if (!apps.has(key)) apps.set(key, { name: e.name, pid: e.pid, accessible: true, windows: windows.filter((w) => w.pid === e.pid) });
    }
    for (const w of windows) {
      if (entries.some((e) => e.pid === w.pid)) continue;
      const key = `${w.app}\0${w.pid}`;
      const app = apps.get(key) ?? { name: w.app, pid: w.pid, accessible: false, windows: [] };
      app.windows.push(w);
      apps.set(key, app);
    }
    return [...apps.values()];
  }

  /**
   * One window read through AT-SPI alone (no window-system round trips on this hot path): the app's top-level
   * accessibles give title, active state and extents; the X window id comes from what EWMH calls last saw.
   */
  async readWindow(app: string, window?: string): Promise<WindowTree> {
    const client = await this.atspi();
    if (this.ifaces.size > 50_000) this.ifaces.clear();
    // Known apps of this name first (no registry round trip); the registry when there are none or one went away.
    let entries = [...this.byBus.values()].filter((e) => e.name === app);
    let kids = await Promise.all(entries.map((e) => client.children(e.handle).catch(() => null)));
    if (!entries.length || kids.some((k) => k === null)) {
      for (const [bus, e] of this.byBus) if (e.name === app) this.byBus.delete(bus);
      entries = (await this.appEntries()).filter((e) => e.name === app);
      kids = await Promise.all(entries.map((e) => client.children(e.handle).catch(() => [])));
    }
    if (!entries.length) throw new Error(`No running app named "${app}" is in the accessibility tree; computer_apps lists the names.`);
    const tops = (
      await Promise.all(
        entries.map(async (e, i) => (await Promise.all((kids[i] ?? []).map((h) => client.node(h, this.ifaces).catch(() => null)))).flatMap((n) => (n ? [{ n, e }] : []))),
      )
    ).flat();
    const visible = tops.filter((t) => hasState(t.n.states, STATE.showing) || hasState(t.n.states, STATE.visible));
    let top: (typeof tops)[number] | undefined;
    if (window) {
      const w = window.trim().toLowerCase();
      const xid = this.xCache.find((x) => x.id === w);
      top = (xid && tops.find((t) => t.e.pid === xid.pid && t.n.name === xid.title)) || tops.find((t) => t.n.name.toLowerCase() === w) || tops.find((t) => t.n.name.toLowerCase().includes(w));
      if (!top) throw new Error(`"${app}" has no window "${window}"; its windows: ${visible.map((t) => JSON.stringify(t.n.name)).join(', ') || 'none'}.`);
    } else {
      top = visible.find((t) => hasState(t.n.states, STATE.active)) ?? visible.at(-1);
      if (!top) throw new Error(`"${app}" has no window open.`);
    }
    const extents = client.extents(top.n.handle).catch(() => ({ x: 0, y: 0, width: 0, height: 0 }));
    const x = this.xCache.find((c) => c.pid === top.e.pid && c.title === top.n.name);
    const active = hasState(top.n.states, STATE.active);
    const nodes: OutlineNode[] = [];
    await this.walk(client, top.n, 0, nodes, true);
    const bounds = await extents;
    return { key: `${top.n.handle.bus}${top.n.handle.path}`, window: { id: x?.id ?? '', title: top.n.name, pid: top.e.pid, app, bounds, active }, nodes };
  }

  private async walk(client: AtspiClient, node: RawNode, depth: number, out: OutlineNode[], root: boolean): Promise<void> {
    if (out.length >= MAX_NODES) return;
    if (!root && !hasState(node.states, STATE.showing)) return;
    const editable = node.interfaces.includes('EditableText');
    const actionable = root ? false : node.interfaces.includes('Action') || editable || ACTIONABLE_ROLES.has(node.role);
    const shown = root || actionable || node.name.trim() !== '';
    let value: Promise<void> = Promise.resolve();
    if (shown) {
      const out_: OutlineNode = { depth, role: node.role, name: node.name, states: shownStates(node), ...(actionable ? { handle: node.handle } : {}) };
      out.push(out_);
      // Values are read alongside the children, not before them.
      if (node.role === 'password text') out_.value = '••••';
      else if (node.interfaces.includes('Text') && TEXT_VALUE_ROLES.has(node.role)) value = client.text(node.handle).then((t) => void (out_.value = t), () => void (out_.value = ''));
      else if (node.interfaces.includes('Value')) value = client.value(node.handle).then((v) => void (v !== null && (out_.value = String(v))), () => undefined);
    }
    const kids = await Promise.all(node.children.map((h) => client.node(h, this.ifaces).catch(() => null)));
    // Children are walked in order (outline order = tree order); each child's own subtree is read in parallel.
    const subtrees = await Promise.all(
      kids.map(async (k) => {
        if (!k) return [];
        const sub: OutlineNode[] = [];
        await this.walk(client, k, shown ? depth + 1 : depth, sub, false);
        return sub;
      }),
    );
    await value;
    for (const s of subtrees) for (const n of s) if (out.length < MAX_NODES) out.push(n);
  }

  async element(handle: ElementHandle): Promise<ElementInfo | null> {
    const client = await this.atspi();
    try {
      const [node, pid, appName] = await Promise.all([client.node(handle), client.pidOf(handle.bus), client.name({ bus: handle.bus, path: ROOT })]);
      if (hasState(node.states, 6 /* defunct */)) return null;
      const bounds = node.interfaces.includes('Component') ? await client.extents(handle) : { x: 0, y: 0, width: 0, height: 0 };
      const actions = node.interfaces.includes('Action') ? await client.actions(handle) : [];
      return { app: appName, pid, bounds, actions, editable: node.interfaces.includes('EditableText'), focused: hasState(node.states, STATE.focused) };
    } catch {
      return null;
    }
  }

  async doAction(handle: ElementHandle, names: readonly string[]): Promise<string | null> {
    const client = await this.atspi();
    const actions = await client.actions(handle).catch(() => [] as string[]);
    for (const name of names) {
      const i = actions.indexOf(name);
      if (i >= 0) {
        await client.doAction(handle, i);
        return name;
      }
    }
    return null;
  }

  async editText(handle: ElementHandle, text: string, replace: boolean): Promise<boolean> {
    const client = await this.atspi();
    const node = await client.node(handle);
    if (!node.interfaces.includes('EditableText')) return false;
    if (replace) return client.setText(handle, text);
    const caret = await client.caret(handle).catch(() => -1);
    const at = caret >= 0 ? caret : (await client.text(handle)).length;
    return client.insertText(handle, at, text);
  }

  async focus(handle: ElementHandle): Promise<boolean> {
    return (await this.atspi()).grabFocus(handle).catch(() => false);
  }

  private async windowFor(x: XWindow | null, activeId: string | null): Promise<AppWindow | null> {
    if (!x) return null;
    const entries = await this.appEntries();
    return (await this.toWindows([x], entries, activeId))[0] ?? null;
  }

  async activeWindow(): Promise<AppWindow | null> {
    const id = await this.ewmh.activeId();
    return id ? this.windowFor(await this.ewmh.window(id), id) : null;
  }

  async windowAt(x: number, y: number): Promise<AppWindow | null> {
    const [xs, activeId] = await Promise.all([this.xWindows(), this.ewmh.activeId()]);
    const hit = [...xs].reverse().find((w) => contains(w.bounds, x, y)) ?? null;
    return this.windowFor(hit, activeId);
  }

  async activate(window: AppWindow): Promise<void> {
    await this.ewmh.activate(window.id);
  }

  /** Ends the session-bus and accessibility-bus connections (also one still connecting): they keep a process alive. */
  close(): void {
    this.closed = true;
    void this.client?.then((c) => c.close()).catch(() => undefined);
    this.client = null;
  }
}

function shownStates(n: RawNode): string[] {
  const s: string[] = [];
  if (hasState(n.states, STATE.focused)) s.push('focused');
  if (hasState(n.states, STATE.checkable) || n.role === 'check box' || n.role === 'toggle button' || n.role === 'radio button') s.push(hasState(n.states, STATE.checked) ? 'checked' : 'unchecked');
  if (hasState(n.states, STATE.selected)) s.push('selected');
  if (hasState(n.states, STATE.expandable)) s.push(hasState(n.states, STATE.expanded) ? 'expanded' : 'collapsed');
  if (!hasState(n.states, STATE.sensitive) && !hasState(n.states, STATE.enabled)) s.push('disabled');
  if (hasState(n.states, STATE.readOnly)) s.push('read-only');
  return s;
}

function contains(r: Rect, x: number, y: number): boolean {
  return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height;
}

