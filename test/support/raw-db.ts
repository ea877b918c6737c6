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
