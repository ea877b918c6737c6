/**
 * The reads of one synchronous stretch of code share one read transaction (Sql's read snapshot, docs/performance.md
 * "Issue 54, thirteenth round"): in WAL mode each statement outside a transaction took a read lock of its own (two
 * `fcntl` calls), and a step makes dozens. Proven by what it must and must not see: the stretch's reads are one
 * moment (another connection's commit during the stretch is read from the next stretch on); the snapshot ends before
 * this connection writes (a write inside it would fail with SQLITE_BUSY_SNAPSHOT once another connection committed),
 * before a transaction and before the next microtask; a statement that reads and writes (RETURNING) counts as a write.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sql } from '../../src/main/services/store/module';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';

describe('a stretch of code reads one snapshot (Store)', () => {
  let store: Store;
  let other: Store;
  beforeEach(() => {
    store = new Store(tempDir('deskhand-read-snapshot-'));
    // Another connection to the same folder: what another process (the CLI, the job worker) writes through.
    other = new Store(store.dataDir);
    store.createConversation({ id: 'c', title: 't', folder: '/tmp', policy: 'read-only' });
    store.createRun({ id: 'r', conversation_id: 'c', policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  });
  afterEach(() => {
    other.close();
    store.close();
  });

  it("another connection's commit is read from the next stretch on, never halfway through one", async () => {
    expect(store.getRun('r')!.step).toBe(0);
    other.updateRun('r', { step: 7 });
    // The same stretch: the same moment of the database.
    expect(store.getRun('r')!.step).toBe(0);
    const before = store.changeStamp();
    await Promise.resolve();
    expect(store.getRun('r')!.step).toBe(7);
    expect(store.changeStamp()).not.toBe(before);
  });

  it('a write of this connection ends the snapshot first: no SQLITE_BUSY_SNAPSHOT, and both changes are read after it', () => {
    expect(store.getRun('r')!.status).toBe('running');
    other.updateRun('r', { step: 3 });
    // Inside the snapshot this write would fail at once ("database is locked"): the snapshot predates the commit.
    store.updateRun('r', { input_tokens: 11 });
    const run = store.getRun('r')!;
    expect([run.step, run.input_tokens]).toEqual([3, 11]);
  });

  it('a transaction and a commit without an fsync after reads in the same stretch see the latest commit', () => {
    expect(store.getRun('r')!.step).toBe(0);
    other.updateRun('r', { step: 4 });
    const inside = store.transaction(() => {
      store.updateRun('r', { output_tokens: 5 });
      return store.getRun('r')!;
    });
    expect([inside.step, inside.output_tokens]).toEqual([4, 5]);
    expect(store.getRun('r')!.step).toBe(4);
    other.updateRun('r', { step: 6 });
    store.withoutFsync(() => store.updateRun('r', { output_tokens: 8 }));
    const run = store.getRun('r')!;
    expect([run.step, run.output_tokens]).toEqual([6, 8]);
  });

  it('settle ends the snapshot at once', () => {
    expect(store.getRun('r')!.step).toBe(0);
    other.updateRun('r', { step: 2 });
    store.settle();
    expect(store.getRun('r')!.step).toBe(2);
  });
});

describe('Sql: which statements join the snapshot', () => {
  let dir: string;
  let a: Database.Database;
  let b: Database.Database;
  let sql: Sql;
  beforeEach(() => {
    dir = tempDir('deskhand-read-snapshot-sql-');
    a = new Database(join(dir, 'x.db'));
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    a.prepare('INSERT INTO t (v) VALUES (?)').run('one');
    b = new Database(join(dir, 'x.db'));
    sql = new Sql(a);
  });
  afterEach(() => {
    b.close();
    a.close();
  });

  it('only reads open it, and it is not a transaction to callers', () => {
    expect(sql.one<{ v: string }>('SELECT v FROM t WHERE id = 1')!.v).toBe('one');
    // Open on the connection (what the reads share) …
    expect(a.inTransaction).toBe(true);
    // … but no write is pending: callers that ask whether what they read may be rolled back are told no.
    expect(sql.inTransaction).toBe(false);
    b.prepare("UPDATE t SET v = 'two' WHERE id = 1").run();
    expect(sql.all<{ v: string }>('SELECT v FROM t')[0]!.v).toBe('one');
  });

  it('a statement that writes and returns rows (RETURNING) is a write: the snapshot ends before it', () => {
    expect(sql.one<{ n: number }>('SELECT count(*) AS n FROM t')!.n).toBe(1);
    b.prepare("INSERT INTO t (v) VALUES ('from b')").run();
    const row = sql.one<{ id: number }>("INSERT INTO t (v) VALUES ('from a') RETURNING id");
    expect(row!.id).toBe(3);
    expect(a.inTransaction).toBe(false);
    expect(sql.one<{ n: number }>('SELECT count(*) AS n FROM t')!.n).toBe(3);
  });

  it('a transaction after reads is one of its own (BEGIN IMMEDIATE, not the snapshot): a throw rolls its writes back', () => {
    expect(sql.one<{ n: number }>('SELECT count(*) AS n FROM t')!.n).toBe(1);
    b.prepare("INSERT INTO t (v) VALUES ('from b')").run();
    expect(() =>
      sql.transaction(() => {
        sql.run("INSERT INTO t (v) VALUES ('from a')");
        expect(sql.inTransaction).toBe(true);
        // Inside it the latest commit is read (the write lock was taken after the snapshot ended).
        expect(sql.one<{ n: number }>('SELECT count(*) AS n FROM t')!.n).toBe(3);
        throw new Error('undone');
      }),
    ).toThrow('undone');
    expect(sql.all<{ v: string }>('SELECT v FROM t ORDER BY id').map((r) => r.v)).toEqual(['one', 'from b']);
  });

  it('ends before the next microtask, and the next read opens a new one', async () => {
    sql.one('SELECT v FROM t WHERE id = 1');
    expect(a.inTransaction).toBe(true);
    await Promise.resolve();
    expect(a.inTransaction).toBe(false);
    b.prepare("UPDATE t SET v = 'three' WHERE id = 1").run();
    expect(sql.one<{ v: string }>('SELECT v FROM t WHERE id = 1')!.v).toBe('three');
  });
});
