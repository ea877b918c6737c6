import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two projects: everything in plain Node, and the Electron shell (src/main/electron + the preload) on the fake
// Electron of test/shell/fake-electron.ts, which 'electron' resolves to there (`npm run test:shell`).
export default defineConfig({
  test: {
    // A left-over `it.only` fails its file instead of silently narrowing the run (vitest allows it outside CI, and
    // .ci/run sets no CI).
    allowOnly: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default on a 2-core machine is one file at a time; most files wait on processes and servers, so two
    // run side by side (each file has its own data folders, keyring service, displays and ports). VITEST_WORKERS=1
    // runs them one by one.
    maxWorkers: Number(process.env.VITEST_WORKERS ?? 2),
    setupFiles: ['test/support/setup-env.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/shell/**'] },
      },
      {
        extends: true,
        resolve: { alias: { electron: fileURLToPath(new URL('./test/shell/fake-electron.ts', import.meta.url)) } },
        test: { name: 'shell', include: ['test/shell/**/*.test.ts'], globalSetup: ['test/shell/global-setup.ts'] },
      },
    ],
  },
});
