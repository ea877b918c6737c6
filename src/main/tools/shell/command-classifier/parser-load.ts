/**
 * Loading the bash parser (mvdan-sh: one 1.5 MB GopherJS file). Compiling it and starting its runtime is the largest
 * single cost of a short CLI call that classifies a command (`deskhand policy explain`, docs/performance.md, "CLI
 * start"), so it loads on the first parse, and — when the shell family was given Deskhand's data folder — through a
 * V8 code cache kept there (`cache/`): the compiled functions its start runs are read back instead of compiled again.
 *
 * The cache is only an accelerator: V8 rejects a cache made by another V8 version, other flags or another source
 * length, the file name carries the package file's size and mtime and the Node version and architecture (so an update
 * of either starts a new one), and anything wrong with it (unreadable, rejected, not writable) falls back to compiling
 * the source as `require` would. V8 does not check a cache's body (a damaged one aborts the process), so the file
 * starts with the SHA-256 of the body and a body that does not match is never given to V8. The cache lives in the
 * data folder, which commands cannot write (the sandbox hides it; the path guard calls it Deskhand's own data): what
 * it holds runs as code, like the package itself.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

let cacheDir: string | null = null;

/** How the last load went (for tests and diagnosis): whether a cache was read, rejected or written. */
export interface ParserLoad {
  cache: 'off' | 'missing' | 'damaged' | 'rejected' | 'read' | 'unusable';
  wrote: boolean;
}
let lastLoad: ParserLoad = { cache: 'off', wrote: false };
export const lastParserLoad = (): ParserLoad => ({ ...lastLoad });

const DIGEST = 32;
const digestOf = (body: Uint8Array) => createHash('sha256').update(body).digest();

/** Where the parser's code cache goes (`<data dir>/cache`), or null for none. Set before the first parse. */
export function useParserCodeCache(dir: string | null): void {
  cacheDir = dir;
}

/** The mvdan-sh module's exports (loaded once by the caller). */
export function loadParser(): unknown {
  const require = createRequire(import.meta.url);
  lastLoad = { cache: cacheDir ? 'unusable' : 'off', wrote: false };
  if (cacheDir) {
    const file = require.resolve('mvdan-sh');
    let script: Script | null = null;
    let cachePath = '';
    try {
      const st = statSync(file);
      cachePath = join(cacheDir, `mvdan-sh-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}-${process.arch}.v8cache`);
      let cachedData: Buffer | undefined;
      lastLoad.cache = 'missing';
      try {
        const saved = readFileSync(cachePath);
        const body = saved.subarray(DIGEST);
        if (saved.length > DIGEST && digestOf(body).equals(saved.subarray(0, DIGEST))) cachedData = body;
        else lastLoad.cache = 'damaged';
      } catch {
        // no cache yet
      }
      script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, ...(cachedData ? { cachedData } : {}) });
      if (cachedData) lastLoad.cache = script.cachedDataRejected ? 'rejected' : 'read';
    } catch {
      lastLoad.cache = 'unusable';
      script = null;
    }
    if (script) {
      const mod = { exports: {} as unknown, id: file, filename: file, loaded: false };
      const wrapper = script.runInThisContext() as (this: unknown, ...args: unknown[]) => void;
      wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
      mod.loaded = true;
      if (lastLoad.cache !== 'read') lastLoad.wrote = writeCodeCache(script, mod.exports, cachePath);
      return mod.exports;
    }
  }
  return require('mvdan-sh');
}

/**
 * Writes the code cache after one parse, so it holds what a parse compiles too (written to a temporary name and
 * renamed: a reader never sees half a file). A failure only means the next start compiles again.
 */
function writeCodeCache(script: Script, exports: unknown, path: string): boolean {
  try {
    const sh = (exports as { syntax: { NewParser(...o: unknown[]): { Parse(s: string, n: string): unknown }; Variant(l: unknown): unknown; LangBash: unknown } }).syntax;
    sh.NewParser(sh.Variant(sh.LangBash)).Parse('a -b "$c" | d > e && f $(g) <<< h', 'warm-up');
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    const body = script.createCachedData();
    writeFileSync(tmp, Buffer.concat([digestOf(body), body]), { mode: 0o600 });
    renameSync(tmp, path);
    // Caches of an earlier Node or package version are never read again.
    for (const name of readdirSync(dirname(path))) {
      if (name.startsWith('mvdan-sh-') && name.endsWith('.v8cache') && name !== basename(path)) rmSync(join(dirname(path), name), { force: true });
    }
    return true;
  } catch {
    // the cache is an accelerator only
    return false;
  }
}
