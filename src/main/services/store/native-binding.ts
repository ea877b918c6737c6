/**
 * Which build of better-sqlite3 this process loads. better-sqlite3 12 is not N-API, so Electron needs a build for its
 * own ABI while the CLI and the tests use the Node build in node_modules. The desktop app picks the build once at
 * start; every Store in the process opens with it, and the job worker (Electron's binary run as Node, so the same
 * ABI) is handed the same path through its environment.
 */
export const SQLITE_BINDING_ENV = 'DESKHAND_SQLITE_BINDING';

let binding: string | undefined = process.env[SQLITE_BINDING_ENV] || undefined;

/** The build this process uses (undefined: better-sqlite3's own, from node_modules). */
export function sqliteBinding(): string | undefined {
  return binding;
}

export function useSqliteBinding(path: string | undefined): void {
  binding = path;
}
