/**
 * URL grants (`deskhand grants add-url PATTERN | list | revoke`): patterns such as `https://api.example.com/v1/*`
 * whose matching requests run unattended (the url-guard inspector reads them).
 */
import { randomUUID } from 'node:crypto';
import { defineStoreModule, type Sql } from '../module';

export interface UrlGrantRow {
  id: string;
  pattern: string;
  created_at: number;
}

export const urlGrantsModule = defineStoreModule({
  name: 'url-grants',
  migrations: [
    {
      description: 'url grants',
      sql: `
      CREATE TABLE url_grants (
        id TEXT PRIMARY KEY,
        pattern TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );`,
    },
  ],
  queries: (sql: Sql) => {
    const list = () => sql.all<UrlGrantRow>('SELECT * FROM url_grants ORDER BY created_at, pattern');
    return {
      /** Adds a pattern (already validated by the caller); adding one that exists returns the existing row. */
      add(pattern: string): UrlGrantRow {
        sql.run('INSERT OR IGNORE INTO url_grants (id, pattern, created_at) VALUES (?, ?, ?)', `urlg_${randomUUID().slice(0, 8)}`, pattern, Date.now());
        return sql.one<UrlGrantRow>('SELECT * FROM url_grants WHERE pattern = ?', pattern)!;
      },
      list,
      patterns: () => list().map((r) => r.pattern),
      /** Revokes by id or by the exact pattern; returns whether one was there. */
      revoke: (idOrPattern: string) => sql.run('DELETE FROM url_grants WHERE id = ? OR pattern = ?', idOrPattern, idOrPattern).changes > 0,
    };
  },
});
