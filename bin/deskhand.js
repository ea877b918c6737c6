#!/usr/bin/env node
// The `deskhand` command: runs the built CLI (npm run build writes out/main/cli.cjs and out/main/cli.js). The CommonJS
// build is preferred: its modules are compiled from V8's cache after the first run (src/main/host/cli/compile-cache.ts).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const cjs = fileURLToPath(new URL('../out/main/cli.cjs', import.meta.url));
const esm = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (existsSync(cjs)) createRequire(import.meta.url)(cjs);
else if (existsSync(esm)) await import(esm);
else {
  process.stderr.write('deskhand: not built yet. Run `npm run build` first.\n');
  process.exit(1);
}
