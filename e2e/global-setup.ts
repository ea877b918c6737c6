/** Builds the app once when out/ lacks the CLI or the renderer (the `test` script builds first anyway). */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, electronBinary } from './support';

export default function globalSetup(): void {
  const electron = electronBinary();
  if (!electron.path) process.stdout.write(`Electron e2e: skipped — ${electron.reason}.\n`);
  const needed = ['out/main/cli.js', 'out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
  if (needed.every((f) => existsSync(join(ROOT, f)))) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
