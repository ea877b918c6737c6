/**
 * What a store module is: a family's tables, their ordered migrations and the queries over them. SQL lives only in
 * these modules (and the runner in migrate.ts); the rest of the code reaches rows through the `Store` facade.
 */
import type Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync } from 'node:fs';

export interface Migration {
  /** What it changes, for a person reading `schema_modules` history. */
  readonly description: string;
  readonly sql: string;
  /**
   * The `user_version` (the single shared counter used before store modules) whose migration already made this
   * change. A database at that version or later has it; migrations without one are newer than the shared counter.
   */
  readonly legacyUserVersion?: number;
}

/** Prepared-statement helpers over one connection; statements are prepared once per distinct SQL text. */
export class Sql {
  readonly #db: Database.Database;
  readonly #cache = new Map<string, Database.Statement>();
  #redact: (text: string) => string = (text) => text;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** The host's redactor for text from outside (Store.setRedactor); until one is set, text is kept as it is. */
  setRedactor(redact: (text: string) => string): void {
    this.#redact = redact;
  }

  /**
   * Text from outside Deskhand (a server's stderr, a command's tail, a child's answer…) as it may be stored: passed
   * through the host's redactor. Every module write of such a column goes through here (or `fields`).
   */
  text<T extends string | null | undefined>(value: T): T {
    return (typeof value === 'string' && value ? this.#redact(value) : value) as T;
  }

  /** A row or patch with the named columns' text redacted (`text`); other columns as they are. */
  fields<P extends object>(row: P, columns: readonly string[]): P {
    let out: P | null = null;
    for (const c of columns) {
      const v = (row as Record<string, unknown>)[c];
      if (typeof v !== 'string' || !v) continue;
      const red = this.#redact(v);
      if (red !== v) (out ??= { ...row })[c as keyof P] = red as P[keyof P];
    }
    return out ?? row;
  }

  statement(sql: string): Database.Statement {
    let stmt = this.#cache.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#cache.set(sql, stmt);
    }
    // A statement that writes (run here, or by a module holding it; `INSERT … RETURNING` too, which also reads): the
    // stretch's read snapshot ends first, what `oneShared` kept may be stale after it, and outside `withoutFsync` its
    // commit is a full one. A statement that only reads joins the stretch's snapshot.
    if (!stmt.readonly) {
      this.#endRead();
      this.#forget();
      this.#durable();
    } else this.#beginRead();
    return stmt;
  }

  /**
   * The read snapshot of the synchronous stretch now running (issue 54, thirteenth round). In WAL mode every statement
   * outside a transaction is a read transaction of its own: SQLite takes a read lock on the WAL index (a `fcntl`
   * system call) and gives it back (another), and a step makes dozens of point reads. So the first read of a stretch
   * opens a deferred transaction, the stretch's other reads share it, and it ends before the next microtask runs (as
   * `oneShared` forgets), before this connection writes (a write inside it would fail with SQLITE_BUSY_SNAPSHOT
   * whenever another connection committed since it began) and before a transaction. What a stretch reads is one
   * consistent moment of the database; a commit another connection makes during the stretch is read by the next one,
   * as `oneShared` already did. It takes no lock writers wait for (WAL readers never block writers).
   */
  #reading = false;
  #beginStmt: Database.Statement | null = null;
  #commitStmt: Database.Statement | null = null;
  #rollbackStmt: Database.Statement | null = null;
  readonly #endReadSoon = (): void => this.#endRead();

  #beginRead(): void {
    if (this.#reading || this.#db.inTransaction) return;
    (this.#beginStmt ??= this.#db.prepare('BEGIN DEFERRED')).run();
    this.#reading = true;
    queueMicrotask(this.#endReadSoon);
  }

  /** Ends the stretch's read snapshot, if one is open; never throws (it also runs as a microtask of its own). */
  #endRead(): void {
    if (!this.#reading) return;
    this.#reading = false;
    // Nothing open (a closed connection has no transaction either).
    if (!this.#db.inTransaction) return;
    try {
      (this.#commitStmt ??= this.#db.prepare('COMMIT')).run();
    } catch {
      // A read-only transaction has nothing to commit; should its end still fail, it is given up instead.
      try {
        (this.#rollbackStmt ??= this.#db.prepare('ROLLBACK')).run();
      } catch {
        // nothing open any more
      }
    }
  }

  /**
   * Ends the stretch's read snapshot now, so the next read sees every commit made so far (by any connection). For code
   * that reads what another connection of its own just wrote in the same stretch (tests, a second `Store`), and for a
   * version check that must not be the stretch's (the external-change watcher's `data_version`).
   */
  settle(): void {
    this.#endRead();
    this.#forget();
  }

  one<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  /**
   * `one`, for a point read that several parts of a step make in a row (a conversation's subagent row, peer row,
   * profile, goal: each hold and filter asks for itself): asked again with the same SQL and parameters in the same
   * synchronous stretch of code, with no write of this connection in between, it answers from the first read (a copy,
   * so no caller sees another's changes). What it keeps is dropped at any write, at the end of any transaction
   * (committed or rolled back) and before the next microtask runs, so a change made by anyone between two steps
   * — another connection, another process, this one — is read fresh by the next step.
   */
  oneShared<T extends object>(sql: string, ...params: unknown[]): T | undefined {
    const key = params.length === 1 && typeof params[0] === 'string' ? `${sql}\0${params[0]}` : null;
    if (key === null) return this.one<T>(sql, ...params);
    if (this.#shared.has(key)) {
      const kept = this.#shared.get(key) as T | undefined;
      return kept === undefined ? undefined : { ...kept };
    }
    const row = this.one<T>(sql, ...params);
    if (this.#shared.size === 0) queueMicrotask(this.#forgetSoon);
    this.#shared.set(key, row);
    return row === undefined ? undefined : { ...row };
  }

  /** What `oneShared` answers from: rows read in this synchronous stretch, by SQL and parameter. */
  readonly #shared = new Map<string, unknown>();
  readonly #forgetSoon = (): void => this.#forget();
  #forget(): void {
    if (this.#shared.size) this.#shared.clear();
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  /** Runs a write; returns how many rows it changed. */
  run(sql: string, ...params: unknown[]): Database.RunResult {
    return this.statement(sql).run(...params);
  }

  /** Whether a transaction is open on this connection (what is read now may yet be rolled back). */
  get inTransaction(): boolean {
    return this.#db.inTransaction && !this.#reading;
  }

  /**
   * Runs `fn` in a transaction. Inside another transaction it joins that one (no savepoint: a throw rolls back the
   * outer transaction when it reaches it, and a savepoint would make FTS5 flush its pending index data early).
   * BEGIN IMMEDIATE: the write lock is taken (waiting out busy_timeout) before `fn` reads. A deferred BEGIN would read
   * a snapshot first and then fail its first write at once with "database is locked" (SQLITE_BUSY_SNAPSHOT, which no
   * busy timeout waits out) whenever another process (the job worker, a second CLI) committed in between.
   */
  transaction<T>(fn: () => T): T {
    this.#endRead();
    if (this.#db.inTransaction) return fn();
    this.#durable();
    try {
      return this.#db.transaction(fn).immediate();
    } finally {
      // Read inside it (a rolled-back write's rows, perhaps): not kept past its end.
      this.#forget();
    }
  }

  /**
   * A transaction committed without an fsync (synchronous=NORMAL for this commit; the store is in WAL mode): like any
   * commit it survives this process being killed at any point (the WAL frames are the kernel's once written), but a
   * power loss or OS crash may roll it back (never corrupt it). For rows that describe live processes, which a power
   * loss ends anyway; the next full commit syncs the WAL, these frames included. Inside another transaction it joins
   * that one, with that one's durability.
   */
  transactionWithoutFsync<T>(fn: () => T): T {
    return this.withoutFsync(() => this.transaction(fn));
  }

  /**
   * Runs `fn` (synchronous, so no other write can slip in) with its commits made without an fsync; see
   * transactionWithoutFsync. Inside a transaction it changes nothing (that transaction's commit decides).
   */
  withoutFsync<T>(fn: () => T): T {
    this.#endRead();
    if (this.#db.inTransaction) return fn();
    if (this.#synchronous !== 'NORMAL') this.#setSynchronous('NORMAL');
    this.#unsynced = true;
    this.#relaxed++;
    try {
      return fn();
    } finally {
      this.#relaxed--;
    }
  }

  #unsynced = false;

  /**
   * The connection's `synchronous` setting, changed only when a commit needs the other one: `withoutFsync` leaves it
   * NORMAL, and the next write outside it (a statement that writes, or a transaction) sets FULL again first. Steps of
   * a run commit without an fsync one after another, and each paid two pragma statements for it (issue 54).
   */
  #synchronous: 'FULL' | 'NORMAL' = 'FULL';
  /** How deep in `withoutFsync` calls the code now running is. */
  #relaxed = 0;
  readonly #pragmas = new Map<string, Database.Statement>();

  #setSynchronous(mode: 'FULL' | 'NORMAL'): void {
    const sql = `PRAGMA synchronous = ${mode}`;
    let stmt = this.#pragmas.get(sql);
    if (!stmt) this.#pragmas.set(sql, (stmt = this.#db.prepare(sql)));
    stmt.run();
    this.#synchronous = mode;
  }

  /** Before a write outside `withoutFsync` (and not inside a transaction, whose start decided): FULL, as it should commit. */
  #durable(): void {
    if (this.#synchronous === 'NORMAL' && this.#relaxed === 0 && !this.#db.inTransaction) this.#setSynchronous('FULL');
  }

  /**
   * Makes every commit so far durable against power loss: fsyncs the WAL when a commit without an fsync may be in
   * it (what a full commit would have done). Before a call acts on the world, so its record is on disk first.
   */
  sync(): void {
    if (!this.#unsynced) return;
    let fd: number;
    try {
      fd = openSync(`${this.#db.name}-wal`, 'r');
    } catch (err) {
      // No WAL file: nothing is waiting in one (an in-memory store, or the WAL was checkpointed away).
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.#unsynced = false;
        return;
      }
      throw err;
    }
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.#unsynced = false;
  }
}

export interface StoreModule<Q> {
  /** Unique and stable: it is the key of this module's row in `schema_modules`. */
  readonly name: string;
  /** Applied in order; a migration only ever adds (rows are never lost). Never edit or reorder a shipped one. */
  readonly migrations: readonly Migration[];
  queries(sql: Sql): Q;
}

export function defineStoreModule<Q>(module: StoreModule<Q>): StoreModule<Q> {
  return module;
}

/** `SET a = @a, b = @b` for a patch object; the keys come from typed patches, never from outside input. */
export function setClause(patch: object): string {
  return Object.keys(patch)
    .map((f) => {
      if (!/^[a-z_]+$/.test(f)) throw new Error(`Not a column name: ${f}`);
      return `${f} = @${f}`;
    })
    .join(', ');
}
