/**
 * Content-addressed bytes of the change ledger, in the data folder: `<data>/ledger/blobs/ab/cdef…` named by sha256,
 * so one content is kept once however many paths or steps hold it. Written to a temporary name and renamed, so a blob
 * is whole or absent; a process killed mid-write leaves a stray temporary file, never a wrong blob. Blobs are not
 * fsynced one by one (a first scan may write thousands): a SIGKILL loses nothing, a power loss may lose the newest.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export class BlobStore {
  readonly dir: string;
  private readonly known = new Set<string>();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'ledger', 'blobs');
  }

  private pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  has(hash: string): boolean {
    return this.known.has(hash) || existsSync(this.pathOf(hash));
  }

  put(hash: string, bytes: Buffer): void {
    if (this.known.has(hash)) return;
    const path = this.pathOf(hash);
    if (!existsSync(path)) {
      mkdirSync(join(this.dir, hash.slice(0, 2)), { recursive: true, mode: 0o700 });
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, path);
    }
    this.known.add(hash);
  }

  async read(hash: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(hash));
    } catch {
      return null;
    }
  }

  get(hash: string): Buffer | null {
    try {
      return readFileSync(this.pathOf(hash));
    } catch {
      return null;
    }
  }

  /**
   * Deletes blobs no row references, older than `graceMs` (a scan writes a blob before the commit that references
   * it; the grace keeps another process's blob between the two). Returns the bytes kept and the bytes freed.
   */
  collect(referenced: ReadonlySet<string>, graceMs: number, now = Date.now()): { keptBytes: number; freedBytes: number } {
    let keptBytes = 0;
    let freedBytes = 0;
    let prefixes: string[];
    try {
      prefixes = readdirSync(this.dir);
    } catch {
      return { keptBytes, freedBytes };
    }
    for (const prefix of prefixes) {
      for (const name of readdirSync(join(this.dir, prefix))) {
        const path = join(this.dir, prefix, name);
        const st = statSync(path, { throwIfNoEntry: false });
        if (!st) continue;
        const hash = prefix + name;
        if (referenced.has(hash) || now - st.mtimeMs < graceMs) keptBytes += st.size;
        else {
          rmSync(path, { force: true });
          this.known.delete(hash);
          freedBytes += st.size;
        }
      }
    }
    return { keptBytes, freedBytes };
  }
}
