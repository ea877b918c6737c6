#!/usr/bin/env node
/**
 * `npm start`: builds when the build is missing or older than the sources, then launches the desktop app in Electron.
 * Where no Electron binary can be had (npm's electron downloads it at first launch; some machines have no network),
 * it says so in one line and starts `deskhand web` instead, and opens its URL in the browser. Extra arguments go to
 * `deskhand web` (e.g. `npm start -- --port 8377`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary, ensureElectronNative } from './electron-native.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outputs = ['out/main/index.js', 'out/main/cli.js', 'out/main/cli.cjs', 'out/preload/index.cjs', 'out/renderer/index.html'].map((f) => join(root, f));

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

buildIfNeeded();
const electron = electronBinary(root);
// npm's electron fetches its binary on first use; quietly, and not for long.
if (!electron.path && !process.env.DESKHAND_NO_ELECTRON_DOWNLOAD && existsSync(join(root, 'node_modules', 'electron', 'install.js'))) {
  spawnSync(process.execPath, [join(root, 'node_modules', 'electron', 'install.js')], { cwd: root, stdio: 'ignore', timeout: 120_000 });
  Object.assign(electron, electronBinary(root));
}
const native = electron.path ? ensureElectronNative(root) : null;
let child;
if (electron.path && native?.ok) {
  child = spawn(electron.path, [root], { cwd: root, stdio: 'inherit' });
} else {
  const why = electron.path ? native.reason : electron.reason;
  process.stdout.write(`No Electron window: ${why}; opening Deskhand in your browser instead (deskhand web).\n`);
  child = spawn(process.execPath, [join(root, 'bin', 'deskhand.js'), 'web', ...process.argv.slice(2)], { cwd: process.cwd(), stdio: ['inherit', 'pipe', 'inherit'] });
  let opened = false;
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const url = /Deskhand is running at (\S+)/.exec(chunk.toString())?.[1];
    if (url && !opened) {
      opened = true;
      openBrowser(url);
    }
  });
}

/** Opens the web UI in the person's browser, where there is a desktop to open it on (DESKHAND_NO_BROWSER=1: never). */
function openBrowser(url) {
  if (process.env.DESKHAND_NO_BROWSER) return;
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  const opener = spawn(cmd, args, { stdio: 'ignore', detached: true });
  opener.on('error', () => undefined);
  opener.unref();
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
