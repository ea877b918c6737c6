/**
 * What changed under a root since the last scan, from the kernel (inotify on Linux, FSEvents/kqueue elsewhere,
 * through `fs.watch` on every folder a scan listed), so a step that changed nothing costs no scan and a step that
 * changed a few files looks only at those.
 *
 * It is only trusted when it cannot have missed anything: every folder was watched before it was listed, no watcher
 * failed, no event came without a file name, and fewer events arrived than the kernel's queue holds
 * (`/proc/sys/fs/inotify/max_queued_events`): an overflowing queue drops events silently (libuv does not report
 * IN_Q_OVERFLOW), but only after delivering a full queue, so fewer events than that means none was dropped. Otherwise
 * the ledger scans the whole root, as it would without a watcher. Pending events are read before they are counted:
 * a tick written into a watched folder of the data folder comes back after every event queued before it (one inotify
 * instance per event loop reports in order).
 */
import { mkdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

function maxQueuedEvents(): number {
  try {
    return Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim()) || 16384;
  } catch {
    return 16384;
  }
}

const QUEUE = maxQueuedEvents();
/**
 * A whole scan at least this often: what no event reports (a file changed through a hard link outside the roots)
 * is found within this time, at the next step.
 */
const FULL_SCAN_MS = 5 * 60_000;

export class TreeWatch {
  private readonly watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  private dirty = new Set<string>();
  private events = 0;
  private broken = false;

  constructor(private readonly root: string) {}

  /** Watches a folder (relative; '' is the root) before it is listed. An ignored folder's events mark the folder itself. */
  watchDir(rel: string, ino: number, ignored: boolean): void {
    const held = this.watchers.get(rel);
    if (held && held.ino === ino) return;
    held?.watcher.close();
    try {
      const watcher = watch(rel ? join(this.root, rel) : this.root, { persistent: false }, (_type, name) => {
        this.events++;
        if (ignored) this.dirty.add(rel);
        else if (name === null || name === undefined) this.broken = true;
        else this.dirty.add(rel ? `${rel}/${String(name)}` : String(name));
      });
      watcher.on('error', () => {
        this.broken = true;
      });
      this.watchers.set(rel, { watcher, ino });
    } catch {
      this.broken = true; // out of watches (fs.inotify.max_user_watches): whole scans from now on
    }
  }

  watches(rel: string, ino: number): boolean {
    return this.watchers.get(rel)?.ino === ino;
  }

  /** Stops watching a folder that is gone, and everything under it. */
  forget(rel: string): void {
    const prefix = `${rel}/`;
    for (const [key, held] of this.watchers) {
      if (key !== rel && !key.startsWith(prefix)) continue;
      held.watcher.close();
      this.watchers.delete(key);
    }
  }

  /** When the root was last scanned whole: at least every FULL_SCAN_MS, whatever the watchers say. */
  private lastFull = 0;

  /** The paths changed since the last take, or null when they cannot be trusted (then: scan the whole root). */
  take(now = Date.now()): Set<string> | null {
    const trusted = !this.broken && this.watchers.has('') && this.events < QUEUE - 1 && now - this.lastFull < FULL_SCAN_MS;
    if (!trusted) this.lastFull = now;
    const dirty = this.dirty;
    this.dirty = new Set();
    this.events = 0;
    this.broken = false;
    return trusted ? dirty : null;
  }

  close(): void {
    for (const held of this.watchers.values()) held.watcher.close();
    this.watchers.clear();
  }
}

/**
 * Waits until the events the kernel queued so far have been delivered: writes a tick into a watched folder of the
 * data folder and waits for its event. False when it did not come back in time (then no watcher is trusted).
 */
export class EventFlush {
  private readonly dir: string;
  private watcher: FSWatcher | null = null;
  private readonly waiting = new Map<string, () => void>();
  private tick = 0;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'ledger', `ticks-${process.pid}`);
  }

  /** Set once a tick did not come back: the file system reports no events (a network mount), so none is waited for. */
  private dead = false;

  async flush(timeoutMs = 5000): Promise<boolean> {
    if (this.dead) return false;
    if (!this.watcher) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.watcher = watch(this.dir, { persistent: false }, (_type, name) => {
        const done = name === null || name === undefined ? undefined : this.waiting.get(String(name));
        if (!done) return;
        this.waiting.delete(String(name));
        done();
      });
      this.watcher.on('error', () => undefined);
    }
    // A name of its own per tick: an event of an earlier tick never answers this one.
    const name = `t${++this.tick}`;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(name);
        this.dead = true;
        resolve(false);
      }, timeoutMs);
      this.waiting.set(name, () => {
        clearTimeout(timer);
        rmSync(join(this.dir, name), { force: true });
        resolve(true);
      });
      writeFileSync(join(this.dir, name), '');
    });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
