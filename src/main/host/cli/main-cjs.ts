/**
 * Entry of the CLI's CommonJS build (out/main/cli.cjs, which bin/deskhand.js and the OS jobs run when it is built):
 * the compile cache (compile-cache.ts) first, then the CLI itself (main.ts), whose modules then compile from it. The
 * built-in tools' JSON schemas are kept in the same folder (schema-cache.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { useToolSchemaMemo } from '../../runtime/tool-schema-memo';
import { installCompileCache } from './compile-cache';
import { fileSchemaMemo } from './schema-cache';

const here = import.meta.dirname;
const self = import.meta.filename;
let buildId = 'build';
try {
  buildId = createHash('sha256').update(readFileSync(self)).digest('hex').slice(0, 16);
} catch {
  // run from source: no build to name
}
// The build's `import()` of a package calls this (electron.vite.config.ts, externalImports): an import from a module
// compiled from the cache would fail on Node 20, one from this entry (compiled by Node itself) does not. A package is
// found from here as from the chunks (out/main and out/main/chunks share node_modules).
Object.defineProperty(globalThis, Symbol.for('deskhand.importExternal'), { value: (specifier: string) => import(specifier) });
const folder = installCompileCache(here, buildId);
if (folder) useToolSchemaMemo(fileSchemaMemo(folder));
void import('./main');
