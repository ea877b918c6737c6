/**
 * Tests read and plant rows through their own connection to the database file, as another process would: the
 * Store keeps its handle private, and what is on disk is what counts.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';

export function withRawDb<T>(dataDir: string, fn: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'deskhand.db'));
  db.pragma('busy_timeout = 5000');
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export function rawAll<T = Record<string, unknown>>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  return withRawDb(dataDir, (db) => db.prepare(sql).all(...params) as T[]);
}

export function rawGet<T = Record<string, unknown>>(dataDir: string, sql: string, ...params: unknown[]): T | undefined {
  return withRawDb(dataDir, (db) => db.prepare(sql).get(...params) as T | undefined);
}

export function rawRun(dataDir: string, sql: string, ...params: unknown[]): number {
  return withRawDb(dataDir, (db) => db.prepare(sql).run(...params).changes);
}

/**
 * Every row of every table as text, read through SQLite (so committed pages still in the WAL file count too: reading
 * the bytes of `deskhand.db` alone misses them).
 */
export function rawDump(dataDir: string): string {
  return withRawDb(dataDir, (db) => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map((t) => `${t.name}: ${JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())}`).join('\n');
  });
}
