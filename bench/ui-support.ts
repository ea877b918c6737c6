/**
 * What the UI benchmarks share: the web host in this process over a temp store (so the runtime's own timestamps are
 * at hand), the built renderer, and Debian's headless Chromium.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AppService, type Logger } from '../src/main/host/app/app-service';
import { startWebHost, type WebHost } from '../src/main/host/web/web-host';
import { AppRuntime } from '../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../src/main/services/providers/providers';
import { Store } from '../src/main/services/store/store';
import { BackgroundTasks } from '../src/main/services/tasks/background-tasks';
import { MemorySecretStoreForTests } from '../src/main/services/vault/secret-store';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RENDERER = join(ROOT, 'out', 'renderer');

const quiet: Logger = { warn: () => undefined };

export interface UiHost {
  dataDir: string;
  work: string;
  store: Store;
  runtime: AppRuntime;
  service: AppService;
  host: WebHost;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export async function openUiHost(opts: { provider?: ProviderConfig; seed?: (store: Store, work: string, dataDir: string) => void } = {}): Promise<UiHost> {
  if (!existsSync(join(RENDERER, 'index.html'))) throw new Error('The renderer is not built: run `npm run build` first.');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'deskhand-ui-bench-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  const store = new Store(dataDir);
  opts.seed?.(store, work, dataDir);
  // No tools: these figures are about streaming and rendering, not about tool calls.
  const runtime = new AppRuntime({ store, dataDir, tools: [] }, new BackgroundTasks({ store, dataDir }));
  // The secret store is in memory: a benchmark has no keyring and needs none (the provider comes with its key).
  const service = new AppService({ runtime, secrets: new MemorySecretStoreForTests(), dataDir, kind: 'web', providerOverride: opts.provider ?? null, env: {}, log: quiet });
  const host = await startWebHost({ service, rendererDir: RENDERER, log: quiet });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(host.url);
  await page.getByRole('button', { name: 'New conversation' }).first().waitFor();
  return {
    dataDir,
    work,
    store,
    runtime,
    service,
    host,
    browser,
    page,
    async close() {
      await browser.close();
      await service.shutdown(500);
      await host.close();
      store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Half the spread between the fastest and slowest repeat: how far one figure may sit from another on this machine. */
export function halfRange(xs: number[]): number {
  return (Math.max(...xs) - Math.min(...xs)) / 2;
}

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** `deskhand web` as a person runs it: the built CLI, a process of its own over `dataDir`. */
export interface WebProcess {
  url: string;
  pid: number;
  stderr(): string;
  /** SIGTERM, then resolves with the exit code once it has ended. */
  stop(): Promise<number | null>;
}

/** Starts `deskhand web --json --port 0` on a data folder with `baseURL` as its provider; resolves with its address. */
export async function startWebProcess(opts: { dataDir: string; cwd: string; baseURL: string }): Promise<WebProcess> {
  const bin = join(ROOT, 'bin', 'deskhand.js');
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-bench' };
  delete env.DESKHAND_HOME;
  const child = spawn(process.execPath, [bin, 'web', '--json', '--port', '0', '--data-dir', opts.dataDir, '--provider', 'openai-compatible', '--base-url', opts.baseURL, '--model', 'bench'], {
    cwd: opts.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) done((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => fail(new Error(`deskhand web exited (${code}) before printing its address:\n${stderr}`)));
  });
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
