/** Names and descriptions of saved secrets; the values live in the OS keyring (services/vault/vault.ts). */
import { defineStoreModule, type Sql } from '../module';

export interface SecretDescription {
  name: string;
  description: string;
  updated_at: number;
}

export const secretsCatalogModule = defineStoreModule({
  name: 'secrets-catalog',
  migrations: [
    {
      description: 'names + descriptions of saved secrets (values stay in the OS keyring)',
      legacyUserVersion: 3,
      sql: `
      CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        description TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    describe(name: string, description: string): void {
      const now = Date.now();
      sql.run(
        'INSERT INTO secrets (name, description, created_at, updated_at) VALUES (?,?,?,?) ON CONFLICT(name) DO UPDATE SET description = excluded.description, updated_at = excluded.updated_at',
        name,
        description,
        now,
        now,
      );
    },
    descriptions: () => sql.all<SecretDescription>('SELECT name, description, updated_at FROM secrets ORDER BY name'),
    forget: (name: string) => void sql.run('DELETE FROM secrets WHERE name = ?', name),
  }),
});
