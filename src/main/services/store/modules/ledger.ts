/**
 * The change ledger's rows (services/ledger): what each watched writable root held at its last scan (the stat cache,
 * with the content hash of every kept file), and the change sets the scans found — one per step that changed files,
 * one per person's or other program's change seen between runs, one per rewind. The bytes live in the data folder's
 * content-addressed blob store (`<data>/ledger/blobs`), never here.
 */
import { defineStoreModule, type Sql } from '../module';

/** One path as a scan saw it (relative to its root, `/`-separated). `hash` is set when its bytes are kept. */
export interface LedgerFileRow {
  root: string;
  rel: string;
  /** file, dir, symlink, ignored (a folder not descended into: node_modules, a .gitignore'd folder), other. */
  type: string;
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  mode: number;
  hash: string | null;
  link: string | null;
}

export interface LedgerRootRow {
  root: string;
  /** Advanced by every commit of a scan of this root (another process's cache is stale when it moved). */
  version: number;
  /** The run whose step scanned it last: a change seen at the next step of the same run belongs to that run. */
  last_run: string | null;
  scanned_at: number;
}

export interface LedgerSetRow {
  seq: number;
  id: string;
  /** Null for a change nobody in Deskhand made (the person, another program), seen before a step. */
  conversation_id: string | null;
  run_id: string | null;
  /** step (a step's calls), between (seen between two steps of one run: background jobs), outside, rewind. */
  source: string;
  /** For a rewind: what it rewound (JSON: the message, or the rewind it undid). */
  note: string | null;
  created_at: number;
}

export interface LedgerChangeRow {
  set_id: string;
  path: string;
  /** created, modified, deleted, mode (only the permission bits changed). */
  kind: string;
  /** The path's state before and after (JSON of services/ledger's EntryState), null where it did not exist. */
  before: string | null;
  after: string | null;
}

export const ledgerModule = defineStoreModule({
  name: 'ledger',
  migrations: [
    {
      description: 'change ledger: stat cache per writable root, change sets and their changed paths',
      sql: `
      CREATE TABLE ledger_roots (
        root TEXT PRIMARY KEY,
        version INTEGER NOT NULL DEFAULT 0,
        last_run TEXT,
        scanned_at INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE ledger_files (
        root TEXT NOT NULL,
        rel TEXT NOT NULL,
        type TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime REAL NOT NULL,
        ctime REAL NOT NULL,
        ino INTEGER NOT NULL,
        mode INTEGER NOT NULL,
        hash TEXT,
        link TEXT,
        PRIMARY KEY (root, rel)
      ) WITHOUT ROWID;
      CREATE TABLE ledger_sets (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT,
        run_id TEXT,
        source TEXT NOT NULL,
        note TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX ledger_sets_conversation ON ledger_sets(conversation_id, seq);
      CREATE TABLE ledger_changes (
        set_id TEXT NOT NULL REFERENCES ledger_sets(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        kind TEXT NOT NULL,
        before TEXT,
        after TEXT
      );
      CREATE INDEX ledger_changes_set ON ledger_changes(set_id);`,
    },
  ],
  queries: (sql: Sql) => ({
    root: (root: string) => sql.one<LedgerRootRow>('SELECT * FROM ledger_roots WHERE root = ?', root),
    files: (root: string) => sql.all<LedgerFileRow>('SELECT * FROM ledger_files WHERE root = ?', root),
    /**
     * Claims the next version of a root's cache, when it is still at `expected` (inside the caller's transaction; the
     * write takes the database's write lock first). False: another process committed a scan of it in between.
     */
    claimRoot(root: string, expected: number, runId: string | null, now: number): boolean {
      if (expected === 0) {
        return sql.run('INSERT INTO ledger_roots (root, version, last_run, scanned_at) VALUES (?, 1, ?, ?) ON CONFLICT(root) DO NOTHING', root, runId, now).changes === 1;
      }
      return sql.run('UPDATE ledger_roots SET version = version + 1, last_run = ?, scanned_at = ? WHERE root = ? AND version = ?', runId, now, root, expected).changes === 1;
    },
    putFile(row: LedgerFileRow): void {
      sql.run(
        `INSERT INTO ledger_files (root, rel, type, size, mtime, ctime, ino, mode, hash, link) VALUES (@root, @rel, @type, @size, @mtime, @ctime, @ino, @mode, @hash, @link)
         ON CONFLICT(root, rel) DO UPDATE SET type = excluded.type, size = excluded.size, mtime = excluded.mtime, ctime = excluded.ctime,
           ino = excluded.ino, mode = excluded.mode, hash = excluded.hash, link = excluded.link`,
        row,
      );
    },
    dropFile: (root: string, rel: string) => void sql.run('DELETE FROM ledger_files WHERE root = ? AND rel = ?', root, rel),
    addSet(row: Omit<LedgerSetRow, 'seq'>): void {
      sql.run('INSERT INTO ledger_sets (id, conversation_id, run_id, source, note, created_at) VALUES (@id, @conversation_id, @run_id, @source, @note, @created_at)', row);
    },
    addChange(row: LedgerChangeRow): void {
      sql.run('INSERT INTO ledger_changes (set_id, path, kind, before, after) VALUES (@set_id, @path, @kind, @before, @after)', row);
    },
    setsOf: (conversationId: string) => sql.all<LedgerSetRow>('SELECT * FROM ledger_sets WHERE conversation_id = ? ORDER BY seq', conversationId),
    getSet: (id: string) => sql.one<LedgerSetRow>('SELECT * FROM ledger_sets WHERE id = ?', id),
    changesOf: (setId: string) => sql.all<LedgerChangeRow>('SELECT * FROM ledger_changes WHERE set_id = ? ORDER BY rowid', setId),
    allSets: () => sql.all<LedgerSetRow>('SELECT * FROM ledger_sets ORDER BY seq'),
    dropSet: (id: string) => void sql.run('DELETE FROM ledger_sets WHERE id = ?', id),
    /** Every blob hash still referenced (a change's before or after, a root's cache). */
    referencedHashes(): Set<string> {
      const out = new Set<string>();
      for (const r of sql.all<{ h: string }>("SELECT hash AS h FROM ledger_files WHERE hash IS NOT NULL")) out.add(r.h);
      for (const r of sql.all<{ b: string | null; a: string | null }>("SELECT json_extract(before, '$.hash') AS b, json_extract(after, '$.hash') AS a FROM ledger_changes")) {
        if (r.b) out.add(r.b);
        if (r.a) out.add(r.a);
      }
      return out;
    },
  }),
});
