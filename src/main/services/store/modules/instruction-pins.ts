/**
 * Workspace instruction files (AGENTS.md / CLAUDE.md) the person trusted (`deskhand instructions trust`, the
 * "Trust these instructions" button): each by path and the sha256 of its bytes when it was trusted. A file whose bytes
 * no longer match its pin, or that has none, reaches the model as untrusted content (runtime/context/project-instructions.ts).
 */
import { defineStoreModule, type Sql } from '../module';

export interface InstructionPinRow {
  path: string;
  sha256: string;
  trusted_at: number;
}

export const instructionPinsModule = defineStoreModule({
  name: 'instruction-pins',
  migrations: [
    {
      description: 'trusted workspace instruction files',
      sql: `
      CREATE TABLE instruction_pins (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        trusted_at INTEGER NOT NULL
      );`,
    },
  ],
  queries: (sql: Sql) => ({
    list: () => sql.all<InstructionPinRow>('SELECT * FROM instruction_pins ORDER BY path'),
    /** The sha256 pinned for a path, or null. */
    pinned: (path: string) => sql.one<InstructionPinRow>('SELECT * FROM instruction_pins WHERE path = ?', path)?.sha256 ?? null,
    pin: (path: string, sha256: string) =>
      void sql.run('INSERT INTO instruction_pins (path, sha256, trusted_at) VALUES (?,?,?) ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, trusted_at = excluded.trusted_at', path, sha256, Date.now()),
    unpin: (path: string) => sql.run('DELETE FROM instruction_pins WHERE path = ?', path).changes > 0,
  }),
});
