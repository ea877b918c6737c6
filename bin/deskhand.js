#!/usr/bin/env node
// The `deskhand` command: runs the built CLI (npm run build writes out/main/cli.cjs and out/main/cli.js). The CommonJS
// build is preferred: its modules are compiled from V8's cache after the first run (src/main/host/cli/compile-cache.ts).
// This file is CommonJS (bin/package.json): an ES module entry would start Node's ES loader first (≈ 5 ms a run).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const cjs = join(__dirname, '..', 'out', 'main', 'cli.cjs');
const esm = join(__dirname, '..', 'out', 'main', 'cli.js');
if (existsSync(cjs)) require(cjs);
else if (existsSync(esm)) import(pathToFileURL(esm).href);
else {
  process.stderr.write('deskhand: not built yet. Run `npm run build` first.\n');
  process.exit(1);
}
