#!/usr/bin/env node
/**
 * Native modules for Electron, the supported way. better-sqlite3 12 is not N-API, so Electron needs a build for its
 * own ABI, while the CLI and the tests keep the Node build in node_modules. `npm run rebuild:electron` (and `npm start`,
 * the e2e harness and the smoke test, when a build is missing) copies the better-sqlite3 package into
 * out/native/electron-<abi>/ and rebuilds it there with @electron/rebuild; the app (main process and job worker) loads
 * that build (src/main/electron/desktop-app.ts). Packaged apps get theirs from electron-builder.
 *
 * Trap on some machines: npm's `nodedir=/usr` reaches node-gyp as npm_config_nodedir and silently yields a Node-ABI
 * binary. The variable is removed for the rebuild, and every build is checked for the ABI it was made for (a native
 * module exports `node_register_module_v<ABI>`), so a wrong build is reported, never used.
 *
 * Importable (start.mjs, e2e, smoke) and runnable: `node scripts/electron-native.mjs` prints one line, exits 0 or 1.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The Electron executable, or null with the reason none can be had here (never downloads). */
export function electronBinary(root = ROOT) {
  const dir = join(root, 'node_modules', 'electron');
  if (!existsSync(join(dir, 'package.json'))) return { path: null, reason: 'the electron package is not installed' };
  const pathFile = join(dir, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : process.platform === 'win32' ? 'electron.exe' : process.platform === 'darwin' ? 'Electron.app/Contents/MacOS/Electron' : 'electron';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidates = [override && join(override, rel), join(dir, 'dist', rel)].filter(Boolean);
  const found = candidates.find((c) => existsSync(c));
  return found ? { path: found, reason: '' } : { path: null, reason: 'no Electron binary on this machine (npm electron downloads it at first launch; no network here)' };
}

/** The Electron version and ABI the app is built for, from the installed package (no binary needed). */
export function electronTarget(root = ROOT) {
  const dir = join(root, 'node_modules', 'electron');
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const abi = readFileSync(join(dir, 'abi_version'), 'utf8').trim();
  return { version, abi };
}

export function nativeDir(root = ROOT, abi = electronTarget(root).abi) {
  return join(root, 'out', 'native', `electron-${abi}`);
}

/** Must agree with electronSqliteBindingPath() in src/main/electron/desktop-app.ts. */
export function sqliteBindingPath(root = ROOT, abi = electronTarget(root).abi) {
  return join(nativeDir(root, abi), 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
}

/** The ABI a native module was built for (from its `node_register_module_v<N>` export), or null. */
export function builtAbi(file) {
  if (!existsSync(file)) return null;
  const m = /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'));
  return m ? m[1] : null;
}

/** Rebuilds better-sqlite3 for Electron in out/native/electron-<abi>/ with @electron/rebuild. Needs the network. */
export function buildElectronNative(root = ROOT, { quiet = false } = {}) {
  const { version, abi } = electronTarget(root);
  const dir = nativeDir(root, abi);
  const pkg = JSON.parse(readFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'deskhand-electron-native', private: true, dependencies: { 'better-sqlite3': pkg.version } }, null, 2));
  // The package's sources and its runtime dependency, never its Node build.
  cpSync(join(root, 'node_modules', 'better-sqlite3'), join(dir, 'node_modules', 'better-sqlite3'), { recursive: true, filter: (src) => !/[\\/]build([\\/]|$)/.test(src.slice(root.length)) });
  for (const dep of ['bindings', 'file-uri-to-path']) {
    const from = join(root, 'node_modules', dep);
    if (existsSync(from)) cpSync(from, join(dir, 'node_modules', dep), { recursive: true });
  }
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^npm_config_nodedir$/i.test(k)) delete env[k];
  const cli = join(root, 'node_modules', '@electron', 'rebuild', 'lib', 'cli.js');
  const r = spawnSync(process.execPath, [cli, '--version', version, '--module-dir', dir, '--only', 'better-sqlite3', '--force'], { cwd: dir, env, stdio: quiet ? 'pipe' : 'inherit', timeout: 15 * 60_000 });
  const made = builtAbi(sqliteBindingPath(root, abi));
  if (made === abi) return { ok: true, binding: sqliteBindingPath(root, abi), reason: '' };
  const why = r.status !== 0 ? '@electron/rebuild failed (it needs the network for Electron headers or a prebuilt binary)' : made ? `the build came out for ABI ${made}, not Electron's ${abi} (is nodedir set in the npm config?)` : 'no build was produced';
  return { ok: false, binding: null, reason: `better-sqlite3 could not be built for Electron ${version}: ${why}` };
}

/** The Electron build of better-sqlite3, made when missing (unless `build: false`). */
export function ensureElectronNative(root = ROOT, { build = true, quiet = false } = {}) {
  const { version, abi } = electronTarget(root);
  const binding = sqliteBindingPath(root, abi);
  if (builtAbi(binding) === abi) return { ok: true, binding, reason: '' };
  if (!build) return { ok: false, binding: null, reason: `no better-sqlite3 build for Electron ${version} (ABI ${abi}) in out/native; run \`npm run rebuild:electron\` once (needs the network)` };
  if (!quiet) process.stderr.write(`Building better-sqlite3 for Electron ${version} (ABI ${abi}) with @electron/rebuild; needs the network, once…\n`);
  return buildElectronNative(root, { quiet });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = ensureElectronNative(ROOT);
  process.stdout.write(result.ok ? `better-sqlite3 for Electron: ${result.binding}\n` : `${result.reason}\n`);
  process.exit(result.ok ? 0 : 1);
}
