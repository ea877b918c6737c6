#!/usr/bin/env node
/**
 * `npm start`: builds when the build is missing or older than the sources, then launches the desktop app in Electron.
 * Where no Electron binary can be had (npm's electron downloads it at first launch; some machines have no network),
 * it says so in one line and starts `deskhand web` instead, which prints the URL to open. Extra arguments go to
 * `deskhand web` (e.g. `npm start -- --port 8377`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outputs = ['out/main/index.js', 'out/main/cli.js', 'out/preload/index.cjs', 'out/renderer/index.html'].map((f) => join(root, f));

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return latest;
}

function buildIfNeeded() {
  const missing = outputs.some((f) => !existsSync(f));
  const builtAt = missing ? 0 : Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  if (!missing && newest(join(root, 'src')) <= builtAt) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** The Electron executable, or null with the reason none can be had here. */
function electronBinary() {
  const dir = join(root, 'node_modules', 'electron');
  if (!existsSync(join(dir, 'package.json'))) return { path: null, reason: 'the electron package is not installed' };
  const find = () => {
    const pathFile = join(dir, 'path.txt');
    const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
    const base = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(dir, 'dist');
    const p = rel ? join(base, rel) : null;
    return p && existsSync(p) ? p : null;
  };
  let found = find();
  if (!found && !process.env.DESKHAND_NO_ELECTRON_DOWNLOAD) {
    // npm's electron fetches its binary on first use; quietly, and not for long.
    spawnSync(process.execPath, [join(dir, 'install.js')], { cwd: root, stdio: 'ignore', timeout: 120_000 });
    found = find();
  }
  return found ? { path: found, reason: '' } : { path: null, reason: 'no Electron binary could be downloaded on this machine' };
}

/** better-sqlite3 is not N-API: Electron needs a build for its own ABI (made with the network, once). */
function nativeModulesReady(electron) {
  const probe = spawnSync(electron, ['-e', "require('better-sqlite3')"], { cwd: root, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8' });
  if (probe.status === 0) return true;
  process.stderr.write('Rebuilding native modules for Electron (needs the network; run `npm rebuild better-sqlite3` before `npm test` afterwards)…\n');
  const r = spawnSync('npx', ['electron-builder', 'install-app-deps'], { cwd: root, stdio: 'inherit' });
  return r.status === 0;
}

buildIfNeeded();
const electron = electronBinary();
let child;
if (electron.path && nativeModulesReady(electron.path)) {
  child = spawn(electron.path, [root], { cwd: root, stdio: 'inherit' });
} else {
  const why = electron.path ? 'native modules could not be rebuilt for Electron' : electron.reason;
  process.stdout.write(`Electron is not available (${why}); starting Deskhand in web mode instead.\n`);
  child = spawn(process.execPath, [join(root, 'bin', 'deskhand.js'), 'web', ...process.argv.slice(2)], { cwd: process.cwd(), stdio: 'inherit' });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
