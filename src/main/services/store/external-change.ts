/**
 * Notices commits made by other connections (the CLI answering an approval, the job worker finishing a job) without
 * a busy poll: a file watch on the data folder (every commit touches the -wal file, a checkpoint the database file)
 * wakes a check of `PRAGMA data_version`, which changes only when another connection committed. The watch can miss
 * events (network file systems, a watcher that failed), so a slow safety check runs too.
 */
import { watch, type FSWatcher } from 'node:fs';

/** The safety re-check: slow on purpose, the file watch is what makes changes noticed at once. */
export const SAFETY_CHECK_MS = 5_000;
/**
 * Checks again shortly after a file event: the event comes from the WAL write, and the commit becomes visible only
 * after the fsync and the wal-index update that follow it (neither makes a file event). Only file activity arms
 * these, so an idle database costs nothing.
 */
const FOLLOW_UP_MS = [20, 100, 500];
/** How long the watch outlives its last listener (unreferenced: it never keeps the process alive). */
const LINGER_MS = 2_000;

export class ExternalChangeWatcher {
  readonly #listeners = new Set<() => void>();
  readonly #dataVersion: () => number;
  readonly #dir: string;
  readonly #dbFile: string;
  #watcher: FSWatcher | null = null;
  #timer: NodeJS.Timeout | null = null;
  #followUp: NodeJS.Timeout | null = null;
  #followUps: number[] = [];
  readonly #safetyMs: number;
  #last = 0;
  #queued = false;
  #closed = false;

  /** `dataVersion` reads `PRAGMA data_version` on the connection whose view the listeners use. */
  constructor(dir: string, dbFile: string, dataVersion: () => number, safetyMs = SAFETY_CHECK_MS) {
    this.#safetyMs = safetyMs;
    this.#dir = dir;
    this.#dbFile = dbFile;
    this.#dataVersion = dataVersion;
  }

  add(listener: () => void): () => void {
    if (this.#closed) return () => {};
    if (this.#listeners.size === 0) {
      if (this.#linger) {
        // Still watching (the last listener left a moment ago): only what is committed from now on is news.
        clearTimeout(this.#linger);
        this.#linger = null;
        this.#last = this.#dataVersion();
      } else this.#start();
    }
    this.#listeners.add(listener);
    return () => {
      if (!this.#listeners.delete(listener) || this.#listeners.size > 0 || this.#closed) return;
      // The watch is kept a moment for the next listener (a map's children come and go one after another: starting
      // and closing a file watch for each cost more than the rest of its bookkeeping); with nobody listening, a
      // check calls no one.
      this.#linger = setTimeout(() => {
        this.#linger = null;
        if (this.#listeners.size === 0) this.#stop();
      }, LINGER_MS);
      this.#linger.unref();
    };
  }

  #linger: NodeJS.Timeout | null = null;

  /** Checks now (also what the watch and the timer call): listeners fire when another connection committed. */
  check(): void {
    if (this.#closed || this.#listeners.size === 0) return;
    let version: number;
    try {
      version = this.#dataVersion();
    } catch {
      return; // closed underneath us
    }
    if (version === this.#last) return;
    this.#last = version;
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // one listener's failure is not another's
      }
    }
  }

  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    this.#stop();
  }

  #start(): void {
    this.#last = this.#dataVersion();
    try {
      this.#watcher = watch(this.#dir, { persistent: false }, (_event, name) => {
        if (name && !String(name).startsWith(this.#dbFile)) return;
        this.#schedule();
      });
      this.#watcher.on('error', () => this.#watcher?.close());
    } catch {
      this.#watcher = null; // the safety check still runs
    }
    this.#timer = setInterval(() => this.check(), this.#safetyMs);
    this.#timer.unref();
  }

  #stop(): void {
    if (this.#linger) clearTimeout(this.#linger);
    this.#linger = null;
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#followUp) clearTimeout(this.#followUp);
    this.#followUp = null;
  }

  /** One check per burst of file events (a commit writes several pages), then the follow-ups. */
  #schedule(): void {
    this.#followUps = [...FOLLOW_UP_MS];
    if (!this.#followUp) this.#nextFollowUp();
    if (this.#queued) return;
    this.#queued = true;
    setImmediate(() => {
      this.#queued = false;
      this.check();
    });
  }

  #nextFollowUp(): void {
    const delay = this.#followUps.shift();
    if (delay === undefined || this.#listeners.size === 0) {
      this.#followUp = null;
      return;
    }
    this.#followUp = setTimeout(() => {
      this.check();
      this.#nextFollowUp();
    }, delay);
    this.#followUp.unref();
  }
}
