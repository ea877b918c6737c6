/**
 * Computer use as the tools see it: one `ComputerOperator` per desktop (Linux X11 through AT-SPI + EWMH + nut-js;
 * macOS and Windows say in one line what they lack; Wayland sessions are detected and reported) and the
 * `ComputerUse` service that keeps sessions, refs, the kill switch and the input rate limit on top of it. Grants live
 * in the store (the `app-grants` module) and reach the service as an `AppGrantBook`.
 */

export const CAPABILITIES = ['observe', 'pointer', 'input', 'foreground'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An element as its operator addresses it (AT-SPI: bus name + object path). Opaque to tools. */
export interface ElementHandle {
  bus: string;
  path: string;
}

export interface AppWindow {
  /** The window system's id (X11: `0x…`). */
  id: string;
  title: string;
  pid: number;
  /** The app's name as computer_apps lists it (the accessibility application name). */
  app: string;
  bounds: Rect;
  active: boolean;
}

export interface RunningApp {
  name: string;
  pid: number;
  windows: AppWindow[];
  /** The app is in the accessibility tree (observable as an outline); otherwise only its windows are known. */
  accessible: boolean;
}

export interface OutlineNode {
  depth: number;
  role: string;
  name: string;
  /** Shown states: focused, checked, selected, expanded, collapsed, disabled, read-only. */
  states: string[];
  value?: string;
  /** Set for elements a tool can act on (they get a ref). */
  handle?: ElementHandle;
}

export interface WindowTree {
  /** Stable for the life of the window (refs are kept per window by it). */
  key: string;
  window: AppWindow;
  nodes: OutlineNode[];
}

export interface ElementInfo {
  app: string;
  pid: number;
  bounds: Rect;
  actions: string[];
  editable: boolean;
  focused: boolean;
}

export type MouseButton = 'left' | 'right' | 'middle';

/** One desktop's primitives. Every method acts at once; checks and grants are the service's job. */
export interface ComputerOperator {
  readonly platform: string;
  /** null when usable; else one line saying what is missing and how to get it. */
  missing(): Promise<string | null>;
  apps(): Promise<RunningApp[]>;
  /** One window of an app as outline nodes (`window`: a title or an id; default the app's active or first window). */
  readWindow(app: string, window?: string): Promise<WindowTree>;
  /** What an element is now (owner app and process, bounds, actions); null when it is gone. */
  element(handle: ElementHandle): Promise<ElementInfo | null>;
  /** Runs the first of `names` the element offers; returns the action run, or null when it offers none of them. */
  doAction(handle: ElementHandle, names: readonly string[]): Promise<string | null>;
  /** Types through the element's editable text (inserted at the caret, or replacing all); false when not offered. */
  editText(handle: ElementHandle, text: string, replace: boolean): Promise<boolean>;
  focus(handle: ElementHandle): Promise<boolean>;
  activeWindow(): Promise<AppWindow | null>;
  /** The topmost window containing the screen point. */
  windowAt(x: number, y: number): Promise<AppWindow | null>;
  activate(window: AppWindow): Promise<void>;
  click(x: number, y: number, button: MouseButton, double: boolean): Promise<void>;
  scroll(x: number, y: number, dx: number, dy: number): Promise<void>;
  typeText(text: string): Promise<void>;
  /** Presses a combination (`['ctrl', 's']`) at the focused window. */
  pressKeys(keys: readonly string[]): Promise<void>;
  /** A PNG of a screen rectangle (root coordinates, so monitor offsets apply), with the HiDPI scale it was taken at. */
  capture(rect: Rect): Promise<{ png: Buffer; scale: number; width: number; height: number }>;
  close(): void;
}

/** The person's lasting app grants, as the service reads them. */
export interface AppGrant {
  app: string;
  capabilities: Capability[];
  createdAt: number;
  /** When the last of its capabilities ends (null: one lasts until revoked). */
  expiresAt: number | null;
  /** Each capability's own end (grants add up: observe granted for an hour, input later for ten minutes). */
  ends?: Record<Capability, number | null>;
}

export interface AppGrantBook {
  list(): AppGrant[];
  get(app: string): AppGrant | null;
  grant(app: string, capabilities: readonly Capability[], minutes: number | null): AppGrant;
  revoke(app: string): boolean;
  isGranted(app: string, capability: Capability): boolean;
  /** The person revoked this app and has not granted it again. */
  wasRevoked(app: string): boolean;
  /** When the app's grant of this capability ends: a time (ms), null (until revoked), undefined (not granted). */
  endOf?(app: string, capability: Capability): number | null | undefined;
}

/** One run's live use of the desktop (the "Deskhand is using: <app>" banner). */
export interface ComputerSession {
  runId: string;
  apps: string[];
  lastAction: string | null;
  updatedAt: number;
}

export interface ObserveResult {
  window: AppWindow;
  outline: string;
  refs: number;
  screenshot: string | null;
}

export interface ActResult {
  /** What was done, in words ("clicked push button "OK" through its accessibility action click"). */
  done: string;
  before: string | null;
  after: string | null;
}

export type PointerAction = 'click' | 'double_click' | 'right_click' | 'scroll';

/** What the tools call. `allowed` says the decision cleared the call (a grant, or a person approving this call). */
export interface ComputerUse {
  readonly grants: AppGrantBook;
  /** Deletes screenshots kept after computer_end longer ago than this (the log retention). */
  pruneKept?(maxAgeMs: number): number;
  missing(): Promise<string | null>;
  apps(): Promise<{ apps: RunningApp[]; grants: AppGrant[] }>;
  observe(runId: string, app: string, opts: { window?: string; screenshot?: boolean; personApproved?: boolean }, signal?: AbortSignal): Promise<ObserveResult>;
  describeRef(runId: string, app: string, ref: string): string | null;
  pointer(
    runId: string,
    req: { app: string; ref?: string; x?: number; y?: number; action: PointerAction; dx?: number; dy?: number; personApproved?: boolean },
    signal?: AbortSignal,
  ): Promise<ActResult>;
  input(runId: string, req: { app: string; ref?: string; text?: string; key?: string; replace?: boolean; personApproved?: boolean }, signal?: AbortSignal): Promise<ActResult>;
  wait(runId: string, req: { app: string; until: 'change' | 'settle'; timeoutMs: number }, signal?: AbortSignal): Promise<ObserveResult & { changed: boolean }>;
  foreground(runId: string, req: { app: string; personApproved?: boolean }, signal?: AbortSignal): Promise<ActResult>;
  /** Forgets every observation of the run (refs become invalid). */
  clearObservations(runId: string): void;
  /** Releases the run's session and deletes its screenshots. */
  end(runId: string): Promise<{ screenshots: number }>;
  /** The kill switch: stops every session at once, aborts what is in flight; returns the runs it stopped. */
  kill(reason?: string): string[];
  /** A run that was stopped by the kill switch may not use the computer again. */
  killed(runId: string): boolean;
  sessions(): ComputerSession[];
  onKill(listener: (runIds: string[]) => void): () => void;
  onSessionsChanged(listener: (sessions: ComputerSession[]) => void): () => void;
  /** The screenshots folder of a run (PNG files named by the tools' output). */
  screenshotDir(runId: string): string;
  close(): void;
}

// ── Pure helpers ────────────────────────────────────────────────────────────────────────────────────────────────

/** Parses `ctrl+s`, `Return`, `shift+Tab` into key names; throws a message the model can act on. */
export function parseKeyCombo(combo: string): string[] {
  const parts = combo.split('+').map((p) => p.trim());
  if (!combo.trim() || parts.some((p) => !p)) throw new Error(`"${combo}" is not a key: use a name like Return, Tab, Escape, F5 or a combination like ctrl+s.`);
  return parts;
}

/** One outline line: `[e7] push button "OK" focused = value`. */
export function outlineLine(node: Pick<OutlineNode, 'role' | 'name' | 'states' | 'value'>, ref: string | null, indent: number): string {
  const name = JSON.stringify(node.name);
  const states = node.states.length ? ` ${node.states.join(' ')}` : '';
  const value = node.value !== undefined ? ` value=${JSON.stringify(node.value)}` : '';
  return `${'  '.repeat(indent)}${ref ? `[${ref}] ` : ''}${node.role} ${name}${states}${value}`;
}
