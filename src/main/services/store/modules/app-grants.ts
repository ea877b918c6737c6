/**
 * App grants for computer use (`computer_grant_app`, `deskhand grants list | revoke APP`, Settings → App grants):
 * one row per app with the capabilities granted and when the grant ends. A revoke keeps the row, marked, so a later
 * call on that app is refused (not merely asked) until the person grants it again.
 */
import { defineStoreModule, type Sql } from '../module';

export interface AppGrantRow {
  app: string;
  /** JSON array of capabilities: observe, pointer, input, foreground. */
  capabilities: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export const appGrantsModule = defineStoreModule({
  name: 'app-grants',
  migrations: [
    {
      description: 'app grants',
      sql: `
      CREATE TABLE app_grants (
        app TEXT PRIMARY KEY,
        capabilities TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    /** Grants exactly these capabilities (replacing an earlier grant of the app). */
    grant(app: string, capabilities: readonly string[], expiresAt: number | null): AppGrantRow {
      sql.run(
        `INSERT INTO app_grants (app, capabilities, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, NULL)
         ON CONFLICT(app) DO UPDATE SET capabilities = excluded.capabilities, created_at = excluded.created_at, expires_at = excluded.expires_at, revoked_at = NULL`,
        app,
        JSON.stringify([...capabilities]),
        Date.now(),
        expiresAt,
      );
      return sql.one<AppGrantRow>('SELECT * FROM app_grants WHERE app = ?', app)!;
    },
    get: (app: string) => sql.one<AppGrantRow>('SELECT * FROM app_grants WHERE app = ?', app) ?? null,
    /** Every row, revoked and expired ones included (callers filter). */
    all: () => sql.all<AppGrantRow>('SELECT * FROM app_grants ORDER BY app'),
    revoke: (app: string) => sql.run('UPDATE app_grants SET revoked_at = ? WHERE app = ? AND revoked_at IS NULL', Date.now(), app).changes > 0,
  }),
});
