/**
 * Project files that make Deskhand run something the person approved (`deskhand hooks trust`): a workspace's
 * `.deskhand/settings.json` (or `.claude/settings.json`) hooks, each by path, kind and the sha256 of its bytes and
 * the workspace scripts it names when it was trusted. A file whose pin no longer matches, or that has none, is
 * inactive (services/hooks).
 */
import { defineStoreModule, type Sql } from '../module';

export interface ProjectPinRow {
  kind: string;
  path: string;
  sha256: string;
  trusted_at: number;
}

export const projectPinsModule = defineStoreModule({
  name: 'project-pins',
  migrations: [
    {
      description: 'trusted project hook files',
      sql: `
      CREATE TABLE project_pins (
        kind TEXT NOT NULL,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        trusted_at INTEGER NOT NULL,
        PRIMARY KEY (kind, path)
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    list: (kind: string) => sql.all<ProjectPinRow>('SELECT * FROM project_pins WHERE kind = ? ORDER BY path', kind),
    /** The sha256 pinned for a file of this kind, or null. */
    pinned: (kind: string, path: string) => sql.one<ProjectPinRow>('SELECT * FROM project_pins WHERE kind = ? AND path = ?', kind, path)?.sha256 ?? null,
    pin: (kind: string, path: string, sha256: string) =>
      void sql.run('INSERT INTO project_pins (kind, path, sha256, trusted_at) VALUES (?,?,?,?) ON CONFLICT(kind, path) DO UPDATE SET sha256 = excluded.sha256, trusted_at = excluded.trusted_at', kind, path, sha256, Date.now()),
    unpin: (kind: string, path: string) => sql.run('DELETE FROM project_pins WHERE kind = ? AND path = ?', kind, path).changes > 0,
  }),
});
