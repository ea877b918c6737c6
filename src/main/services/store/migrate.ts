/**
 * Brings every store module's tables to its latest migration. Bookkeeping is per module, in `schema_modules`; a
 * database from before store modules (one shared `user_version` counter, versions 1–3) is mapped onto the modules by
 * each migration's `legacyUserVersion`, so its rows stay where they are.
 *
 * Several processes may open a new data folder at once: the work happens under BEGIN IMMEDIATE (one writer at a
 * time; the others wait out busy_timeout) and versions are read again inside that lock, so the first process
 * migrates and the rest find nothing left to do.
 */
import type Database from 'better-sqlite3';
import { DeskhandError } from '../../../shared/errors';
import type { StoreModule } from './module';

/** The last `user_version` of the shared-counter era. */
export const LEGACY_USER_VERSION = 3;
/** `user_version` once `schema_modules` keeps the books: builds of the shared-counter era refuse it as newer. */
export const MODULES_USER_VERSION = LEGACY_USER_VERSION + 1;

type AnyModule = StoreModule<unknown>;

function newer(what: string): DeskhandError {
  return new DeskhandError('conflict', `This data folder was written by a newer Deskhand (${what}). Update Deskhand or use another --data-dir.`);
}

function validate(modules: readonly AnyModule[]): void {
  const names = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`Two store modules are named ${m.name}.`);
    names.add(m.name);
    let lastLegacy = 0;
    let legacyEnded = false;
    for (const mig of m.migrations) {
      if (mig.legacyUserVersion === undefined) legacyEnded = true;
      else if (legacyEnded || mig.legacyUserVersion < lastLegacy || mig.legacyUserVersion > LEGACY_USER_VERSION) {
        throw new Error(`Store module ${m.name}: legacy migrations come first, in user_version order.`);
      }
      else lastLegacy = mig.legacyUserVersion;
    }
  }
}

function hasBooks(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_modules'").get() !== undefined;
}

function readVersions(db: Database.Database): Map<string, number> | null {
  if (!hasBooks(db)) return null;
  const rows = db.prepare('SELECT name, version FROM schema_modules').all() as { name: string; version: number }[];
  return new Map(rows.map((r) => [r.name, r.version]));
}

function upToDate(modules: readonly AnyModule[], versions: Map<string, number> | null): boolean {
  if (!versions) return false;
  for (const m of modules) {
    const v = versions.get(m.name) ?? 0;
    if (v > m.migrations.length) throw newer(`store module ${m.name} at version ${v}, this build knows ${m.migrations.length}`);
    if (v < m.migrations.length) return false;
  }
  return true;
}

/** Called inside the write lock: starts the books, from the shared counter when the database predates them. */
function startBooks(db: Database.Database, modules: readonly AnyModule[]): void {
  const userVersion = db.pragma('user_version', { simple: true }) as number;
  if (userVersion > LEGACY_USER_VERSION) throw newer(`schema ${userVersion} without store modules`);
  db.exec('CREATE TABLE schema_modules (name TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at INTEGER NOT NULL)');
  const insert = db.prepare('INSERT INTO schema_modules (name, version, updated_at) VALUES (?,?,?)');
  for (const m of modules) {
    const done = m.migrations.filter((mig) => mig.legacyUserVersion !== undefined && mig.legacyUserVersion <= userVersion).length;
    if (done > 0) insert.run(m.name, done, Date.now());
  }
  db.pragma(`user_version = ${MODULES_USER_VERSION}`);
}

/**
 * Applies what is missing, module by module in the given order (a module may reference tables of the modules before
 * it). Everything happens in one IMMEDIATE transaction: a crash leaves the old schema or the new one, never half.
 */
export function migrate(db: Database.Database, modules: readonly AnyModule[]): void {
  validate(modules);
  // Fast path without the write lock: a database already at the latest schema (the common open).
  if (upToDate(modules, readVersions(db))) return;
  db.transaction(() => {
    if (!hasBooks(db)) startBooks(db, modules);
    const versions = readVersions(db)!;
    if (upToDate(modules, versions)) return; // another process migrated while this one waited for the lock
    const save = db.prepare('INSERT INTO schema_modules (name, version, updated_at) VALUES (?,?,?) ON CONFLICT(name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at');
    for (const m of modules) {
      const from = versions.get(m.name) ?? 0;
      if (from >= m.migrations.length) continue;
      for (const mig of m.migrations.slice(from)) db.exec(mig.sql);
      save.run(m.name, m.migrations.length, Date.now());
    }
  }).immediate();
}
