#!/usr/bin/env node
/**
 * `npm run dist`: builds, then packages with electron-builder (electron-builder.json) for this OS, or the ones named
 * (`npm run dist -- --linux`, `--mac`, `--win`). Needs the network (Electron itself, Electron headers or prebuilt
 * native modules, packaging tools). Output in dist/.
 *
 * electron-builder rebuilds the native modules in node_modules for Electron (through @electron/rebuild); afterwards
 * better-sqlite3's Node build is restored, because the CLI and the tests load it. npm's `nodedir` (set to /usr on
 * some machines) would make that Electron rebuild silently produce a Node-ABI binary, so it is removed from the
 * environment, and the packaged binary's ABI is checked before the package is called good.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, builtAbi, electronTarget } from './electron-native.mjs';

function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function find(dir, name, out = []) {
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) find(p, name, out);
    else if (p.endsWith(name)) out.push(p);
  }
  return out;
}

run('npm', ['run', 'build']);
const env = { ...process.env };
for (const k of Object.keys(env)) if (/^npm_config_nodedir$/i.test(k)) delete env[k];
const builder = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'electron-builder', 'cli.js'), '--config', 'electron-builder.json', '--publish', 'never', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit', env });
// The Node build back in node_modules, whatever happened above.
run('npm', ['rebuild', 'better-sqlite3']);
if (builder.status !== 0) process.exit(builder.status ?? 1);

const { abi } = electronTarget();
const packaged = find(join(ROOT, 'dist'), join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node')).filter((p) => p.includes('app.asar.unpacked'));
let bad = 0;
for (const file of packaged) {
  const made = builtAbi(file);
  if (made !== abi) {
    bad++;
    process.stderr.write(`${relative(ROOT, file)}: built for ABI ${made ?? 'unknown'}, not Electron's ${abi} (is nodedir set in the npm config?)\n`);
  }
}
if (bad) process.exit(1);
process.stdout.write(`Packages in dist/ (better-sqlite3 checked for Electron's ABI ${abi} in ${packaged.length} of them).\n`);
