/**
 * Finds an installed Chromium-family browser (Chrome, Chromium or Edge) for the browser family and PDF printing.
 * Order: an explicit path (Settings), `DESKHAND_CHROMIUM` / `CHROMIUM_PATH`, then the usual install locations of
 * the platform, then the names on PATH. Deskhand never downloads a browser.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface ChromiumFound {
  path: string;
  /** Where the path came from, for `doctor`-style messages. */
  source: 'setting' | 'environment' | 'standard location' | 'PATH';
}

const executable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function standardChromiumLocations(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string[] {
  if (platform === 'darwin') {
    const apps = ['/Applications', join(env.HOME ?? '', 'Applications')];
    const names = [
      'Google Chrome.app/Contents/MacOS/Google Chrome',
      'Chromium.app/Contents/MacOS/Chromium',
      'Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    ];
    return apps.flatMap((a) => names.map((n) => join(a, n)));
  }
  if (platform === 'win32') {
    const roots = [env['PROGRAMFILES'], env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter((r): r is string => !!r);
    const names = ['Google\\Chrome\\Application\\chrome.exe', 'Chromium\\Application\\chrome.exe', 'Microsoft\\Edge\\Application\\msedge.exe'];
    return roots.flatMap((r) => names.map((n) => join(r, n)));
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/usr/bin/microsoft-edge',
    '/usr/bin/microsoft-edge-stable',
    '/snap/bin/chromium',
  ];
}

const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'chrome', 'msedge'];

/** The browser to drive, or undefined with nothing found (callers say what to install or set). */
export function findChromium(opts: { setting?: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform } = {}): ChromiumFound | undefined {
  const env = opts.env ?? process.env;
  if (opts.setting) return executable(opts.setting) ? { path: opts.setting, source: 'setting' } : undefined;
  for (const v of [env.DESKHAND_CHROMIUM, env.CHROMIUM_PATH]) if (v && executable(v)) return { path: v, source: 'environment' };
  for (const p of standardChromiumLocations(opts.platform, env)) if (executable(p)) return { path: p, source: 'standard location' };
  const ext = (opts.platform ?? process.platform) === 'win32' ? '.exe' : '';
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const n of PATH_NAMES) {
      const p = join(dir, n + ext);
      if (executable(p)) return { path: p, source: 'PATH' };
    }
  }
  return undefined;
}

/** One line for the person when no browser was found. */
export const NO_CHROMIUM_MESSAGE =
  'No Chrome, Chromium or Edge was found. Install one (Debian: apt install chromium), or set its path in Settings → Browser or in DESKHAND_CHROMIUM.';
