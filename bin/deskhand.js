#!/usr/bin/env node
// The `deskhand` command: runs the built CLI (npm run build writes out/main/cli.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('deskhand: not built yet. Run `npm run build` first.\n');
  process.exit(1);
}
await import(cli);
