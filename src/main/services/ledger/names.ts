/**
 * What the ledger never records, by name alone (no file system walk, no .gitignore parser): the approval card's
 * reversibility fact and `policy explain` read these without loading the ledger.
 */
import { homedir, tmpdir } from 'node:os';
import { resolve, sep } from 'node:path';

/** Dependency and cache folders: one `ignored` entry each, never kept. */
export const IGNORED_NAMES: ReadonlySet<string> = new Set(['node_modules', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', '.gradle', '.next', '.turbo', '.parcel-cache']);

/**
 * Folders never recorded as a whole: the file system's root, the home folder and the temp folder hold far more than
 * a project (and other programs' files); a conversation working there gets no ledger (docs/rewind.md, limits).
 */
export const TOO_BROAD: ReadonlySet<string> = new Set([sep, resolve(homedir()), resolve(tmpdir())]);

/** The ledger records this folder as a writable root (not `/`, the home folder or the temp folder themselves). */
export function recordableRoot(root: string): boolean {
  return !TOO_BROAD.has(resolve(root));
}
