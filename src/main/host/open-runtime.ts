/**
 * Composes the runtime for a host: data dir, store, vault, background tasks, the sandbox, every tool family
 * (assemble.ts), crash recovery. The runtime itself constructs no services: they are made here and injected.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Store } from '../services/store/store';
import { Runtime, type RuntimeOptions } from '../runtime/runtime';
import { SecretRedactor } from '../runtime/redaction';
import { BackgroundTasks } from '../services/tasks/background-tasks';
import { osSandbox } from '../services/sandbox';
import { KeytarSecretStore, keyringService } from '../services/vault/secret-store';
import { Vault } from '../services/vault/vault';
import { assembleTools } from './assemble';
import { formatAnswers } from '../tools/interaction';
import { PinnedHttpClient } from '../services/http/pinned-client';
import type { HttpService } from '../services/http/index';
import { SettingsFile } from './settings-file';
import type { BrowserService } from '../services/browser/index';
import { PlaywrightBrowser } from '../services/browser/playwright-browser';
import { selfIdentity } from '../services/processes/proc-info';

/** `--data-dir`, else DESKHAND_HOME, else the OS app-data folder (the same one the desktop app uses). */
export function resolveDataDir(flag?: string): string {
  if (flag) return resolve(flag);
  if (process.env.DESKHAND_HOME) return resolve(process.env.DESKHAND_HOME);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Deskhand');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Deskhand');
  return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Deskhand');
}

/** The runtime as a host holds it: with the background tasks it was assembled with (hosts list and stop them). */
export class AppRuntime extends Runtime {
  constructor(
    opts: RuntimeOptions,
    readonly tasks: BackgroundTasks,
    readonly browser: BrowserService | null = null,
  ) {
    super(opts);
    // Stopping a run stops what it started in the background too.
    this.onEvent((e) => {
      if (e.type === 'run.finished' && e.status === 'aborted') void this.tasks.cancelForRun(e.runId).catch(() => undefined);
      // A run that parks closes its browser session; whichever process resumes it reopens the pages.
      if (e.type === 'run.parked') void this.browser?.park(e.conversationId).catch(() => undefined);
    });
  }

  /** On quit: commands and the browser end (nothing outlives Deskhand). */
  async shutdownServices(): Promise<void> {
    await Promise.allSettled([this.tasks.shutdown(), this.browser?.shutdown()]);
  }
}

export type HostRuntimeOptions = {
  dataDir: string;
  store?: Store;
  sqliteBinding?: string;
  vault?: Vault | null;
  http?: HttpService;
  webFetchTimeoutMs?: number;
  /** The app's browser (default: Chromium through Playwright; null: no browser tools). */
  browser?: BrowserService | null;
} & Partial<
  Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools' | 'registry' | 'inputKinds' | 'vault'>
>;

/** Builds an AppRuntime with every family, without recovery (tests and benches that drive it directly). */
export function createAppRuntime(opts: HostRuntimeOptions): AppRuntime {
  const { sqliteBinding, store: given, vault: givenVault, http, webFetchTimeoutMs, browser: _browser, ...runtimeOpts } = opts;
  const store = given ?? new Store(opts.dataDir, sqliteBinding ? { nativeBinding: sqliteBinding } : {});
  const redactor = opts.redactor ?? new SecretRedactor();
  // Saved secrets: values in the OS keyring (DESKHAND_KEYRING_SERVICE lets tests use a throwaway service name).
  const vault = givenVault === undefined ? new Vault(new KeytarSecretStore(keyringService()), store) : givenVault;
  const tasks = new BackgroundTasks({ store, dataDir: opts.dataDir, redactor });
  const settings = new SettingsFile(opts.dataDir);
  const browser = opts.browser === undefined ? createBrowser(opts.dataDir, store, settings) : opts.browser;
  const { registry, inputKinds } = assembleTools({
    dataDir: opts.dataDir,
    tasks,
    sandbox: osSandbox,
    vault,
    redactor,
    http: http ?? new PinnedHttpClient(),
    urlGrants: () => store.urlGrants.patterns(),
    searchSettings: () => settings.read().search ?? null,
    secretValues: vault,
    ...(webFetchTimeoutMs ? { webFetchTimeoutMs } : {}),
    browser,
    browserEndpoint: () => settings.read().browser?.endpoint ?? undefined,
  });
  return new AppRuntime(
    {
      ...runtimeOpts,
      ...(vault ? { vault } : {}),
      redactor,
      store,
      registry,
      inputKinds,
      // A background question's answer (from any process) finishes its task; the wake-up delivers it.
      onBackgroundAnswer: (a) => tasks.settleQuestion(a.taskId, a.declined ? { declined: a.reason } : { output: formatAnswers(a.answer) }),
      idleTimeoutMs: opts.idleTimeoutMs ?? envNumber('DESKHAND_MODEL_IDLE_TIMEOUT_MS'),
      retryBaseMs: opts.retryBaseMs ?? envNumber('DESKHAND_RETRY_BASE_MS'),
    },
    tasks,
    browser,
  );
}

/** The app's one browser: settings read at launch, its process group recorded with the commands' (ended by `recover()`). */
function createBrowser(dataDir: string, store: Store, settings: SettingsFile): BrowserService {
  const owner = selfIdentity();
  return new PlaywrightBrowser({
    dataDir,
    settings: () => {
      const b = settings.read().browser;
      const headed = process.env.DESKHAND_BROWSER_HEADED === '1' || b?.headless === false;
      return { headless: !headed, ...(b?.executable ? { executable: b.executable } : {}), ...(b?.endpoint ? { endpoint: b.endpoint } : {}) };
    },
    owned: {
      record: (g) => store.tasks.insertGroup({ ...g, task_id: 'browser', owner_pid: owner.pid, owner_start: owner.start }),
      forget: (tag) => store.tasks.deleteGroup(tag),
    },
  });
}

export function openRuntime(opts: HostRuntimeOptions): AppRuntime {
  const runtime = createAppRuntime(opts);
  runtime.recoverInterrupted();
  // What a crashed Deskhand left running is ended now; its job batches get a new worker.
  void runtime.tasks.recover().catch(() => undefined);
  return runtime;
}

function envNumber(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
