/** Composes the runtime for a headless host: data dir, store, every built-in tool, crash recovery. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Store } from '../services/store/store';
import { Runtime, type RuntimeOptions } from '../runtime/runtime';
import { builtinTools } from '../tools';
import { KeytarSecretStore, keyringService } from '../services/vault/secret-store';
import { Vault } from '../services/vault/vault';

/** `--data-dir`, else DESKHAND_HOME, else the OS app-data folder (the same one the desktop app uses). */
export function resolveDataDir(flag?: string): string {
  if (flag) return resolve(flag);
  if (process.env.DESKHAND_HOME) return resolve(process.env.DESKHAND_HOME);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Deskhand');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Deskhand');
  return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Deskhand');
}

export function openRuntime(
  opts: { dataDir: string; sqliteBinding?: string } & Partial<Omit<RuntimeOptions, 'store' | 'dataDir' | 'tools'>>,
): Runtime {
  const { sqliteBinding, ...runtimeOpts } = opts;
  const store = new Store(opts.dataDir, sqliteBinding ? { nativeBinding: sqliteBinding } : {});
  const runtime = new Runtime({
    // Saved secrets: values in the OS keyring (DESKHAND_KEYRING_SERVICE lets tests use a throwaway service name).
    vault: new Vault(new KeytarSecretStore(keyringService()), store),
    ...runtimeOpts,
    store,
    tools: builtinTools,
    idleTimeoutMs: opts.idleTimeoutMs ?? envNumber('DESKHAND_MODEL_IDLE_TIMEOUT_MS'),
    retryBaseMs: opts.retryBaseMs ?? envNumber('DESKHAND_RETRY_BASE_MS'),
  });
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
