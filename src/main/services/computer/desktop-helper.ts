/**
 * Operators that read the accessibility tree through a small helper program (macOS: a JXA script run by osascript
 * over System Events; Windows: a PowerShell script over UI Automation) and synthesize input and capture the screen
 * through nut-js. The helper prints JSON in the platform's own words (AXButton, ControlType.Button, AXPress,
 * InvokePattern…); this file turns it into the same outline nodes and refs the Linux operator produces, so the
 * service, the tools and the model see one model on every desktop.
 */
import type { AppWindow, ComputerOperator, ElementHandle, ElementInfo, OutlineNode, Rect, RunningApp, WindowTree } from './index';
import { NutInput } from './nut-input';

/** One element as a helper prints it (pre-order; `depth` 0 is the window). */
export interface HelperNode {
  depth: number;
  /** Where the helper finds the element again (macOS: window index and child indices; Windows: hwnd and indices). */
  path: string;
  /** What must still hold when it is found again (macOS: its AX role; Windows: its UIA runtime id). */
  check?: string;
  role: string;
  subrole?: string;
  name?: string | null;
  value?: string | number | boolean | null;
  bounds?: [number, number, number, number] | null;
  focused?: boolean;
  enabled?: boolean;
  selected?: boolean;
  /** true / false when expandable; absent otherwise. */
  expanded?: boolean | null;
  /** Toggle state: true, false, or absent when not checkable. */
  checked?: boolean | null;
  /** The platform's action names (AXPress, Invoke, Toggle…). */
  actions?: string[];
  editable?: boolean;
  password?: boolean;
  offscreen?: boolean;
}

export interface HelperWindow {
  id: string;
  title: string;
  pid: number;
  app: string;
  bounds: [number, number, number, number];
  active?: boolean;
}

export interface HelperTree {
  window: HelperWindow;
  nodes: HelperNode[];
}

export interface HelperElement {
  app: string;
  pid: number;
  role: string;
  bounds: [number, number, number, number] | null;
  actions: string[];
  editable: boolean;
  focused: boolean;
}

/** What a platform's helper answers to (one JSON value per request; an error is thrown with the helper's message). */
export interface HelperTransport {
  request<T>(command: string, args: Record<string, unknown>): Promise<T>;
  close(): void;
}

/** A platform's words for roles and actions, and how to tell what is missing. */
export interface HelperPlatform {
  platform: string;
  /** Platform role (and subrole) → the outline's role words (the same words AT-SPI uses on Linux). */
  role(role: string, subrole?: string): string;
  /** Platform action name → the service's action names (click, press, activate, toggle, select, expand…). */
  actions: Record<string, string>;
  /** null when usable; else one line naming what is missing and where to fix it. */
  missing(transport: HelperTransport): Promise<string | null>;
  /** Checked before every capture: null, or one line (macOS: the Screen Recording permission). */
  captureMissing?(transport: HelperTransport): Promise<string | null>;
}

/** Roles a tool can act on even when the helper lists no action. */
const ACTIONABLE_ROLES = new Set(['push button', 'toggle button', 'check box', 'radio button', 'menu item', 'link', 'combo box', 'text', 'password text', 'slider', 'spin button', 'list item', 'page tab', 'tree item', 'table cell', 'menu', 'scroll bar']);
const CHECKABLE_ROLES = new Set(['check box', 'toggle button', 'radio button', 'check menu item', 'radio menu item']);
const VALUE_ROLES = new Set(['text', 'combo box', 'spin button', 'slider', 'progress bar', 'scroll bar', 'document text']);
const MAX_NODES = 3000;

/** Tolerates what serialisers do to lists (PowerShell 5.1 writes a one-element list as the element, none as null). */
export function asArray<T>(v: T[] | T | null | undefined): T[] {
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

export function toRect(b: readonly number[] | null | undefined): Rect {
  const [x, y, width, height] = (b ?? []).map((n) => (Number.isFinite(n) ? Math.round(n) : 0));
  return { x: x ?? 0, y: y ?? 0, width: width ?? 0, height: height ?? 0 };
}

/** The handle a ref keeps: the process, and the helper's path plus what must still hold there. */
export function handleOf(pid: number, node: Pick<HelperNode, 'path' | 'check'>): ElementHandle {
  return { bus: String(pid), path: node.check ? `${node.path}|${node.check}` : node.path };
}

function valueText(v: HelperNode['value']): string | undefined {
  if (v === null || v === undefined) return undefined;
  return typeof v === 'string' ? v : String(v);
}

/**
 * A helper's tree as outline nodes: elements off screen are left out (with what is under them), unnamed containers
 * are folded into their parent's depth (as on Linux), password fields never show their value, and elements with an
 * action, editable text or an actionable role get a handle (a ref).
 */
export function outlineFromHelper(tree: HelperTree, p: Pick<HelperPlatform, 'role'>): OutlineNode[] {
  const out: OutlineNode[] = [];
  /** For each open ancestor: its raw depth, whether it is shown, and whether it was left out (off screen). */
  const stack: { depth: number; shown: boolean; hidden: boolean }[] = [];
  for (const n of asArray(tree.nodes)) {
    while (stack.length && stack.at(-1)!.depth >= n.depth) stack.pop();
    const root = n.depth === 0;
    const hidden = stack.some((s) => s.hidden) || (!root && !!n.offscreen);
    const role = p.role(n.role, n.subrole);
    const actions = asArray(n.actions);
    const actionable = !root && !hidden && (actions.length > 0 || !!n.editable || ACTIONABLE_ROLES.has(role));
    const name = (n.name ?? '').trim();
    const shown = !hidden && (root || actionable || name !== '');
    stack.push({ depth: n.depth, shown, hidden });
    if (!shown || out.length >= MAX_NODES) continue;
    const states: string[] = [];
    if (n.focused) states.push('focused');
    if (CHECKABLE_ROLES.has(role) || (n.checked !== undefined && n.checked !== null)) states.push(n.checked || n.value === 1 || n.value === true ? 'checked' : 'unchecked');
    if (n.selected) states.push('selected');
    if (n.expanded === true) states.push('expanded');
    else if (n.expanded === false) states.push('collapsed');
    if (n.enabled === false) states.push('disabled');
    const node: OutlineNode = { depth: stack.filter((s) => s.shown).length - 1, role, name, states, ...(actionable ? { handle: handleOf(tree.window.pid, n) } : {}) };
    if (n.password || role === 'password text') node.value = '••••';
    else if (VALUE_ROLES.has(role) && !CHECKABLE_ROLES.has(role)) node.value = valueText(n.value) ?? '';
    out.push(node);
  }
  return out;
}

export function windowFromHelper(w: HelperWindow): AppWindow {
  return { id: String(w.id), title: w.title ?? '', pid: Number(w.pid), app: w.app ?? '', bounds: toRect(w.bounds), active: !!w.active };
}

/** The operator shared by macOS and Windows: every read and accessibility action through the helper, input via nut-js. */
export class HelperOperator extends NutInput implements ComputerOperator {
  readonly platform: string;
  private ready: { at: number; missing: string | null } | null = null;
  private captureOk = 0;

  constructor(
    private readonly p: HelperPlatform,
    private readonly helper: HelperTransport,
  ) {
    super();
    this.platform = p.platform;
  }

  async missing(): Promise<string | null> {
    if (this.ready && Date.now() - this.ready.at < 10_000) return this.ready.missing;
    const missing = await this.p.missing(this.helper);
    this.ready = { at: Date.now(), missing };
    return missing;
  }

  async apps(): Promise<RunningApp[]> {
    const r = await this.helper.request<{ apps: { name: string; pid: number }[]; windows: HelperWindow[] }>('apps', {});
    const windows = asArray(r.windows).map(windowFromHelper);
    const apps = new Map<number, RunningApp>();
    for (const a of asArray(r.apps)) apps.set(Number(a.pid), { name: a.name, pid: Number(a.pid), accessible: true, windows: [] });
    for (const w of windows) {
      const app = apps.get(w.pid) ?? { name: w.app, pid: w.pid, accessible: false, windows: [] };
      w.app = app.name;
      app.windows.push(w);
      apps.set(w.pid, app);
    }
    return [...apps.values()];
  }

  async readWindow(app: string, window?: string): Promise<WindowTree> {
    const tree = await this.helper.request<HelperTree>('tree', { app, ...(window ? { window } : {}) });
    const w = windowFromHelper({ ...tree.window, app });
    return { key: `${w.pid}:${w.id || w.title}`, window: w, nodes: outlineFromHelper(tree, this.p) };
  }

  private actionNames(platformNames: readonly string[]): string[] {
    return platformNames.map((a) => this.p.actions[a] ?? a.replace(/^AX/, '').toLowerCase());
  }

  async element(handle: ElementHandle): Promise<ElementInfo | null> {
    const e = await this.helper.request<HelperElement | null>('element', { pid: Number(handle.bus), path: handle.path }).catch(() => null);
    if (!e) return null;
    return { app: e.app, pid: Number(e.pid), bounds: toRect(e.bounds), actions: this.actionNames(asArray(e.actions)), editable: !!e.editable, focused: !!e.focused };
  }

  async doAction(handle: ElementHandle, names: readonly string[]): Promise<string | null> {
    // The service's names in its order of preference → the platform's names that mean them.
    const wanted = names.flatMap((n) => Object.entries(this.p.actions).filter(([, ours]) => ours === n).map(([theirs]) => theirs));
    if (!wanted.length) return null;
    const done = await this.helper.request<string | null>('action', { pid: Number(handle.bus), path: handle.path, names: wanted });
    return done ? (this.p.actions[done] ?? done) : null;
  }

  async editText(handle: ElementHandle, text: string, replace: boolean): Promise<boolean> {
    return !!(await this.helper.request<boolean>('settext', { pid: Number(handle.bus), path: handle.path, text, replace }));
  }

  async focus(handle: ElementHandle): Promise<boolean> {
    return !!(await this.helper.request<boolean>('focus', { pid: Number(handle.bus), path: handle.path }).catch(() => false));
  }

  async activeWindow(): Promise<AppWindow | null> {
    const w = await this.helper.request<HelperWindow | null>('front', {});
    return w ? windowFromHelper(w) : null;
  }

  async windowAt(x: number, y: number): Promise<AppWindow | null> {
    const w = await this.helper.request<HelperWindow | null>('at', { x: Math.round(x), y: Math.round(y) });
    return w ? windowFromHelper(w) : null;
  }

  async activate(window: AppWindow): Promise<void> {
    await this.helper.request('activate', { pid: window.pid, id: window.id, title: window.title });
  }

  override async capture(rect: Rect) {
    // A permission once seen given is trusted for 10 s (an action takes two thumbnails); a missing one is asked again.
    if (this.p.captureMissing && !(this.captureOk && Date.now() - this.captureOk < 10_000)) {
      const missing = await this.p.captureMissing(this.helper);
      if (missing) throw new Error(missing);
      this.captureOk = Date.now();
    }
    return super.capture(rect);
  }

  close(): void {
    this.helper.close();
  }
}
