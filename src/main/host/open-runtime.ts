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
import { SubagentService, type SubagentServiceOptions } from '../services/subagents/subagent-service';
import { wireSubagents, type SubagentWiring } from './subagent-runner';

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
    readonly subagents: SubagentService = new SubagentService({ store: opts.store, tasks: tasks.external, dataDir: opts.dataDir }),
  ) {
    super(opts);
    // Stopping a run stops what it started in the background too.
    this.onEvent((e) => {
      if (e.type === 'run.finished' && e.status === 'aborted') void this.tasks.cancelForRun(e.runId).catch(() => undefined);
    });
  }
}

export type HostRuntimeOptions = {
  dataDir: string;
  store?: Store;
  sqliteBinding?: string;
  vault?: Vault | null;
  http?: HttpService;
  webFetchTimeoutMs?: number;
  /** Subagent limits (live children, minutes, tokens, cost) and prices. */
  subagents?: Partial<Omit<SubagentServiceOptions, 'store' | 'tasks' | 'dataDir'>>;
  /** The provider for a child whose parent run another process drives (default: the parent run's row, no key). */
  subagentProvider?: SubagentWiring['provider'];
} & Partial<
  Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools' | 'registry' | 'inputKinds' | 'vault'>
>;

/** Builds an AppRuntime with every family, without recovery (tests and benches that drive it directly). */
export function createAppRuntime(opts: HostRuntimeOptions): AppRuntime {
  const { sqliteBinding, store: given, vault: givenVault, http, webFetchTimeoutMs, subagents: _subagentOpts, subagentProvider: _subagentProvider, ...runtimeOpts } = opts;
  const store = given ?? new Store(opts.dataDir, sqliteBinding ? { nativeBinding: sqliteBinding } : {});
  const redactor = opts.redactor ?? new SecretRedactor();
  // Saved secrets: values in the OS keyring (DESKHAND_KEYRING_SERVICE lets tests use a throwaway service name).
  const vault = givenVault === undefined ? new Vault(new KeytarSecretStore(keyringService()), store) : givenVault;
  const tasks = new BackgroundTasks({ store, dataDir: opts.dataDir, redactor });
  const settings = new SettingsFile(opts.dataDir);
  // Subagents and summarize_context need the runtime, which needs the tools: bound once it exists.
  const subagents = new SubagentService({ store, tasks: tasks.external, dataDir: opts.dataDir, ...(opts.subagents ?? {}) });
  let built: AppRuntime | null = null;
  const compactor = { compact: (conv: string, run: string, focus: string | undefined, signal: AbortSignal) => built!.compactNow(conv, run, focus, signal) };
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
    subagents,
    compactor,
  });
  built = new AppRuntime(
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
    subagents,
  );
  wireSubagents(built, subagents, { provider: opts.subagentProvider ?? ((run) => ({ provider: run.provider as never, model: run.model, ...(run.base_url ? { baseURL: run.base_url } : {}) })) });
  return built;
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
