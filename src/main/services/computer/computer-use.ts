/**
 * The computer-use service: sessions per run (refs, last outlines, screenshots, kept in `<dataDir>/computer/<runId>`
 * so a run resumed in another process keeps its refs), the safety re-check before every action, the input rate limit
 * and the kill switch. The decision (grants, tiers) is the approval engine's; this re-checks at the moment of acting,
 * because focus and windows change between observing and acting.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  outlineLine,
  parseKeyCombo,
  type ActResult,
  type AppGrantBook,
  type AppWindow,
  type Capability,
  type ComputerOperator,
  type ComputerSession,
  type ComputerUse,
  type ElementHandle,
  type ObserveResult,
  type PointerAction,
  type Rect,
  type WindowTree,
} from './index';
import type { StopFlag } from './stop-flag';

interface RefEntry extends ElementHandle {
  role: string;
  name: string;
  window: string;
}

interface SessionFile {
  nextRef: number;
  shots: number;
  killed: boolean;
  apps: string[];
  /** window id → its latest observation's refs and outline. */
  windows: Record<string, { app: string; title: string; outline: string; refs: Record<string, RefEntry> }>;
}

export interface ComputerUseOptions {
  operator: ComputerOperator;
  grants: AppGrantBook;
  dataDir: string;
  /** Least time between two actions of one run (default 120 ms). */
  minActionIntervalMs?: number;
  /** Most actions of one run in a minute (default 240); beyond it actions are refused. */
  maxActionsPerMinute?: number;
  /** Before/after thumbnails of each action's window (default on). */
  thumbnails?: boolean;
  /**
   * The kill switch shared by every process on the data folder (the store's computer-stops): `kill` raises it, and
   * it is read before every action and every typed chunk; a stop newer than a session's start ends that session.
   */
  stops?: StopFlag;
}

const STOPPED = 'Computer use was stopped by the person (kill switch); this run may not use the computer again. Tell the person what you were doing and stop.';

export class ComputerUseService implements ComputerUse {
  readonly grants: AppGrantBook;
  private readonly op: ComputerOperator;
  private readonly live = new Map<string, { controller: AbortController; session: ComputerSession; startedAt: number }>();
  private readonly killedRuns = new Set<string>();
  private readonly lastAction = new Map<string, number>();
  private readyAt = 0;
  private readonly cache = new Map<string, { mtime: number; s: SessionFile }>();
  private readonly recent = new Map<string, number[]>();
  private readonly killListeners = new Set<(runIds: string[]) => void>();
  private readonly sessionListeners = new Set<(s: ComputerSession[]) => void>();

  constructor(private readonly opts: ComputerUseOptions) {
    this.op = opts.operator;
    this.grants = opts.grants;
  }

  missing(): Promise<string | null> {
    return this.op.missing();
  }

  async apps() {
    await this.ready();
    return { apps: await this.op.apps(), grants: this.grants.list() };
  }

  screenshotDir(runId: string): string {
    if (!/^[\w-]+$/.test(runId)) throw new Error(`bad run id ${runId}`);
    return join(this.opts.dataDir, 'computer', runId);
  }

  /**
   * Where a run's screenshots are kept after computer_end, so its tool cards still show them: `<data>/computer/kept/
   * <runId>/`, same file names (the cards name them by their session path; the screenshot door looks here next).
   */
  keptDir(runId: string): string {
    if (!/^[\w-]+$/.test(runId)) throw new Error(`bad run id ${runId}`);
    return join(this.opts.dataDir, 'computer', 'kept', runId);
  }

  /** Deletes kept screenshots of runs that ended longer ago than `maxAgeMs` (the data folder's log retention). */
  pruneKept(maxAgeMs: number, now = Date.now()): number {
    const root = join(this.opts.dataDir, 'computer', 'kept');
    if (!existsSync(root)) return 0;
    let removed = 0;
    for (const name of readdirSync(root)) {
      const dir = join(root, name);
      try {
        if (now - statSync(dir).mtimeMs > maxAgeMs) {
          rmSync(dir, { recursive: true, force: true });
          removed++;
        }
      } catch {
        // gone already
      }
    }
    return removed;
  }

  // ── sessions ──

  private file(runId: string): string {
    return join(this.screenshotDir(runId), 'session.json');
  }

  /** The run's session file, read again only when another process changed it (its mtime moved). */
  private load(runId: string): SessionFile {
    let mtime: number;
    try {
      mtime = statSync(this.file(runId)).mtimeMs;
    } catch {
      this.cache.delete(runId);
      return { nextRef: 1, shots: 0, killed: false, apps: [], windows: {} };
    }
    const hit = this.cache.get(runId);
    if (hit && hit.mtime === mtime) return structuredClone(hit.s);
    try {
      const s = JSON.parse(readFileSync(this.file(runId), 'utf8')) as SessionFile;
      this.cache.set(runId, { mtime, s: structuredClone(s) });
      return s;
    } catch {
      return { nextRef: 1, shots: 0, killed: false, apps: [], windows: {} };
    }
  }

  /**
   * Written in place (over the old bytes, then cut to length): truncating a file to zero and writing it again makes
   * ext4 flush it on close (auto_da_alloc), which cost ~2.5 ms of every observation; this costs ~0.03 ms.
   */
  private save(runId: string, s: SessionFile): void {
    const file = this.file(runId);
    const body = Buffer.from(JSON.stringify(s));
    let fd: number;
    try {
      fd = openSync(file, 'r+');
    } catch {
      mkdirSync(this.screenshotDir(runId), { recursive: true });
      fd = openSync(file, 'w');
    }
    try {
      writeSync(fd, body, 0, body.length, 0);
      ftruncateSync(fd, body.length);
    } finally {
      closeSync(fd);
    }
    this.cache.set(runId, { mtime: statSync(file).mtimeMs, s: structuredClone(s) });
  }

  /** The run's live session (created on first use) and a signal that the kill switch aborts. */
  private begin(runId: string, app: string, what: string, signal?: AbortSignal): AbortSignal {
    if (this.killed(runId)) throw new Error(STOPPED);
    this.checkStop(runId);
    let entry = this.live.get(runId);
    if (!entry) {
      entry = { controller: new AbortController(), session: { runId, apps: [], lastAction: null, updatedAt: Date.now() }, startedAt: Date.now() };
      this.live.set(runId, entry);
    }
    if (!entry.session.apps.includes(app)) entry.session.apps.push(app);
    entry.session.lastAction = what;
    entry.session.updatedAt = Date.now();
    this.emitSessions();
    return signal ? AbortSignal.any([signal, entry.controller.signal]) : entry.controller.signal;
  }

  killed(runId: string): boolean {
    return this.killedRuns.has(runId) || this.load(runId).killed;
  }

  sessions(): ComputerSession[] {
    return [...this.live.values()].map((e) => ({ ...e.session, apps: [...e.session.apps] }));
  }

  kill(reason = 'stopped by the person'): string[] {
    // Every process on the data folder stops its sessions too (they read the flag before each action and chunk).
    try {
      this.opts.stops?.raise(reason);
    } catch {
      // a closed store: this process's sessions still stop below
    }
    return this.stopSessions([...this.live.keys()], reason);
  }

  /**
   * The store-level stop, read right before acting: when a stop (from any process) is newer than the start of a
   * session of this process, every such session ends as the kill switch ends them, and this call is refused.
   */
  private checkStop(runId: string): void {
    let at: number | null = null;
    try {
      at = this.opts.stops?.latest() ?? null;
    } catch {
      return; // a closed store: nothing to read; this process's own kill still works
    }
    if (at === null) return;
    const hit = [...this.live].filter(([, e]) => e.startedAt <= at).map(([id]) => id);
    if (!hit.length) return;
    this.stopSessions(hit, 'stopped by the person (kill switch, in another window or process)');
    if (hit.includes(runId)) throw new Error(STOPPED);
  }

  private stopSessions(runIds: string[], reason: string): string[] {
    for (const runId of runIds) {
      const entry = this.live.get(runId);
      if (!entry) continue;
      this.killedRuns.add(runId);
      entry.controller.abort(new Error(`computer use ${reason}`));
      try {
        const s = this.load(runId);
        this.save(runId, { ...s, killed: true, windows: {} });
      } catch {
        // the in-memory mark still refuses this run
      }
      this.live.delete(runId);
    }
    this.emitSessions();
    for (const l of this.killListeners) l(runIds);
    return runIds;
  }

  onKill(listener: (runIds: string[]) => void): () => void {
    this.killListeners.add(listener);
    return () => this.killListeners.delete(listener);
  }

  onSessionsChanged(listener: (s: ComputerSession[]) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  private emitSessions(): void {
    const s = this.sessions();
    for (const l of this.sessionListeners) l(s);
  }

  clearObservations(runId: string): void {
    const s = this.load(runId);
    this.save(runId, { ...s, windows: {} });
  }

  async end(runId: string): Promise<{ screenshots: number }> {
    const dir = this.screenshotDir(runId);
    const pngs = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.png')) : [];
    const wasKilled = this.killed(runId);
    // The session ends (refs, observations, the session file); its screenshots move to the kept folder, where the
    // tool cards still show them until the log retention deletes them.
    if (pngs.length) {
      const kept = this.keptDir(runId);
      mkdirSync(kept, { recursive: true });
      for (const f of pngs) renameSync(join(dir, f), join(kept, f));
    }
    const shots = pngs.length;
    rmSync(dir, { recursive: true, force: true });
    if (wasKilled) this.save(runId, { nextRef: 1, shots: 0, killed: true, apps: [], windows: {} });
    this.live.delete(runId);
    this.emitSessions();
    return { screenshots: shots };
  }

  close(): void {
    this.op.close();
  }

  // ── observing ──

  /** The desktop is usable (checked again at most every 10 s, or after a failure). */
  private async ready(): Promise<void> {
    if (Date.now() - this.readyAt < 10_000) return;
    const missing = await this.op.missing();
    if (missing) throw new Error(missing);
    this.readyAt = Date.now();
  }

  async observe(runId: string, app: string, opts: { window?: string; screenshot?: boolean; personApproved?: boolean }, signal?: AbortSignal): Promise<ObserveResult> {
    const sig = this.begin(runId, app, `observing ${app}`, signal);
    this.mayUse(app, 'observe', opts.personApproved);
    await this.ready();
    const tree = await this.op.readWindow(app, opts.window);
    sig.throwIfAborted();
    return this.record(runId, tree, opts.screenshot ?? false);
  }

  private async record(runId: string, tree: WindowTree, screenshot: boolean): Promise<ObserveResult> {
    const { window, nodes } = tree;
    const s = this.load(runId);
    const refs: Record<string, RefEntry> = {};
    const lines = [`window ${JSON.stringify(window.title)} of ${window.app} (${window.id ? `${window.id}, ` : ''}${window.bounds.width}×${window.bounds.height} at ${window.bounds.x},${window.bounds.y}${window.active ? ', in front' : ''})`];
    for (const n of nodes) {
      let ref: string | null = null;
      if (n.handle) {
        ref = `e${s.nextRef++}`;
        refs[ref] = { ...n.handle, role: n.role, name: n.name, window: tree.key };
      }
      lines.push(outlineLine(n, ref, n.depth));
    }
    const outline = lines.join('\n');
    s.windows[tree.key] = { app: window.app, title: window.title, outline: outline.split('\n').slice(1).map(stripRef).join('\n'), refs };
    if (!s.apps.includes(window.app)) s.apps.push(window.app);
    let shot: string | null = null;
    if (screenshot) shot = await this.shoot(runId, s, window.bounds, 'observe');
    this.save(runId, s);
    return { window, outline, refs: Object.keys(refs).length, screenshot: shot };
  }

  private async shoot(runId: string, s: SessionFile, rect: Rect, label: string): Promise<string> {
    const { png } = await this.op.capture(rect);
    mkdirSync(this.screenshotDir(runId), { recursive: true });
    let name = `${String(++s.shots).padStart(3, '0')}-${label}.png`;
    // A later session of the same run numbers on past what an ended one kept (a card keeps showing its own shot).
    while (existsSync(join(this.keptDir(runId), name))) name = `${String(++s.shots).padStart(3, '0')}-${label}.png`;
    const path = join(this.screenshotDir(runId), name);
    writeFileSync(path, png);
    return path;
  }

  describeRef(runId: string, app: string, ref: string): string | null {
    const entry = this.findRef(this.load(runId), app, ref);
    return entry ? `${entry.role} ${JSON.stringify(entry.name)}` : null;
  }

  private findRef(s: SessionFile, app: string, ref: string): RefEntry | null {
    for (const w of Object.values(s.windows)) if (w.app === app && w.refs[ref]) return w.refs[ref]!;
    return null;
  }

  async wait(runId: string, req: { app: string; until: 'change' | 'settle'; timeoutMs: number }, signal?: AbortSignal) {
    const sig = this.begin(runId, req.app, `waiting for ${req.app}`, signal);
    this.mayUse(req.app, 'observe', false);
    await this.ready();
    const s = this.load(runId);
    const previous = Object.values(s.windows).find((w) => w.app === req.app)?.outline ?? null;
    const deadline = Date.now() + req.timeoutMs;
    let last = await this.op.readWindow(req.app);
    let text = plain(last.nodes);
    let changed = previous !== null && text !== previous;
    while (Date.now() < deadline) {
      if (req.until === 'change' && changed) break;
      await sleep(150, sig);
      const next = await this.op.readWindow(req.app);
      const nextText = plain(next.nodes);
      if (req.until === 'settle' && nextText === text) {
        last = next;
        break;
      }
      if (previous !== null && nextText !== previous) changed = true;
      last = next;
      text = nextText;
    }
    sig.throwIfAborted();
    return { ...(await this.record(runId, last, false)), changed };
  }

  // ── acting ──

  /** The call was cleared by a grant with this capability, or a person approved this very call. */
  private mayUse(app: string, capability: Capability, personApproved?: boolean): void {
    if (this.grants.isGranted(app, capability) || personApproved) return;
    throw new Error(`"${app}" is not granted ${capability} (the grant is missing, expired or was revoked); nothing was done. Ask for it with computer_grant_app.`);
  }

  /** The input rate limit: actions of one run are spaced and capped per minute. */
  private async gate(runId: string, signal: AbortSignal): Promise<void> {
    const now = Date.now();
    const window = (this.recent.get(runId) ?? []).filter((t) => now - t < 60_000);
    if (window.length >= (this.opts.maxActionsPerMinute ?? 240)) {
      throw new Error(`Too many actions: at most ${this.opts.maxActionsPerMinute ?? 240} a minute. Wait (computer_wait) and observe before acting again.`);
    }
    const wait = (this.lastAction.get(runId) ?? 0) + (this.opts.minActionIntervalMs ?? 120) - now;
    if (wait > 0) await sleep(wait, signal);
    this.checkStop(runId);
    window.push(Date.now());
    this.recent.set(runId, window);
    this.lastAction.set(runId, Date.now());
  }

  private resolveRef(runId: string, app: string, ref: string): RefEntry {
    const entry = this.findRef(this.load(runId), app, ref);
    if (!entry) throw new Error(`${ref} is not a ref of the latest observation of "${app}" (refs last until that window is observed again, and a handoff clears them). Call computer_observe and use a ref from its outline.`);
    return entry;
  }

  /** Re-checks an element right before acting: it still exists and still belongs to the app. */
  private async target(runId: string, app: string, ref: string) {
    const entry = this.resolveRef(runId, app, ref);
    const info = await this.op.element(entry);
    if (!info) throw new Error(`${ref} (${entry.role} ${JSON.stringify(entry.name)}) is gone; observe "${app}" again.`);
    if (info.app !== app) throw new Error(`${ref} now belongs to "${info.app}", not "${app}"; nothing was done.`);
    return { entry, info };
  }

  /** Synthesized input lands wherever the window system sends it: that window must belong to the granted app. */
  private async requireWindowAt(app: string, x: number, y: number): Promise<AppWindow> {
    const w = await this.op.windowAt(x, y);
    if (!w || w.app !== app) {
      throw new Error(`The point (${Math.round(x)}, ${Math.round(y)}) is on ${w ? `"${w.app}" (window ${JSON.stringify(w.title)})` : 'no window'}, not on "${app}"; nothing was done. Observe again, or bring "${app}" to the front with computer_foreground.`);
    }
    return w;
  }

  private async requireActive(app: string): Promise<AppWindow> {
    const w = await this.op.activeWindow();
    if (!w || w.app !== app) {
      throw new Error(`Keyboard input would go to ${w ? `"${w.app}" (window ${JSON.stringify(w.title)})` : 'no window'}, which has the focus, not "${app}"; nothing was done. Bring "${app}" to the front with computer_foreground, or act by ref.`);
    }
    return w;
  }

  private async thumbs<T>(runId: string, rect: Rect | null, act: () => Promise<T>): Promise<{ result: T; before: string | null; after: string | null }> {
    if (!this.opts.thumbnails || !rect || rect.width <= 0) return { result: await act(), before: null, after: null };
    const s = this.load(runId);
    const before = await this.shoot(runId, s, rect, 'before').catch(() => null);
    const result = await act();
    await sleep(60);
    const after = await this.shoot(runId, s, rect, 'after').catch(() => null);
    const fresh = this.load(runId);
    this.save(runId, { ...fresh, shots: s.shots });
    return { result, before, after };
  }

  async pointer(
    runId: string,
    req: { app: string; ref?: string; x?: number; y?: number; action: PointerAction; dx?: number; dy?: number; personApproved?: boolean },
    signal?: AbortSignal,
  ): Promise<ActResult> {
    const sig = this.begin(runId, req.app, `${req.action} in ${req.app}`, signal);
    this.mayUse(req.app, 'pointer', req.personApproved);
    await this.ready();
    let point: { x: number; y: number };
    let what: string;
    let rect: Rect | null = null;
    if (req.ref) {
      const { entry, info } = await this.target(runId, req.app, req.ref);
      what = `${entry.role} ${JSON.stringify(entry.name)}`;
      point = { x: info.bounds.x + info.bounds.width / 2, y: info.bounds.y + info.bounds.height / 2 };
      rect = (await this.op.windowAt(point.x, point.y))?.bounds ?? null;
      if (req.action === 'click') {
        const named = ['click', 'press', 'activate', 'jump', 'toggle', 'select'];
        if (info.actions.some((a) => named.includes(a))) {
          await this.gate(runId, sig);
          sig.throwIfAborted();
          // Re-checked at the moment of acting: the element is still the app's.
          this.mayUse(req.app, 'pointer', req.personApproved);
          const t = await this.thumbs(runId, rect, () => this.op.doAction(entry, named));
          return { done: `${t.result} on ${what} through its accessibility action`, before: t.before, after: t.after };
        }
      }
    } else {
      if (req.x === undefined || req.y === undefined) throw new Error('Give a ref from the latest observation, or both x and y (screen coordinates).');
      point = { x: req.x, y: req.y };
      what = `(${req.x}, ${req.y})`;
    }
    await this.gate(runId, sig);
    sig.throwIfAborted();
    const win = await this.requireWindowAt(req.app, point.x, point.y);
    rect ??= win.bounds;
    const t = await this.thumbs(runId, rect, async () => {
      if (req.action === 'scroll') await this.op.scroll(point.x, point.y, req.dx ?? 0, req.dy ?? 3);
      else await this.op.click(point.x, point.y, req.action === 'right_click' ? 'right' : 'left', req.action === 'double_click');
    });
    return { done: `${req.action.replace('_', ' ')} at the centre of ${what} (${Math.round(point.x)}, ${Math.round(point.y)}) with synthesized input`, before: t.before, after: t.after };
  }

  async input(runId: string, req: { app: string; ref?: string; text?: string; key?: string; replace?: boolean; personApproved?: boolean }, signal?: AbortSignal): Promise<ActResult> {
    const sig = this.begin(runId, req.app, `typing in ${req.app}`, signal);
    this.mayUse(req.app, 'input', req.personApproved);
    if (req.text === undefined && req.key === undefined) throw new Error('Give text to type, a key (Return, ctrl+s), or both.');
    const keys = req.key !== undefined ? parseKeyCombo(req.key) : null;
    await this.ready();
    const done: string[] = [];
    let rect: Rect | null = null;
    let viaTree = false;
    let entry: RefEntry | null = null;
    if (req.ref) {
      const t = await this.target(runId, req.app, req.ref);
      entry = t.entry;
      rect = (await this.op.windowAt(t.info.bounds.x + 1, t.info.bounds.y + 1))?.bounds ?? null;
      viaTree = req.text !== undefined && t.info.editable;
    }
    await this.gate(runId, sig);
    sig.throwIfAborted();
    const t = await this.thumbs(runId, rect, async () => {
      if (req.text !== undefined && viaTree && entry) {
        this.mayUse(req.app, 'input', req.personApproved);
        if (!(await this.op.editText(entry, req.text, !!req.replace))) throw new Error(`${req.ref} refused the text.`);
        done.push(`typed ${req.text.length} characters into ${entry.role} ${JSON.stringify(entry.name)} through its editable text`);
      } else if (req.text !== undefined) {
        if (entry) await this.op.focus(entry);
        await this.requireActive(req.app);
        // Typed in short chunks, so the kill switch stops it mid-way.
        for (let i = 0; i < req.text.length; i += 8) {
          this.checkStop(runId);
          sig.throwIfAborted();
          await this.requireActive(req.app);
          await this.op.typeText(req.text.slice(i, i + 8));
        }
        done.push(`typed ${req.text.length} characters with synthesized input`);
      }
      if (keys) {
        if (entry) await this.op.focus(entry);
        this.checkStop(runId);
        sig.throwIfAborted();
        await this.requireActive(req.app);
        await this.op.pressKeys(keys);
        done.push(`pressed ${keys.join('+')}`);
      }
    });
    return { done: done.join(', then '), before: t.before, after: t.after };
  }

  async foreground(runId: string, req: { app: string; personApproved?: boolean }, signal?: AbortSignal): Promise<ActResult> {
    const sig = this.begin(runId, req.app, `bringing ${req.app} to the front`, signal);
    this.mayUse(req.app, 'foreground', req.personApproved);
    await this.ready();
    const app = (await this.op.apps()).filter((a) => a.name === req.app);
    const win = app.flatMap((a) => a.windows).at(-1);
    if (!win) throw new Error(`"${req.app}" has no window to bring to the front.`);
    await this.gate(runId, sig);
    sig.throwIfAborted();
    await this.op.activate(win);
    // The window manager raises it asynchronously: wait (briefly) until it has the focus, so what follows in the same
    // computer_foreground call reaches it. Not in front after that: said, and the follow-up's own check refuses.
    for (let i = 0; i < 40; i++) {
      if ((await this.op.activeWindow())?.app === req.app) return { done: `brought ${JSON.stringify(win.title)} of ${req.app} to the front`, before: null, after: null };
      await sleep(50, sig);
    }
    return { done: `asked the window manager to bring ${JSON.stringify(win.title)} of ${req.app} to the front (it has not taken the focus yet)`, before: null, after: null };
  }
}

function stripRef(line: string): string {
  return line.replace(/\[e\d+\] /, '');
}

function plain(nodes: { role: string; name: string; states: string[]; value?: string; depth: number }[]): string {
  return nodes.map((n) => outlineLine(n, null, n.depth)).join('\n');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
