/**
 * Composes the runtime for a host: data dir, store, vault, background tasks, the sandbox, every tool family
 * (assemble.ts), crash recovery. The runtime itself constructs no services: they are made here and injected.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Store } from '../services/store/store';
import { Runtime, type RunOptions, type RunOutcome, type RuntimeOptions } from '../runtime/runtime';
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
import type { ComputerUse } from '../services/computer/index';
import { ComputerUseService } from '../services/computer/computer-use';
import { createOperator } from '../services/computer/operators';
import { StoreGrantBook } from '../services/computer/grant-book';
import { appGrantsModule } from '../services/store/modules/app-grants';
import { KillableRuns, wireKillSwitch } from './computer-kill';

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
  private readonly killable = new KillableRuns();

  constructor(
    opts: RuntimeOptions,
    readonly tasks: BackgroundTasks,
    /** Computer use (the kill switch, sessions, app grants). */
    readonly computer: ComputerUse = defaultComputer(opts.store, opts.dataDir),
  ) {
    super(opts);
    // Stopping a run stops what it started in the background too.
    this.onEvent((e) => {
      if (e.type === 'run.finished' && e.status === 'aborted') void this.tasks.cancelForRun(e.runId).catch(() => undefined);
    });
    wireKillSwitch(computer, this.killable, (runId) => this.stopParked(runId));
  }

  // Every drive of a run can be stopped by the computer-use kill switch (computer-kill.ts).
  override async sendMessage(...[id, prompt, options]: Parameters<Runtime['sendMessage']>): ReturnType<Runtime['sendMessage']> {
    const k = this.killable.wrap(options);
    return super.sendMessage(id, prompt, k.options).finally(k.release);
  }
  override async resume(runId: string, options: RunOptions): Promise<RunOutcome> {
    const k = this.killable.wrap(options);
    return super.resume(runId, k.options).finally(k.release);
  }
  override async decideApproval(...[id, answer, resume]: Parameters<Runtime['decideApproval']>): ReturnType<Runtime['decideApproval']> {
    if (!resume) return super.decideApproval(id, answer);
    const k = this.killable.wrap(resume);
    return super.decideApproval(id, answer, k.options).finally(k.release);
  }
  override async answerRequest(...[id, value, resume]: Parameters<Runtime['answerRequest']>): ReturnType<Runtime['answerRequest']> {
    if (!resume) return super.answerRequest(id, value);
    const k = this.killable.wrap(resume);
    return super.answerRequest(id, value, k.options).finally(k.release);
  }
}

export type HostRuntimeOptions = {
  dataDir: string;
  store?: Store;
  sqliteBinding?: string;
  vault?: Vault | null;
  http?: HttpService;
  webFetchTimeoutMs?: number;
  /** Computer use (default: this desktop's operator over the store's app grants). */
  computer?: (store: Store, dataDir: string) => ComputerUse;
} & Partial<
  Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools' | 'registry' | 'inputKinds' | 'vault'>
>;

/** Builds an AppRuntime with every family, without recovery (tests and benches that drive it directly). */
export function createAppRuntime(opts: HostRuntimeOptions): AppRuntime {
  const { sqliteBinding, store: given, vault: givenVault, http, webFetchTimeoutMs, computer: makeComputer, ...runtimeOpts } = opts;
  const store = given ?? new Store(opts.dataDir, sqliteBinding ? { nativeBinding: sqliteBinding } : {});
  const redactor = opts.redactor ?? new SecretRedactor();
  // Saved secrets: values in the OS keyring (DESKHAND_KEYRING_SERVICE lets tests use a throwaway service name).
  const vault = givenVault === undefined ? new Vault(new KeytarSecretStore(keyringService()), store) : givenVault;
  const tasks = new BackgroundTasks({ store, dataDir: opts.dataDir, redactor });
  const settings = new SettingsFile(opts.dataDir);
  const computer = (makeComputer ?? defaultComputer)(store, opts.dataDir);
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
    computer,
  });
  return new AppRuntime(
    {
      ...runtimeOpts,
      ...(vault ? { vault } : {}),
      redactor,
      store,
      registry,
      grants: computer.grants,
      inputKinds,
      // A background question's answer (from any process) finishes its task; the wake-up delivers it.
      onBackgroundAnswer: (a) => tasks.settleQuestion(a.taskId, a.declined ? { declined: a.reason } : { output: formatAnswers(a.answer) }),
      idleTimeoutMs: opts.idleTimeoutMs ?? envNumber('DESKHAND_MODEL_IDLE_TIMEOUT_MS'),
      retryBaseMs: opts.retryBaseMs ?? envNumber('DESKHAND_RETRY_BASE_MS'),
    },
    tasks,
    computer,
  );
}

/** This desktop's operator over the store's app grants. */
export function defaultComputer(store: Store, dataDir: string): ComputerUse {
  return new ComputerUseService({ operator: createOperator(process.env), grants: new StoreGrantBook(store.module(appGrantsModule)), dataDir, thumbnails: true });
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
