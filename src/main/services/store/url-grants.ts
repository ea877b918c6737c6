/**
 * URL grants (`deskhand grants add-url PATTERN | list | revoke`): patterns such as `https://api.example.com/v1/*`
 * whose matching requests run unattended. Self-contained: one table, added by its own migration, and these queries.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';

/** Appended to MIGRATIONS: additive only. */
export const URL_GRANTS_MIGRATION = `
  CREATE TABLE url_grants (
    id TEXT PRIMARY KEY,
    pattern TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
`;

export interface UrlGrantRow {
  id: string;
  pattern: string;
  created_at: number;
}

export class UrlGrantTable {
  constructor(private readonly db: Database.Database) {}

  /** Adds a pattern (already validated by the caller); adding one that exists returns the existing row. */
  add(pattern: string): UrlGrantRow {
    const row = { id: `urlg_${randomUUID().slice(0, 8)}`, pattern, created_at: Date.now() };
    this.db.prepare('INSERT OR IGNORE INTO url_grants (id, pattern, created_at) VALUES (@id, @pattern, @created_at)').run(row);
    return this.db.prepare('SELECT * FROM url_grants WHERE pattern = ?').get(pattern) as UrlGrantRow;
  }

  list(): UrlGrantRow[] {
    return this.db.prepare('SELECT * FROM url_grants ORDER BY created_at, pattern').all() as UrlGrantRow[];
  }

  patterns(): string[] {
    return this.list().map((r) => r.pattern);
  }

  /** Revokes by id or by the exact pattern; returns whether one was there. */
  revoke(idOrPattern: string): boolean {
    return this.db.prepare('DELETE FROM url_grants WHERE id = ? OR pattern = ?').run(idOrPattern, idOrPattern).changes > 0;
  }
}
