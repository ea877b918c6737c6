/**
 * Builds the app once when out/ lacks the CLI or the renderer (the `test` script builds first anyway). Where an
 * Electron binary exists, the Electron specs also need better-sqlite3 built for Electron's ABI (out/native, see
 * scripts/electron-native.mjs): it is made here (once, with the network), and when it cannot be, the Electron specs
 * are skipped with that one-line reason instead of failing at launch.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary, ensureElectronNative } from '../scripts/electron-native.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Set for the workers: why the Electron specs cannot run here (unset: they can). */
export const ELECTRON_SKIP_ENV = 'DESKHAND_E2E_ELECTRON_SKIP';

export default function globalSetup(): void {
  const needed = ['out/main/cli.js', 'out/main/cli.cjs', 'out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
  if (!needed.every((f) => existsSync(join(ROOT, f)))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const electron = electronBinary(ROOT);
  let skip = electron.path ? '' : electron.reason;
  if (electron.path) {
    const native = ensureElectronNative(ROOT, { build: !process.env.DESKHAND_NO_NATIVE_BUILD });
    if (!native.ok) skip = native.reason;
  }
  if (skip) {
    process.env[ELECTRON_SKIP_ENV] = skip;
    process.stdout.write(`Electron e2e: skipped — ${skip}.\n`);
  } else {
    delete process.env[ELECTRON_SKIP_ENV];
  }
}
