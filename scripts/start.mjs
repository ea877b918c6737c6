#!/usr/bin/env node
/**
 * `npm start`: builds when the build is missing or older than the sources, then launches the desktop app in Electron.
 * Where no Electron binary can be had (npm's electron downloads it at first launch; some machines have no network),
 * it says so in one line and starts `deskhand web` instead, which prints the URL to open. Extra arguments go to
 * `deskhand web` (e.g. `npm start -- --port 8377`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/**
 * better-sqlite3 12 is not N-API: Electron needs a build for its own ABI. It is made once (with the network) in a
 * scratch copy and kept in out/native/electron-<abi>/, so the Node build in node_modules (CLI, tests) stays intact.
 * npm's `nodedir=/usr` here would silently produce a Node-ABI binary, so the target is given explicitly and checked.
 */
function electronSqliteBinding(electron) {
  const abi = spawnSync(electron, ['-p', 'process.versions.modules'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8' }).stdout.trim();
  const version = spawnSync(electron, ['-p', 'process.versions.electron'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8' }).stdout.trim();
  if (!abi || !version) return false;
  const target = join(root, 'out', 'native', `electron-${abi}`, 'better_sqlite3.node');
  const works = () =>
    existsSync(target) &&
    spawnSync(electron, ['-e', `new (require('better-sqlite3'))(':memory:', { nativeBinding: ${JSON.stringify(target)} })`], {
      cwd: root,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    }).status === 0;
  if (works()) return true;
  process.stderr.write(`Building better-sqlite3 for Electron ${version} (ABI ${abi}; needs the network, once)…\n`);
  const scratch = mkdtempSync(join(tmpdir(), 'deskhand-native-'));
  cpSync(join(root, 'node_modules', 'better-sqlite3'), scratch, { recursive: true });
  rmSync(join(scratch, 'build'), { recursive: true, force: true });
  const env = { ...process.env, npm_config_nodedir: '', npm_config_runtime: 'electron', npm_config_target: version, npm_config_disturl: 'https://electronjs.org/headers' };
  const prebuilt = spawnSync(process.execPath, [join(root, 'node_modules', 'prebuild-install', 'bin.js'), '--runtime', 'electron', '--target', version], { cwd: scratch, env, stdio: 'inherit' });
  if (prebuilt.status !== 0) {
    spawnSync('npx', ['node-gyp', 'rebuild', '--release', `--target=${version}`, '--dist-url=https://electronjs.org/headers', '--runtime=electron'], { cwd: scratch, env, stdio: 'inherit' });
  }
  const built = join(scratch, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(built)) {
    mkdirSync(dirname(target), { recursive: true });
    cpSync(built, target);
  }
  rmSync(scratch, { recursive: true, force: true });
  return works();
}

buildIfNeeded();
const electron = electronBinary();
let child;
if (electron.path && electronSqliteBinding(electron.path)) {
  child = spawn(electron.path, [root], { cwd: root, stdio: 'inherit' });
} else {
  const why = electron.path ? 'better-sqlite3 could not be built for Electron' : electron.reason;
  process.stdout.write(`Electron is not available (${why}); starting Deskhand in web mode instead.\n`);
  child = spawn(process.execPath, [join(root, 'bin', 'deskhand.js'), 'web', ...process.argv.slice(2)], { cwd: process.cwd(), stdio: 'inherit' });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
