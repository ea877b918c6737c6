/**
 * The desktop app's entry, built to out/main/index.js (ESM). The preload is out/preload/index.cjs, the renderer
 * out/renderer, and better-sqlite3 builds for Electron live in out/native (see desktop-app.ts).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchDesktopApp } from './desktop-app';

const here = dirname(fileURLToPath(import.meta.url));

launchDesktopApp({
  preloadPath: join(here, '../preload/index.cjs'),
  rendererDir: join(here, '../renderer'),
  nativeDir: join(here, '../native'),
});
