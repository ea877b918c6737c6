/**
 * The shell tests run the real preload bundle (one CJS file, as Electron loads it) and serve the real renderer build,
 * so they build the app first — into a temp folder, never over out/ (other suites run the CLI from there).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    shellBuild: string;
  }
}

export default function setup(project: TestProject): () => void {
  const outDir = mkdtempSync(join(tmpdir(), 'deskhand-shell-build-'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build', '--outDir', outDir, '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe' });
  project.provide('shellBuild', outDir);
  return () => rmSync(outDir, { recursive: true, force: true });
}
