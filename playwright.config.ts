/**
 * e2e: the same specs against `deskhand web` in Debian's Chromium (runs everywhere) and against the Electron app via
 * Playwright's `_electron` (skipped with a one-line reason where no Electron binary exists). They need a build
 * (`npm run build`); e2e/global-setup.ts builds when out/ is missing.
 */
import { defineConfig } from '@playwright/test';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  outputDir: 'test-results',
  globalSetup: './e2e/global-setup.ts',
  // A left-over `test.only` fails the run instead of silently narrowing it (always: .ci/run sets no CI).
  forbidOnly: true,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // Spec files run two at a time (each starts its own `deskhand web`, data folder, model server and keyring service);
  // the tests inside one file stay in order. E2E_WORKERS=1 runs them one by one.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [['list']],
  use: {
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
    // An action that waits this long names its locator in the failure, instead of holding the test to its timeout.
    actionTimeout: 60_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
    },
  },
  projects: [{ name: 'web' }, { name: 'electron' }],
});
