/**
 * V8's compile cache for the CLI's own CommonJS build (out/main/cli.cjs and its chunks). Node 20 compiles every module
 * from its source at each start, and keeps no cache for ES modules (`module.enableCompileCache` is Node 22's); a CLI
 * run compiled ≈ 2.5 MB of the build before its first model request, the largest part of its start. For CommonJS a
 * module's compiled code can be kept: each chunk of this build is compiled with the code V8 made for it the last time
 * (functions compiled while that process ran included), and a process that compiled a chunk without an accepted cache
 * writes one at its exit.
 *
 * Where: `DESKHAND_COMPILE_CACHE` (a folder; `off` turns it off), else the user's cache folder (`$XDG_CACHE_HOME` or
 * ~/.cache on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows) under `deskhand/compile-cache`, one folder
 * per build and Node (another build's folder unused for a week is removed). Compiled code is code: a folder
 * another user could write to would let them run theirs as ours, so the folder is made private (0700), its files
 * 0600, and a folder that is not the user's own or is writable by others is not used (nothing is cached then). V8
 * itself refuses code made by another V8, other flags or another source (then the module compiles from source as
 * always, and the cache is written again). Anything that fails here only costs the cache: the module is compiled as
 * Node would.
 *
 * `NODE_DEBUG=deskhand_compile_cache` prints what was taken from the cache and what was written.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { debuglog } from 'node:util';
import vm from 'node:vm';

const debug = debuglog('deskhand_compile_cache');

/** The cache folder's parent for this user, or null when the cache is off. */
function compileCacheRoot(): string | null {
  const env = process.env;
  const platform = process.platform;
  const given = env.DESKHAND_COMPILE_CACHE;
  if (given === 'off' || given === '0') return null;
  if (given) return given;
  const home = homedir();
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'deskhand', 'compile-cache');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'deskhand', 'compile-cache');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'deskhand', 'compile-cache');
}

/** A folder the cache may use: this user's, not writable by anyone else (on Windows, the per-user folder as it is). */
export function privateFolder(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (process.platform === 'win32') return true;
    return st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Makes `dir` and its parents (0700 where made here); whether the result is a private folder. */
export function ensurePrivate(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return false;
  }
  return privateFolder(dir);
}

/** Node's internals a module's own `require` is made of (what `Module.prototype._compile` gives a module). */
const internals = Module as unknown as {
  _resolveFilename(request: string, parent: Module, isMain: boolean, options?: { paths?: string[] }): string;
  _resolveLookupPaths(request: string, parent: Module): string[] | null;
  _extensions: NodeJS.RequireExtensions;
  _cache: NodeJS.Dict<NodeModule>;
};

/**
 * The `require` of one module, bound to it as Node's own is: resolved from the module's own folder and `paths`, and the
 * module the parent of what it loads. (`Module.createRequire(filename)` made a stand-in module for each file and
 * computed its `node_modules` paths again: ≈ 3 ms of a start across the build's chunks.)
 */
function requireOf(mod: Module): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) => internals._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => internals._resolveLookupPaths(request, mod);
  req.resolve = resolve;
  req.main = typeof require === 'undefined' ? undefined : require.main;
  req.extensions = internals._extensions;
  req.cache = internals._cache;
  return req;
}

interface Compiled {
  script: vm.Script;
  file: string;
}

/** This build's folder of the cache, or null when the cache is off. */
function compileCacheFolder(buildId: string): string | null {
  const root = compileCacheRoot();
  return root ? join(root, `${buildId}-${process.version}-${process.arch}`) : null;
}

/**
 * Compiles the `.cjs` files under `buildDir` (the build this entry belongs to) with the cache from here on. The build's
 * identity (`buildId`: a digest of the entry) names the folder, so a rebuilt CLI never meets an older build's code.
 * Returns that folder (the tool schemas are kept there too, host/cli/schema-cache.ts), or null when the cache is off.
 */
export function installCompileCache(buildDir: string, buildId: string): string | null {
  const folder = compileCacheFolder(buildId);
  if (!folder) return null;
  const root = dirname(folder);
  let usable: boolean | null = null;
  const usableFolder = (): boolean => (usable ??= privateFolder(folder));
  const fresh: Compiled[] = [];
  let taken = 0;

  type CompileFn = (this: Module & { filename: string; paths: string[] }, content: string, filename: string) => unknown;
  const proto = Module.prototype as unknown as { _compile: CompileFn };
  const original = proto._compile;
  const prefix = `${buildDir.replace(/[\\/]+$/, '')}${sep}`;
  proto._compile = function compileWithCache(content, filename) {
    if (!filename.startsWith(prefix) || !filename.endsWith('.cjs')) return original.call(this, content, filename);
    // Named by the file's path, length and change time (not a digest of its 2.5 MB: ≈ 6 ms a start); the build's chunk
    // names carry a digest of their content already, and V8 refuses code made for a source of another length.
    let file: string;
    try {
      const st = statSync(filename);
      file = join(folder, `${createHash('sha256').update(`${filename}\0${content.length}\0${st.mtimeMs}\0${st.ino}`).digest('hex').slice(0, 32)}.bin`);
    } catch {
      return original.call(this, content, filename);
    }
    let cachedData: Buffer | undefined;
    if (usableFolder()) {
      try {
        cachedData = readFileSync(file);
      } catch {
        cachedData = undefined;
      }
    }
    // No `import()` from here, fresh or cached alike: code given back from the cache loses it on Node 20, so the
    // build routes its imports of packages through the entry (electron.vite.config.ts, externalImports).
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData && !script.cachedDataRejected) taken++;
    else fresh.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireOf(this), this, filename, dirname(filename));
  };

  process.once('exit', () => {
    debug('%d modules from the cache, %d compiled from source', taken, fresh.length);
    if (!fresh.length) return;
    if (!ensurePrivate(folder)) {
      debug('not written: %s is not a private folder', folder);
      return;
    }
    for (const { script, file } of fresh) {
      try {
        // Written whole, then renamed: a process starting meanwhile (tests run the CLI side by side) reads the old
        // file or the new one, never half of one.
        const part = `${file}.${process.pid}.part`;
        writeFileSync(part, script.createCachedData(), { mode: 0o600 });
        renameSync(part, file);
      } catch (err) {
        debug('not written: %s (%s)', file, String(err));
        return;
      }
    }
    debug('wrote %d to %s', fresh.length, folder);
    // Other builds' folders unused for a week (an older CLI: its code can never be used by this one). Not every other
    // folder: two installed builds (the app's and a checkout's) would remove each other's on every run.
    try {
      const stale = Date.now() - 7 * 24 * 3600_000;
      for (const name of readdirSync(root)) {
        if (name === basename(folder)) continue;
        const st = lstatSync(join(root, name));
        if (st.isDirectory() && st.mtimeMs < stale) rmSync(join(root, name), { recursive: true, force: true });
      }
    } catch {
      // best effort
    }
  });
  return folder;
}
