/**
 * App grants for computer use (`computer_grant_app`, `deskhand grants list | revoke APP`, Settings → App grants):
 * one row per app with the capabilities granted and when each ends (a later grant adds to the live ones, each
 * capability keeping its own end). A revoke keeps the row, marked, so a later call on that app is refused (not merely
 * asked) until the person grants it again.
 */
import { defineStoreModule, type Sql } from '../module';

export interface AppGrantRow {
  app: string;
  /** JSON array of capabilities: observe, pointer, input, foreground. */
  capabilities: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** JSON object capability → end (ms) or null (until revoked); null on rows written before it existed. */
  cap_expiry: string | null;
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
    {
      description: 'app grants: when each capability ends',
      sql: `ALTER TABLE app_grants ADD COLUMN cap_expiry TEXT;`,
    },
  ],
  queries: (sql: Sql) => ({
    /**
     * Writes the app's grant as given: `ends` maps each capability to its end (null: until revoked); the row's
     * `expires_at` is the latest of them (null when any lasts until revoked). The caller merges with what was live.
     */
    grant(app: string, ends: Readonly<Record<string, number | null>>): AppGrantRow {
      const caps = Object.keys(ends);
      const values = Object.values(ends);
      const expiresAt = values.some((v) => v === null) ? null : Math.max(...(values as number[]));
      sql.run(
        `INSERT INTO app_grants (app, capabilities, created_at, expires_at, revoked_at, cap_expiry) VALUES (?, ?, ?, ?, NULL, ?)
         ON CONFLICT(app) DO UPDATE SET capabilities = excluded.capabilities, created_at = excluded.created_at, expires_at = excluded.expires_at, revoked_at = NULL, cap_expiry = excluded.cap_expiry`,
        app,
        JSON.stringify(caps),
        Date.now(),
        expiresAt,
        JSON.stringify(ends),
      );
      return sql.one<AppGrantRow>('SELECT * FROM app_grants WHERE app = ?', app)!;
    },
    get: (app: string) => sql.one<AppGrantRow>('SELECT * FROM app_grants WHERE app = ?', app) ?? null,
    /** Every row, revoked and expired ones included (callers filter). */
    all: () => sql.all<AppGrantRow>('SELECT * FROM app_grants ORDER BY app'),
    revoke: (app: string) => sql.run('UPDATE app_grants SET revoked_at = ? WHERE app = ? AND revoked_at IS NULL', Date.now(), app).changes > 0,
  }),
});
