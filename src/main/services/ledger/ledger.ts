/**
 * The change ledger: which paths under a conversation's writable roots each step created, modified, deleted or
 * changed the mode of, with their previous bytes kept, and rewinding them (docs/rewind.md).
 *
 * A scan before and after each step that may change files (services/ledger/scan.ts) compares the tree with the stat
 * cache of the previous scan; the difference is one change set. What a before-scan finds was done between steps:
 * during a run (the run's background jobs) it belongs to the run, otherwise to nobody in Deskhand (the person,
 * another program) and is recorded as `outside`, so their bytes are kept too and a rewind can tell their work from
 * the agent's. The cache is kept in memory per root and in SQLite (ledger_roots/ledger_files); a version per root
 * tells a process when another one committed a scan in between, and a commit claims the next version in its
 * transaction (retrying on a race), so several processes on one data folder never record a change twice or lose one.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import { chmod, mkdir, rename, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ledgerModule, type LedgerChangeRow, type LedgerSetRow } from '../store/modules/ledger';
import type { Store } from '../store/store';
import { BlobStore } from './blobs';
import { RootTooLarge, entryAt, kindOf, rescanPaths, sameState, scanRoot, stateOf, type ChangeKind, type Entry, type EntryState, type ScanLimits } from './scan';
import { EventFlush, TreeWatch } from './tree-watch';

export type { ChangeKind, EntryState };

/** Files above this are named, not kept (8 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_ENTRIES = 50_000;
/** Files a rewind writes at once (each through its own temporary file and rename). */
const PARALLEL_PUTS = 8;
/** This process's umask, read once (process.umask() with no argument only reads it). */
const UMASK = process.umask();

export interface ChangedPath {
  path: string;
  kind: ChangeKind;
  before: EntryState | null;
  after: EntryState | null;
  /** The previous state can be put back: its bytes were kept (or it was absent, a folder or a link). */
  restorable: boolean;
}

export interface ChangeSet {
  id: string;
  conversationId: string | null;
  runId: string | null;
  source: 'step' | 'between' | 'outside' | 'rewind';
  note: unknown;
  createdAt: number;
  changes: ChangedPath[];
}

export type RewindAction = 'restored' | 'removed' | 'recreated' | 'unchanged' | 'kept' | 'not-restorable';

export interface RewindItem {
  path: string;
  /** What happened (or, in a dry run, would happen). */
  action: RewindAction;
  /** Why a path was left as it is. */
  reason?: string;
}

export interface RewindResult {
  dryRun: boolean;
  items: RewindItem[];
  /** The change set recording this rewind (rewind it to redo); null in a dry run or when nothing changed. */
  setId: string | null;
}

export interface StepScope {
  conversationId: string;
  runId: string;
  roots: readonly string[];
}

interface RootCache {
  version: number;
  entries: Map<string, Entry>;
}

function restorableState(s: EntryState | null): boolean {
  if (!s) return true;
  if (s.type === 'file') return !!s.hash;
  return s.type === 'dir' || s.type === 'symlink';
}

export { recordableRoot } from './names';
import { TOO_BROAD } from './names';

/** The roots to scan: absolute, existing folders, none inside another, none too broad. */
function topRoots(roots: readonly string[]): string[] {
  const abs = [...new Set(roots.map((r) => resolve(r)))].filter((r) => {
    if (TOO_BROAD.has(r)) return false;
    try {
      return lstatSync(r).isDirectory();
    } catch {
      return false;
    }
  });
  return abs.filter((r) => !abs.some((o) => o !== r && (r.startsWith(o + sep) || o === sep)));
}

export class ChangeLedger {
  readonly blobs: BlobStore;
  private readonly caches = new Map<string, RootCache>();
  private readonly limits: ScanLimits;
  private readonly watches = new Map<string, TreeWatch>();
  private readonly flusher: EventFlush | null;

  constructor(
    private readonly store: Store,
    dataDir: string,
    opts: { maxFileBytes?: number; watch?: boolean } = {},
  ) {
    this.blobs = new BlobStore(dataDir);
    this.limits = { maxFileBytes: opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, maxEntries: MAX_ENTRIES, skip: [resolve(dataDir)] };
    // Linux only: the flush relies on inotify's one ordered queue per process (FSEvents and kqueue give no such order).
    this.flusher = (opts.watch ?? process.platform === 'linux') ? new EventFlush(dataDir) : null;
  }

  /** Stops watching (the watchers never keep a process alive; this frees them in a long-lived one). */
  close(): void {
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
    this.flusher?.close();
  }

  private get q() {
    return this.store.module(ledgerModule);
  }

  /** The cache of a root as the store has it now (read again only when another process committed a scan of it). */
  private cacheOf(root: string): RootCache {
    const version = this.q.root(root)?.version ?? 0;
    const held = this.caches.get(root);
    if (held && held.version === version) return held;
    const entries = new Map<string, Entry>();
    if (version > 0) for (const r of this.q.files(root)) entries.set(r.rel, { type: r.type as Entry['type'], size: r.size, mtime: r.mtime, ctime: r.ctime, ino: r.ino, mode: r.mode, hash: r.hash, link: r.link });
    const cache = { version, entries };
    this.caches.set(root, cache);
    return cache;
  }

  /**
   * Scans the roots and records what changed since their last scans as one change set, attributed by `attribute`
   * (which may look at the root's last scanning run). Returns the set's id, or null when nothing changed.
   */
  async observe(roots: readonly string[], attribute: (lastRun: string | null) => Omit<LedgerSetRow, 'seq' | 'id' | 'created_at'>, scanningRun: string | null): Promise<string | null> {
    // Every event the kernel queued until now is delivered first, so the watchers' lists are complete.
    const flushed = this.flusher ? await this.flusher.flush() : false;
    let setId: string | null = null;
    for (const root of topRoots(roots)) {
      const id = this.observeRoot(root, attribute, scanningRun, setId, flushed);
      setId ??= id;
    }
    return setId;
  }

  private observeRoot(root: string, attribute: (lastRun: string | null) => Omit<LedgerSetRow, 'seq' | 'id' | 'created_at'>, scanningRun: string | null, joinSet: string | null, flushed: boolean): string | null {
    let watch = this.watches.get(root);
    if (!watch && this.flusher) this.watches.set(root, (watch = new TreeWatch(root)));
    // What the kernel reported changed since the last scan, when nothing can have been missed; else null: scan it all.
    const taken = watch?.take() ?? null;
    const dirty = flushed ? taken : null;
    const onDir = watch ? (rel: string, ino: number, ignored: boolean) => watch.watchDir(rel, ino, ignored) : undefined;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if (attempt > 0) backOff(attempt);
      const cache = this.cacheOf(root);
      if (dirty && dirty.size === 0 && cache.version > 0 && this.q.root(root)?.last_run === scanningRun) return null;
      // What differs from the cache: every path of the root listed again (a full scan), or only the paths the watcher
      // named (null: gone). The cache is not copied: it is brought up to date in place once the scan is committed.
      let delta: Map<string, Entry | null>;
      let full: Map<string, Entry> | null = null;
      try {
        if (dirty && cache.version > 0) {
          delta = rescanPaths(root, cache.entries, dirty, this.blobs, this.limits, onDir!, (rel) => watch!.forget(rel), (rel, ino) => watch!.watches(rel, ino));
        } else {
          full = scanRoot(root, cache.entries, this.blobs, this.limits, onDir);
          delta = new Map<string, Entry | null>();
          for (const [rel, e] of full) {
            const old = cache.entries.get(rel);
            if (!old || old.type !== e.type || old.size !== e.size || old.mtime !== e.mtime || old.ctime !== e.ctime || old.ino !== e.ino || old.mode !== e.mode || old.hash !== e.hash) delta.set(rel, e);
          }
          for (const rel of cache.entries.keys()) if (!full.has(rel)) delta.set(rel, null);
        }
      } catch (err) {
        if (err instanceof RootTooLarge) {
          watch?.close();
          this.watches.delete(root);
          return null;
        }
        throw err;
      }
      const changes: { rel: string; kind: ChangeKind; before: EntryState | null; after: EntryState | null }[] = [];
      const touched = [...delta.keys()];
      if (cache.version > 0) {
        for (const [rel, e] of delta) {
          const old = cache.entries.get(rel);
          if (!e) {
            if (old) changes.push({ rel, kind: 'deleted', before: stateOf(old), after: null });
            continue;
          }
          const before = old ? stateOf(old) : null;
          const after = stateOf(e);
          const kind = kindOf(before, after);
          if (kind) changes.push({ rel, kind, before, after });
        }
      }
      const lastRun = this.q.root(root)?.last_run ?? null;
      if (touched.length === 0 && cache.version > 0 && lastRun === scanningRun) return null;
      const now = Date.now();
      let setId: string | null = null;
      // Without an fsync: a SIGKILL loses nothing; a power loss may lose the newest set (found again as outside).
      const committed = this.store.withoutFsync(() => this.store.transaction(() => {
        if (!this.q.claimRoot(root, cache.version, scanningRun, now)) return false;
        for (const rel of touched) {
          const e = delta.get(rel);
          if (e) this.q.putFile({ root, rel, ...e });
          else this.q.dropFile(root, rel);
        }
        if (changes.length) {
          setId = joinSet ?? `chg_${randomUUID()}`;
          if (!joinSet) this.q.addSet({ id: setId, created_at: now, ...attribute(lastRun) });
          changes.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
          for (const c of changes) this.q.addChange({ set_id: setId, path: join(root, c.rel), kind: c.kind, before: c.before && JSON.stringify(c.before), after: c.after && JSON.stringify(c.after) });
        }
        return true;
      }));
      if (committed) {
        let entries = full;
        if (!entries) {
          entries = cache.entries;
          for (const [rel, e] of delta) {
            if (e) entries.set(rel, e);
            else entries.delete(rel);
          }
        }
        this.caches.set(root, { version: cache.version + 1, entries });
        return setId;
      }
      this.caches.delete(root); // another process scanned it in between: read its cache and scan again
    }
    throw new Error(`The change ledger could not record ${root}: other processes kept scanning it.`);
  }

  /**
   * Watches one step: scans before (a change found then is the run's own between two of its steps, or someone
   * else's) and returns what scans after (the step's changes).
   */
  async beginStep(scope: StepScope): Promise<() => Promise<void>> {
    await this.observe(scope.roots, (lastRun) => (lastRun === scope.runId ? { conversation_id: scope.conversationId, run_id: scope.runId, source: 'between', note: null } : { conversation_id: null, run_id: null, source: 'outside', note: null }), scope.runId);
    return async () => void (await this.observe(scope.roots, () => ({ conversation_id: scope.conversationId, run_id: scope.runId, source: 'step', note: null }), scope.runId));
  }

  private toSet(row: LedgerSetRow): ChangeSet {
    return {
      id: row.id,
      conversationId: row.conversation_id,
      runId: row.run_id,
      source: row.source as ChangeSet['source'],
      note: row.note ? (JSON.parse(row.note) as unknown) : null,
      createdAt: row.created_at,
      changes: this.q.changesOf(row.id).map(toChanged),
    };
  }

  /** The change sets of a conversation, oldest first (each step's, between steps', rewinds'). */
  setsOf(conversationId: string): ChangeSet[] {
    return this.q.setsOf(conversationId).map((r) => this.toSet(r));
  }

  getSet(id: string): ChangeSet | null {
    const row = this.q.getSet(id);
    return row ? this.toSet(row) : null;
  }

  /**
   * Puts the paths the given change sets changed back to their state before the first of them. A path whose state
   * now is not what the last of them left (the person or another program changed it since) is kept and named. The
   * rewind is recorded as a change set of its own (source `rewind`), so rewinding it redoes.
   */
  async rewind(conversationId: string, sets: readonly ChangeSet[], opts: { dryRun: boolean; note: unknown; roots: readonly string[] }): Promise<RewindResult> {
    const net = netChanges(sets);
    const memo = new Map<string, string | null>();
    const roots = [...new Set([...opts.roots, ...net.map((c) => this.rootOf(c.path, memo)).filter((r): r is string => !!r)])];
    // What changed since, by anyone, is recorded (and its bytes kept) before anything is put back.
    if (!opts.dryRun) await this.observe(roots, () => ({ conversation_id: null, run_id: null, source: 'outside', note: null }), null);
    const items: RewindItem[] = [];
    const plan: { path: string; target: EntryState | null; current: EntryState | null }[] = [];
    for (const c of net) {
      if (c.before?.type === 'ignored' || c.after?.type === 'ignored') {
        items.push({ path: c.path, action: 'not-restorable', reason: 'an ignored folder (dependencies, build output): its contents are not kept' });
        continue;
      }
      const currentEntry = entryAt(c.path, this.cachedEntry(c.path, memo), this.blobs, this.limits.maxFileBytes);
      const current = currentEntry ? stateOf(currentEntry) : null;
      if (sameState(current, c.before)) {
        items.push({ path: c.path, action: 'unchanged' });
        continue;
      }
      if (!sameState(current, c.after)) {
        items.push({ path: c.path, action: 'kept', reason: 'changed since by you or another program' });
        continue;
      }
      if (!restorableState(c.before) || (current?.type === 'dir' && c.before && c.before.type !== 'dir')) {
        items.push({ path: c.path, action: 'not-restorable', reason: c.before?.type === 'file' && !c.before.hash ? 'its previous bytes were not kept (over the size cap or unreadable)' : 'a folder now stands where it was' });
        continue;
      }
      plan.push({ path: c.path, target: c.before, current });
    }
    // Removals deepest first (a created folder after what was created in it), then creations shallowest first.
    const removals = plan.filter((p) => !p.target).sort((a, b) => b.path.length - a.path.length);
    const puts = plan.filter((p) => p.target).sort((a, b) => a.path.length - b.path.length);
    for (const p of removals) {
      try {
        if (!opts.dryRun) {
          if (p.current?.type === 'dir') rmdirSync(p.path);
          else unlinkSync(p.path);
        }
        items.push({ path: p.path, action: 'removed' });
      } catch (err) {
        items.push({ path: p.path, action: 'kept', reason: (err as NodeJS.ErrnoException).code === 'ENOTEMPTY' ? 'the folder holds files the ledger did not create' : String((err as Error).message) });
      }
    }
    // Folders first, shallowest first (what goes in them needs them); then everything else, several at a time: each
    // is its own temporary file and rename, so their order does not matter.
    const putOne = async (p: (typeof puts)[number]) => {
      try {
        if (!opts.dryRun) await this.put(p.path, p.target!, p.current, made);
        items.push({ path: p.path, action: p.current ? 'restored' : 'recreated' });
      } catch (err) {
        items.push({ path: p.path, action: 'kept', reason: String((err as Error).message) });
      }
    };
    const made = new Set<string>();
    for (const p of puts.filter((x) => x.target!.type === 'dir')) await putOne(p);
    const rest = puts.filter((x) => x.target!.type !== 'dir');
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(PARALLEL_PUTS, rest.length) }, async () => {
      while (next < rest.length) await putOne(rest[next++]!);
    }));
    items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    let setId: string | null = null;
    if (!opts.dryRun) setId = await this.observe(roots, () => ({ conversation_id: conversationId, run_id: null, source: 'rewind', note: JSON.stringify(opts.note) }), null);
    return { dryRun: opts.dryRun, items, setId };
  }

  /** The recorded root a path lies in (`memo`: folders already looked up, for one rewind's many paths). */
  private rootOf(path: string, memo = new Map<string, string | null>()): string | null {
    const seen: string[] = [];
    let dir = dirname(path);
    let found: string | null = null;
    for (;;) {
      const known = memo.get(dir);
      if (known !== undefined) {
        found = known;
        break;
      }
      seen.push(dir);
      if (this.q.root(dir)) {
        found = dir;
        break;
      }
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    for (const d of seen) memo.set(d, found);
    return found;
  }

  private cachedEntry(path: string, memo: Map<string, string | null>): Entry | undefined {
    const root = this.rootOf(path, memo);
    if (!root) return undefined;
    return this.caches.get(root)?.entries.get(relative(root, path).split(sep).join('/'));
  }

  /** Puts one path into a recorded state: its bytes through a temporary file and a rename, then its mode. */
  private async put(path: string, target: EntryState, current: EntryState | null, made: Set<string>): Promise<void> {
    const dir = dirname(path);
    if (!made.has(dir)) {
      await mkdir(dir, { recursive: true });
      made.add(dir);
    }
    if (current && current.type !== target.type) {
      if (current.type === 'dir') await rmdir(path);
      else await unlink(path);
    }
    switch (target.type) {
      case 'dir':
        if (!current || current.type !== 'dir') await mkdir(path);
        await chmod(path, target.mode);
        return;
      case 'symlink':
        if (current?.type === 'symlink') await unlink(path);
        await symlink(target.link ?? '', path);
        return;
      case 'file': {
        const bytes = await this.blobs.read(target.hash!);
        if (!bytes) throw new Error('its previous bytes are missing from the ledger (pruned?)');
        const tmp = join(dir, `.deskhand-rewind-${process.pid}-${randomUUID().slice(0, 8)}`);
        await writeFile(tmp, bytes, { mode: target.mode });
        // The mode asked for, unless the umask took no bit of it (then the write set it already).
        if ((target.mode & UMASK) !== 0) await chmod(tmp, target.mode);
        await rename(tmp, path);
        return;
      }
      default:
        throw new Error(`a ${target.type} cannot be put back`);
    }
  }

  /**
   * Retention: change sets older than `maxAgeMs` go, then the oldest until the kept bytes fit `maxBytes`; blobs no
   * change or cache references are deleted. The stat caches' own blobs (the previous bytes of the roots as they are
   * now) always stay: without them the next change could not be taken back.
   */
  prune(opts: { maxBytes: number; maxAgeMs: number; now?: number; graceMs?: number }): { setsDropped: number; keptBytes: number; freedBytes: number } {
    const now = opts.now ?? Date.now();
    const grace = opts.graceMs ?? 10 * 60_000;
    let dropped = 0;
    const sets = this.q.allSets();
    this.store.transaction(() => {
      for (const s of sets) {
        if (now - s.created_at <= opts.maxAgeMs) continue;
        this.q.dropSet(s.id);
        dropped++;
      }
    });
    let result = this.blobs.collect(this.q.referencedHashes(), grace, now);
    let freed = result.freedBytes;
    let remaining = this.q.allSets();
    while (result.keptBytes > opts.maxBytes && remaining.length) {
      const batch = remaining.slice(0, Math.max(1, Math.ceil(remaining.length / 10)));
      this.store.transaction(() => batch.forEach((s) => this.q.dropSet(s.id)));
      dropped += batch.length;
      result = this.blobs.collect(this.q.referencedHashes(), grace, now);
      freed += result.freedBytes;
      remaining = this.q.allSets();
    }
    return { setsDropped: dropped, keptBytes: result.keptBytes, freedBytes: freed };
  }
}

function toChanged(r: LedgerChangeRow): ChangedPath {
  const before = r.before ? (JSON.parse(r.before) as EntryState) : null;
  const after = r.after ? (JSON.parse(r.after) as EntryState) : null;
  return { path: r.path, kind: r.kind as ChangeKind, before, after, restorable: restorableState(before) && before?.type !== 'ignored' };
}

/** Per path: its state before the first of the sets and after the last (paths that ended as they began are left out). */
export function netChanges(sets: readonly ChangeSet[]): ChangedPath[] {
  const byPath = new Map<string, { before: EntryState | null; after: EntryState | null }>();
  for (const s of sets) {
    for (const c of s.changes) {
      const held = byPath.get(c.path);
      if (held) held.after = c.after;
      else byPath.set(c.path, { before: c.before, after: c.after });
    }
  }
  const out: ChangedPath[] = [];
  for (const [path, { before, after }] of byPath) {
    const kind = kindOf(before, after);
    if (kind) out.push({ path, kind, before, after, restorable: restorableState(before) && before?.type !== 'ignored' });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Two processes stepping in one root at once each scan, then claim the root's next version; the one that lost scans
 * again. Under load the same one could keep losing (each scan takes longer than the other's step), so a lost claim
 * waits a random while, growing with each loss, before it scans again: the two fall out of step (at most about 2 s
 * over every attempt). The wait blocks this process; it happens only when another process claimed the root meanwhile.
 */
const CLAIM_ATTEMPTS = 12;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function backOff(attempt: number): void {
  Atomics.wait(sleeper, 0, 0, Math.random() * Math.min(5 * 2 ** attempt, 250));
}
