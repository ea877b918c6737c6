/**
 * Launches the real desktop app (src/main/electron/desktop-app.ts) on the fake Electron, with the real preload and
 * renderer build, a real store in a temp data dir and, when asked, the scripted model server as its provider.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { apiFromBridge, type DeskhandBridge } from '../../src/shared/bridge';
import type { DeskhandApi } from '../../src/shared/contract';
import { electronSqliteBindingPath, launchDesktopApp } from '../../src/main/electron/desktop-app';
import { MemorySecretStoreForTests, type SecretStore } from '../../src/main/services/vault/secret-store';
import { RecordingLogger } from '../host/helpers';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { fake, type FakeBrowserWindow, type FakeOptions, type RendererWorld } from './fake-electron';

export const build = (): { preload: string; renderer: string } => {
  const dir = inject('shellBuild');
  return { preload: join(dir, 'preload', 'index.cjs'), renderer: join(dir, 'renderer') };
};

/** The better-sqlite3 build this process can load (in the fake, "this Electron's ABI" is Node's). */
export function nodeSqliteBuild(): string {
  const pkg = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
  return join(dirname(pkg), 'build', 'Release', 'better_sqlite3.node');
}

export interface LaunchOptions extends FakeOptions {
  /** Base URL of the scripted model server (…/v1); the app's settings point at it. */
  modelUrl?: string;
  /** Put a better-sqlite3 build for "this Electron" in the native folder (default true). */
  nativeBuild?: boolean;
  /** Reuse a data dir (a second launch over the same data). */
  dataDir?: string;
  /** This computer's keyring (kept across launches to stand for the same machine); default: a new, empty one. */
  secrets?: SecretStore;
  /** The machine to drive, as `--remote` would name it (default: DESKHAND_REMOTE, as the app reads it). */
  remote?: string | null;
}

export interface Launched {
  dataDir: string;
  work: string;
  nativeDir: string;
  log: RecordingLogger;
  /** What the app wrote to stderr while starting. */
  stderr: string;
  started: Promise<void>;
  /** The main window once its page has loaded. */
  window(): Promise<FakeBrowserWindow>;
  /** The page's world in the main window (after the preload ran). */
  world(): Promise<RendererWorld>;
  /** What the page sees as window.deskhand, and the renderer's API over it (src/renderer/api/client.ts). */
  bridge(): Promise<DeskhandBridge>;
  api(): Promise<DeskhandApi>;
}

export async function launch(opts: LaunchOptions = {}): Promise<Launched> {
  const root = tempDir('deskhand-shell-');
  const dataDir = opts.dataDir ?? join(root, 'data');
  const work = join(root, 'work');
  const nativeDir = join(root, 'native');
  mkdirSync(work, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  if (opts.nativeBuild !== false) {
    const target = electronSqliteBindingPath(nativeDir);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(nodeSqliteBuild(), target);
  }
  if (opts.modelUrl) {
    writeFileSync(
      join(dataDir, 'settings.json'),
      JSON.stringify({
        activeProvider: 'openai-compatible',
        providers: { anthropic: { model: 'claude-sonnet-4-5', baseURL: null }, openai: { model: 'gpt-5', baseURL: null }, 'openai-compatible': { model: 'scripted', baseURL: opts.modelUrl } },
        defaultPolicy: 'read-only',
      }),
    );
  }
  process.env.DESKHAND_HOME = dataDir;
  process.env.DESKHAND_RETRY_BASE_MS = '10';
  fake.reset({ home: work, ...opts });
  const log = new RecordingLogger();
  const { preload, renderer } = build();
  let started!: Promise<void>;
  const { text } = await captured(process.stderr, async () => {
    started = launchDesktopApp({ preloadPath: preload, rendererDir: renderer, nativeDir, secrets: opts.secrets ?? new MemorySecretStoreForTests(), log, ...(opts.remote !== undefined ? { remote: opts.remote } : {}) }).started;
    await fake.ready();
    await started;
  });
  const window = () => until(() => fake.windows.find((w) => w.webContents.world && !w.webContents.isLoading()), 'the main window to load');
  const world = async () => (await window()).webContents.world!;
  const bridge = async () => {
    const w = await world();
    if (w.preloadError) throw w.preloadError;
    return w.mainWorld.deskhand as DeskhandBridge;
  };
  return { dataDir, work, nativeDir, log, stderr: text, started, window, world, bridge, api: async () => apiFromBridge(await bridge()) };
}

/** Quits through the app (as Quit in the tray does) and resolves with the exit code. */
export async function quitApp(): Promise<number> {
  const { app } = await import('./fake-electron');
  app.quit();
  return fake.exited();
}

/** Runs `fn` while collecting what is written to `stream` (and not passing it on). */
export async function captured<T>(stream: NodeJS.WriteStream, fn: () => T | Promise<T>): Promise<{ value: T; text: string }> {
  const chunks: string[] = [];
  const write = stream.write;
  stream.write = ((chunk: string | Uint8Array) => (chunks.push(String(chunk)), true)) as typeof stream.write;
  try {
    const value = await fn();
    return { value, text: chunks.join('') };
  } finally {
    stream.write = write;
  }
}
